#!/usr/bin/env python3
"""check-narrow-paths.py SOURCE_DIR - fails when production code outside support/ turns a path
string into a std::filesystem::path, or a path into a string, without support/Platform.h's
fs_path / fs_string / fs_generic_string. Paths are UTF-8 strings everywhere in ilmap; libstdc++
on Windows reads and writes a narrow path in the ANSI code page, so a narrow conversion breaks
every non-ASCII file name there (a --search or store folder "Grüße" was "no such file").

Checked, on lines that are not comments, in the library layers and front doors:
  - .string() and .generic_string() (a path's narrow form);
  - a path built from a string: fs::path(x), fs::path name(x);
  - a std::filesystem function or iterator whose first argument is not platform::fs_path(...)
    nor something the file declares as a path (fs::path NAME, const fs::path& NAME, a member
    `path` of a path type, it->path(), .parent_path(), ...).
Prints one line per finding and a closing line; exit 0 pass, 1 fail, 2 usage."""
import os
import re
import sys

FOLDERS = ["compiler", "decode", "format", "reader", "symbols", "symbolicate", "capi", "tools", "serve"]
NS = r"(?:fs|std::filesystem)"
FUNCS = ("exists|is_regular_file|is_directory|create_directories|create_directory|file_size|remove|"
         "remove_all|last_write_time|status|symlink_status|weakly_canonical|canonical|absolute|rename|"
         "copy_file|directory_iterator|recursive_directory_iterator")
narrow_text = re.compile(r"\.(?:generic_)?string\(\)")
path_ctor = re.compile(NS + r"::path\s*\(|" + NS + r"::path\s+\w+\s*\(")
call = re.compile(NS + r"::(?:" + FUNCS + r")\s*(?:\w+\s*)?\(\s*([^,()]*(?:\([^()]*\))?[^,()]*)")
declared = re.compile(r"(?:" + NS + r"::(?:path|file_status)|std::vector<" + NS + r"::path>)\s*&?\s*(\w+)"
                      r"|,\s*(\w+)\s*=\s*platform::fs_path\(")


def path_like(arg, names):
    arg = arg.strip()
    # fs::absolute(...) is itself a call this check looks into.
    if not arg or arg.startswith(("platform::fs_path(", "fs::absolute", "std::filesystem::absolute")):
        return True
    if re.search(r"(?:path|parent_path|filename|lexically_normal|lexically_relative)\(\)\s*$", arg):
        return True
    base = re.match(r"[A-Za-z_]\w*", arg)
    if not base:
        return False
    head = base.group(0)
    # f.path where f is a struct whose `path` member is a path (declared in the file).
    member = re.match(r"[A-Za-z_]\w*\.(\w+)$", arg)
    return head in names or (member is not None and member.group(1) in names)


def main():
    if len(sys.argv) != 2:
        print("usage: check-narrow-paths.py SOURCE_DIR", file=sys.stderr)
        return 2
    os.chdir(sys.argv[1])
    bad = files = 0
    for d in FOLDERS:
        for dirpath, _, names in os.walk(d):
            for n in sorted(names):
                if not n.endswith((".h", ".cpp", ".c")):
                    continue
                f = os.path.join(dirpath, n)
                files += 1
                text = open(f, encoding="utf-8", errors="replace").read()
                if "filesystem" not in text:
                    continue
                path_names = {a or b for a, b in declared.findall(text)}
                for i, line in enumerate(text.splitlines(), 1):
                    code = line.split("//", 1)[0]
                    problems = []
                    if narrow_text.search(code):
                        problems.append("narrow .string(): use platform::fs_string")
                    if path_ctor.search(code):
                        problems.append("a path from a narrow string: use platform::fs_path")
                    for m in call.finditer(code):
                        if not path_like(m.group(1), path_names):
                            problems.append("std::filesystem called with '%s': wrap it in platform::fs_path" % m.group(1).strip())
                    for p in problems:
                        print("  %s:%d: %s" % (f, i, p))
                        bad += 1
    if files == 0:
        print("FAIL: no source files under", sys.argv[1])
        return 1
    if bad:
        print("check-narrow-paths: %d narrow path conversions outside support/ in %d files" % (bad, files))
        return 1
    print("check-narrow-paths: %d files outside support/, every path converted through support/Platform.h" % files)
    return 0


if __name__ == "__main__":
    sys.exit(main())
