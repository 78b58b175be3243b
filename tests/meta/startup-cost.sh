#!/usr/bin/env bash
# startup-cost.sh ILMAP - `ilmap help` (process start, static initializers, every command's CLI
# set-up, the help text) touches at most 200 pages, and `ilmap --version` (process start and
# static initializers only, since issue 23) at most 130 (minor faults, the best of 5 runs).
# `ilmap --version`, which then set up every command, touched 486 before the start-up work of
# issue 14: a static initializer wrote one field in each of 256 slots 4 KiB apart (AtomicFile's
# signal-cleanup table), and EVP linked the whole static libcrypto (330 KB of relocated data);
# 119 after. On 2026-11-28: `ilmap help` 158, `ilmap --version` 99. A regression of either kind
# exceeds a bound.
# Skipped (77) without python3 (it reads the child's rusage) or in sanitizer builds.
set -u
ILMAP="$1"
command -v python3 > /dev/null || { echo "python3 not found: skipped"; exit 77; }
if nm "$ILMAP" 2>/dev/null | grep __asan_init >/dev/null; then echo "sanitizer build: skipped"; exit 77; fi
python3 - "$ILMAP" <<'PY'
import os, sys
failed = False
for args, bound in ((["help"], 200), (["--version"], 130)):
    best = None
    for _ in range(5):
        # posix_spawn (vfork-like): a fork's copy-on-write faults would count as the child's.
        pid = os.posix_spawn(sys.argv[1], [sys.argv[1]] + args, os.environ,
                             file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
        _, status, ru = os.wait4(pid, 0)
        if status != 0:
            sys.exit(f"ilmap {' '.join(args)}: status {status}")
        best = ru.ru_minflt if best is None else min(best, ru.ru_minflt)
    print(f"ilmap {' '.join(args)}: {best} minor page faults (bound {bound})")
    failed |= best > bound
sys.exit(1 if failed else 0)
PY
