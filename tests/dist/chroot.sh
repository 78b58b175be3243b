#!/usr/bin/env bash
# chroot.sh X64_ILMAP DIST_BUILD_DIR REPO_ROOT - the released linux-x64 build (scripts/build.sh
# dist) on Debian 11 (glibc 2.31, Python 3.9, pip 20.3), a chroot made by
# scripts/sysroot-bullseye.sh --chroot (build/chroot-bullseye, kept between runs):
#   - the floor: no binary needs a glibc symbol above the build's ILMAP_GLIBC_FLOOR (2.28) or a
#     library outside a base system (scripts/check-glibc-floor.sh), checked first, even where no
#     chroot can be made;
#   - the program starts there, says the version X64_ILMAP (this machine's Release build) says,
#     and compiles every PDB of corpus/out into the bytes X64_ILMAP writes; its symbolicate of the
#     runtime's recorded trace prints what X64_ILMAP prints;
#   - libilmap.so there, through the C API test (tests/capi/capi_test.sh and capi_test.c, the
#     latter compiled against the sysroot the dist build used), passes as it does here;
#   - the Python wheel of the dist build (scripts/package.sh's) installs with Debian 11's own pip
#     into a fresh venv (pip checks the wheel's manylinux tag against the system's glibc), and
#     its compile and symbolicate give the same bytes and text.
# The chroot gets a copy of what it runs under /opt/ilmap-test, and /proc while the test runs
# (bash's process substitution needs /dev/fd, a link into it); unmounted on every exit.
# Exit 0 pass, 1 fail, 77 skip (no dist build; no chroot can be made: not root, no debootstrap,
# no network to the mirror).
set -uo pipefail
export LC_ALL=C
x64=$(realpath "$1") dist=$2 root=$(realpath "$3")
[[ -x $dist/tools/ilmap && -f $dist/capi/libilmap.so.1 ]] || { echo "SKIP: no dist build in $dist (scripts/build.sh dist)"; exit 77; }
dist=$(realpath "$dist")
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok   $*"; }

# A value of the dist build's CMake cache (the toolchain records its floor and sysroot there).
cache() { sed -n "s/^$1:[A-Z]*=//p" "$dist/CMakeCache.txt"; }
floor=$(cache ILMAP_GLIBC_FLOOR)
[[ -n $floor ]] || { echo "FAIL: $dist/CMakeCache.txt has no ILMAP_GLIBC_FLOOR: not a dist build"; exit 1; }
if bash "$root/scripts/check-glibc-floor.sh" "$dist/tools/ilmap" "$dist/capi/libilmap.so.1" "$floor" >"${TMPDIR:-/tmp}/ilmap-floor.$$" 2>&1; then
  ok "floor: $(tr '\n' ' ' <"${TMPDIR:-/tmp}/ilmap-floor.$$")"
else
  fail "floor: $(cat "${TMPDIR:-/tmp}/ilmap-floor.$$")"
fi
rm -f "${TMPDIR:-/tmp}/ilmap-floor.$$"
# cmake/glibc231-compat.c's stand-ins stay inside the binaries: none is in their dynamic symbols
# as a definition, where another program loading libilmap.so could bind to it.
exported=$(objdump -T "$dist/tools/ilmap" "$dist/capi/libilmap.so.1" \
  | awk '$NF ~ /^(arc4random|pthread_cond_clockwait|__libc_single_threaded)$/ && $0 !~ /\*UND\*/ { print $NF }')
[[ -z $exported ]] && ok "the glibc stand-ins are not exported" || fail "the binaries export $exported"

skip() {
  if [[ $fails -gt 0 ]]; then echo "$fails failed (and $*)"; exit 1; fi
  echo "SKIP: $*"; exit 77
}
[[ $(id -u) == 0 ]] || skip "making and entering a chroot needs root"
command -v debootstrap >/dev/null || skip "debootstrap is not installed (scripts/install-deps.sh)"
command -v chroot >/dev/null || skip "chroot is not installed"
chroot_dir=$root/build/chroot-bullseye
if ! bash "$root/scripts/sysroot-bullseye.sh" --chroot "$chroot_dir" >"${TMPDIR:-/tmp}/ilmap-chroot.$$" 2>&1; then
  reason=$(tail -n 3 "${TMPDIR:-/tmp}/ilmap-chroot.$$" | tr '\n' ' ')
  rm -f "${TMPDIR:-/tmp}/ilmap-chroot.$$"
  skip "cannot make a Debian 11 chroot: $reason"
fi
rm -f "${TMPDIR:-/tmp}/ilmap-chroot.$$"
sysroot=$(cache ILMAP_SYSROOT)
[[ -d $sysroot ]] || { fail "the dist build names no sysroot in its CMakeCache.txt"; exit 1; }

# What the chroot runs, under /opt/ilmap-test (made again each run).
t=$chroot_dir/opt/ilmap-test
rm -rf "$t"
mkdir -p "$t/bin" "$t/lib" "$t/repo/tests/capi" "$t/tmp" "$t/out"
cp "$dist/tools/ilmap" "$t/bin/"
cp -L "$dist/capi/libilmap.so.1" "$t/lib/"
ln -s libilmap.so.1 "$t/lib/libilmap.so"
cp -r "$root/corpus" "$t/repo/"
cp "$root/tests/capi/capi_test.sh" "$t/repo/tests/capi/"
work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-dist.XXXXXX")
proc_mounted=""
cleanup() {
  [[ -z $proc_mounted ]] || umount "$chroot_dir/proc" || umount -l "$chroot_dir/proc"
  rm -rf "$work"
}
trap cleanup EXIT
if grep -q " $(realpath "$chroot_dir")/proc " /proc/mounts; then
  fail "$chroot_dir/proc is already mounted: another run of this test, or one killed before it could unmount"
  exit 1
fi
mount -t proc proc "$chroot_dir/proc" || { fail "cannot mount /proc in the chroot"; exit 1; }
proc_mounted=yes
export XDG_CACHE_HOME=$work/xdg HOME=$work/home
# Compiled and linked as the dist build compiles and links (its sysroot, include and link flags).
# shellcheck disable=SC2046
if ! gcc --sysroot="$sysroot" $(cache CMAKE_C_FLAGS) $(cache CMAKE_EXE_LINKER_FLAGS) -std=c11 -O1 -I"$root/include" \
    "$root/tests/capi/capi_test.c" -L"$dist/capi" -lilmap -o "$t/capi_test" 2>"$work/cc.err"; then
  fail "cannot compile tests/capi/capi_test.c against the sysroot: $(head -n 3 "$work/cc.err")"
fi
if ! bash "$root/integrations/python/build-wheel.sh" "$dist" "$t" >"$work/wheel.out" 2>&1; then
  fail "no wheel from the dist build: $(tail -n 3 "$work/wheel.out")"
fi
# In the chroot: a clean environment, the system's own PATH.
in_chroot() { chroot "$chroot_dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/opt/ilmap-test/tmp \
  TMPDIR=/opt/ilmap-test/tmp XDG_CACHE_HOME=/opt/ilmap-test/tmp/xdg LC_ALL=C "$@"; }
glibc=$(in_chroot /usr/bin/ldd --version 2>/dev/null | head -n1 | awk '{ print $NF }')
[[ $glibc == 2.31 ]] || fail "the chroot's glibc is '$glibc', not 2.31"

# The program.
want=$("$x64" --version)
got=$(in_chroot /opt/ilmap-test/bin/ilmap --version 2>&1)
[[ $got == "$want" ]] && ok "ilmap --version on glibc $glibc: $got" || fail "ilmap --version: '$got', want '$want'"
n=0 same=0
for pdb in "$root"/corpus/out/*/*.pdb; do
  [[ -f $pdb ]] || continue
  rel=${pdb#"$root"/}
  in=$rel
  [[ -f ${pdb%.pdb}.dll ]] && in=${rel%.pdb}.dll  # with a PE beside it, compiled from the PE (names)
  n=$((n + 1))
  rc_h=0 rc_c=0
  "$x64" compile -q "$root/$in" -o "$work/h-$n.ilmap" 2>/dev/null || rc_h=$?
  in_chroot /opt/ilmap-test/bin/ilmap compile -q "/opt/ilmap-test/repo/$in" -o "/opt/ilmap-test/out/$n.ilmap" \
    2>"$work/c.err" || rc_c=$?
  if [[ $rc_h -ne $rc_c ]]; then fail "$in: exit $rc_c in the chroot, $rc_h here: $(head -c 200 "$work/c.err")"; continue; fi
  [[ $rc_h -ne 0 ]] && { same=$((same + 1)); continue; }
  cmp -s "$work/h-$n.ilmap" "$t/out/$n.ilmap" && same=$((same + 1)) || fail "$in: the chroot's cache differs"
done
[[ $n -ge 5 && $same -eq $n ]] && ok "$n corpus inputs compile to the same bytes in the chroot" \
  || { [[ $n -ge 5 ]] || fail "only $n corpus inputs found"; }
trace=corpus/traces/cs-frames.il-offsets.txt
"$x64" symbolicate --search "$root/corpus/out/cs-frames" --cache-dir "$work/c-h" "$root/$trace" >"$work/h.sym" 2>/dev/null
in_chroot /opt/ilmap-test/bin/ilmap symbolicate --search /opt/ilmap-test/repo/corpus/out/cs-frames \
  --cache-dir /opt/ilmap-test/tmp/c "/opt/ilmap-test/repo/$trace" >"$work/c.sym" 2>"$work/c.err"
if cmp -s "$work/h.sym" "$work/c.sym" && grep -q ':line [0-9]' "$work/c.sym"; then
  ok "symbolicate of the runtime's trace: the same text in the chroot"
else
  fail "symbolicate differs in the chroot: $(diff "$work/h.sym" "$work/c.sym" | head -n 4) $(head -c 200 "$work/c.err")"
fi

# The C API test, whole, in the chroot.
if [[ -x $t/capi_test ]]; then
  if in_chroot env LD_LIBRARY_PATH=/opt/ilmap-test/lib bash /opt/ilmap-test/repo/tests/capi/capi_test.sh \
      /opt/ilmap-test/bin/ilmap /opt/ilmap-test/capi_test /opt/ilmap-test/repo >"$work/capi.out" 2>&1; then
    ok "tests/capi/capi_test.sh in the chroot: $(grep -c '^ok' "$work/capi.out") checks passed"
  else
    fail "tests/capi/capi_test.sh in the chroot: $(grep -v '^ok' "$work/capi.out" | head -n 6)"
  fi
fi

# The wheel, with Debian 11's pip, in a fresh venv; what it computes against the program here.
wheel=$(cd "$t" && ls ilmap-*.whl 2>/dev/null | head -n1)
if [[ -n $wheel ]]; then
  # Tagged with the newest glibc its library needs, as objdump lists it: the floor at most.
  need=$(objdump -T "$dist/capi/libilmap.so.1" | grep -o 'GLIBC_[0-9]*\.[0-9]*' | sed 's/GLIBC_//' | sort -V | tail -n 1)
  [[ $wheel == "ilmap-$("$x64" --version | awk '{ print $2 }')-py3-none-manylinux_${need/./_}_x86_64.whl" ]] \
    || fail "the wheel is tagged $wheel; its library needs glibc $need"
  [[ $(printf '%s\n%s\n' "$need" "$floor" | sort -V | tail -n 1) == "$floor" ]] || fail "the wheel's library needs glibc $need"
  cat >"$t/check.py" <<'PY'
import sys, ilmap
dll, out, search, trace = sys.argv[1:5]
ilmap.compile(dll, out)
with ilmap.Symbolicator([search], cache_dir="/opt/ilmap-test/tmp/py") as s:
    sys.stdout.write(s.symbolicate(open(trace).read()))
PY
  dll=corpus/out/cs-frames/Ilmap.Corpus.Frames.dll
  "$x64" compile -q "$root/$dll" -o "$work/frames.ilmap"
  if in_chroot sh -c "python3 -m venv /opt/ilmap-test/venv && /opt/ilmap-test/venv/bin/pip install -q --no-index \
        /opt/ilmap-test/$wheel" >"$work/pip.out" 2>&1; then
    in_chroot /opt/ilmap-test/venv/bin/python /opt/ilmap-test/check.py "/opt/ilmap-test/repo/$dll" \
      /opt/ilmap-test/out/py.ilmap /opt/ilmap-test/repo/corpus/out/cs-frames "/opt/ilmap-test/repo/$trace" \
      >"$work/py.sym" 2>"$work/py.err"
    if cmp -s "$work/frames.ilmap" "$t/out/py.ilmap" && cmp -s "$work/h.sym" "$work/py.sym"; then
      ok "the wheel ($wheel) in a venv: ilmap.compile and Symbolicator as the program here"
    else
      fail "the wheel in the chroot: $(head -c 300 "$work/py.err") $(diff "$work/h.sym" "$work/py.sym" | head -n 4)"
    fi
  else
    fail "pip install $wheel in the chroot: $(tail -n 4 "$work/pip.out")"
  fi
fi
rm -rf "$t"
[[ $fails -eq 0 ]] || { echo "$fails failed"; exit 1; }
echo "all passed"
