#!/usr/bin/env python3
"""scripts/bench-write.py - replace one generated section of a Markdown file.

    bench-write.py FILE NAME [PART]

Replaces what lies between the lines `<!-- NAME:begin -->` and `<!-- NAME:end -->` of FILE with
the text of PART (a file; standard input when PART is absent or `-`). The markers stay; the file is
rewritten through a temporary file and a rename. Exit 1 when FILE lacks the pair of markers.
Every benchmark script that writes into BENCHMARKS.md goes through this one helper
(scripts/bench-lib.sh: bench_write).
"""
import os
import sys


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__.strip().splitlines()[2])
    path, name = sys.argv[1], sys.argv[2]
    part = sys.stdin.read() if len(sys.argv) == 3 or sys.argv[3] == "-" else open(sys.argv[3]).read()
    text = open(path).read()
    begin, end = f"<!-- {name}:begin -->\n", f"<!-- {name}:end -->"
    i = text.find(begin)
    j = text.find(end, i + len(begin)) if i >= 0 else -1
    if i < 0 or j < 0 or text.count(begin) != 1:
        sys.exit(f"bench-write.py: {path} has no single pair of lines {begin.strip()} ... {end}")
    part = part.rstrip("\n") + "\n" if part.strip() else ""
    new = text[: i + len(begin)] + part + text[j:]
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(new)
    os.replace(tmp, path)
    print(f"bench-write.py: wrote section {name} of {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
