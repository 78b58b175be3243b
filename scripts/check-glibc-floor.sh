#!/usr/bin/env bash
# scripts/check-glibc-floor.sh BINARY... MAX - fails if any BINARY (a program or shared library)
# references a glibc symbol version above MAX (for example 2.28): the oldest glibc it can start
# with is the highest GLIBC_x.y among its dynamic symbols (objdump -T), since the loader refuses a
# binary that names a version the system's glibc does not define. Prints, per binary, its
# highest version and every symbol above MAX. Also fails a binary that needs a shared library
# other than glibc's own and libgcc_s (its DT_NEEDED entries): every other library must be linked
# statically or loaded with dlopen, or the binary would not start on a system without it.
# Exit 0: all within; 1: some above or another library needed; 2: usage.
set -euo pipefail

if (( $# < 2 )) || ! [[ ${!#} =~ ^[0-9]+\.[0-9]+$ ]]; then
  echo "usage: $0 BINARY... MAX   (MAX as 2.28)" >&2
  exit 2
fi
max=${!#}
status=0
for bin in "${@:1:$#-1}"; do
  if ! syms=$(objdump -T "$bin" 2>/dev/null); then
    echo "$bin: not an ELF file objdump can read" >&2
    exit 2
  fi
  # "0000... DF *UND* 0000... (GLIBC_2.34) __libc_start_main": version and name per line.
  versions=$(awk 'match($0, /GLIBC_[0-9]+\.[0-9]+(\.[0-9]+)?/) { v = substr($0, RSTART + 6, RLENGTH - 6); print v, $NF }' <<<"$syms")
  highest=$(cut -d' ' -f1 <<<"$versions" | sort -V | tail -n1)
  above=$(awk -v max="$max" '{ print }' <<<"$versions" | while read -r v name; do
    [[ -n $v && $(printf '%s\n%s\n' "$v" "$max" | sort -V | tail -n1) != "$max" ]] && echo "  $name@GLIBC_$v"
  done | sort -u || true)
  # "  NEEDED               libc.so.6" lines of the dynamic section.
  others=$(objdump -p "$bin" | awk '$1 == "NEEDED" { print $2 }' \
    | grep -Ev '^(libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|libgcc_s\.so\.1|ld-linux-(x86-64|aarch64)\.so\.[0-9]+)$' || true)
  if [[ -n $others ]]; then
    echo "$bin: needs shared libraries a base system may lack: $(echo $others)"
    status=1
  fi
  if [[ -n $above ]]; then
    echo "$bin: needs glibc $highest, above $max:"
    echo "$above"
    status=1
  else
    echo "$bin: needs glibc ${highest:-(none)}, within $max"
  fi
done
exit $status
