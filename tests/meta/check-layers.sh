#!/usr/bin/env bash
# check-layers.sh SOURCE_DIR - fails when a source file includes a header of a layer it may not
# use (docs/architecture.md). Each library folder is one layer; an include names its layer by its
# first path component ("decode/PeFile.h"); the public headers "ilmap/..." belong to the reader
# (ilmap/mapping_guard.h and ilmap/status.h to support). The generated schema header
# "ilmap_generated.h" is the cache format's raw access: format, compiler and reader only, and
# tools through reader/RawCache.h (dump and info print raw sections).
# Prints one line per offending include and a closing line; exit 0 pass, 1 fail, 2 usage.
set -euo pipefail
export LC_ALL=C
src=${1:?usage: check-layers.sh SOURCE_DIR}
cd "$src" || exit 2

# layer -> the layers its files may include (besides their own)
declare -A allowed=(
  [support]="support"
  [format]="support"
  [decode]="support"
  [compiler]="decode format support"
  [reader]="format support"
  [symbols]="reader compiler decode support"
  [symbolicate]="symbols reader decode support"
  [serve]="symbolicate symbols reader support"
  [capi]="symbolicate symbols reader compiler decode support"
  [tools]="serve symbolicate symbols reader compiler decode format support"
)
layer_of_include() {  # the layer an include path belongs to, or "" for a system/local header
  case $1 in
    ilmap/mapping_guard.h|ilmap/status.h) echo support ;;
    ilmap/*) echo reader ;;
    ilmap_generated.h) echo generated ;;
    */*) local first=${1%%/*}; [[ -n ${allowed[$first]+x} ]] && echo "$first" || echo "" ;;
    *) echo "" ;;
  esac
}

bad=0 files=0
for layer in "${!allowed[@]}"; do
  [[ -d $layer ]] || { echo "FAIL: layer folder $layer/ is missing"; bad=$((bad + 1)); continue; }
  while IFS= read -r -d '' f; do
    files=$((files + 1))
    while IFS= read -r inc; do
      to=$(layer_of_include "$inc")
      [[ -z $to || $to == "$layer" ]] && continue
      if [[ $to == generated ]]; then
        case $layer in format|compiler|reader) continue ;; esac
        [[ $f == reader/RawCache.h ]] && continue
        echo "  $f: includes $inc (generated FlatBuffers types: use the reader API, or reader/RawCache.h in tools)"
        bad=$((bad + 1)); continue
      fi
      if [[ $to == reader && $f == tools/* ]] || [[ " ${allowed[$layer]} " == *" $to "* ]]; then
        if [[ $inc == reader/RawCache.h && $layer != tools ]]; then
          echo "  $f: includes $inc (raw cache access is for tools only)"; bad=$((bad + 1))
        fi
        continue
      fi
      echo "  $f: includes $inc ($layer/ may use: ${allowed[$layer]})"
      bad=$((bad + 1))
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
  done < <(find "$layer" -type f \( -name '*.h' -o -name '*.cpp' -o -name '*.c' \) -print0)
done
[[ $files -gt 0 ]] || { echo "FAIL: no source files under $src"; exit 1; }
if [[ $bad -gt 0 ]]; then
  echo "check-layers: $bad includes cross a layer the wrong way in $files files"
  exit 1
fi
echo "check-layers: $files files, every include within its layer's allowed set"
