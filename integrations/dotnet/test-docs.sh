#!/usr/bin/env bash
# The C# examples of the .NET docs compile: test-docs.sh OUTDIR (ctest dotnet_ilmap_docs). Takes
# every ```csharp block of docs/dotnet.md and of the Ilmap package's README.md, and compiles each
# as a file of its own in a project like `dotnet new console` makes (implicit usings, nullable),
# which references the Ilmap library, for each framework the package ships (net10.0, net8.0).
# A block's `using` directives stay at the top of its file, its other lines become the body of a
# method, whose parameters give the names the examples take from the reader's code: `frame` (a
# System.Diagnostics.StackFrame) and `token` (an int); so an example that leaves out `using Ilmap;`
# or calls what the library lacks fails here, at its line of the markdown file.
# Exit 77 (skip) without dotnet or when the Ilmap library's packages cannot be restored.
set -euo pipefail
if [ $# -ne 1 ]; then
    echo "usage: $0 OUTDIR" >&2
    exit 1
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$here/env.sh"
ilmap_require_dotnet
mkdir -p "$1"
out=$(cd "$1" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
p="$out/examples"
rm -rf "$p" && mkdir -p "$p"
echo '<Project />' >"$p/Directory.Build.props"
echo '<Project />' >"$p/Directory.Build.targets"
cat >"$p/NuGet.config" <<XML
<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <clear />
  </packageSources>
</configuration>
XML
cat >"$p/Examples.csproj" <<XML
<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup>
    <TargetFrameworks>net10.0;net8.0</TargetFrameworks>
    <ImplicitUsings>enable</ImplicitUsings>
    <Nullable>enable</Nullable>
  </PropertyGroup>
  <ItemGroup>
    <ProjectReference Include="$here/Ilmap/Ilmap.csproj" />
  </ItemGroup>
</Project>
XML
python3 - "$p" "$root" docs/dotnet.md integrations/dotnet/Ilmap/README.md <<'PY'
import re, sys
out, root, docs = sys.argv[1], sys.argv[2], sys.argv[3:]
directive = re.compile(r'^using\s+(static\s+)?[A-Za-z_][A-Za-z0-9_.]*\s*;\s*(//.*)?$')
n = 0
for doc in docs:
    lines = open(f'{root}/{doc}', encoding='utf-8').read().split('\n')
    i = 0
    while i < len(lines):
        if lines[i].strip() != '```csharp':
            i += 1
            continue
        start = i + 2  # the 1-based line number of the block's first line
        i += 1
        block = []
        while i < len(lines) and lines[i].strip() != '```':
            block.append(lines[i])
            i += 1
        n += 1
        usings = [l for l in block if directive.match(l)]
        src = usings + [f'namespace IlmapDocExamples;', f'static class Example{n}', '{',
                        '    static void Run(System.Diagnostics.StackFrame frame, int token)', '    {']
        for k, l in enumerate(block):
            if not directive.match(l):
                src += [f'#line {start + k} "{root}/{doc}"', l]
        src += ['#line default', '    }', '}']
        open(f'{out}/Example{n}.cs', 'w', encoding='utf-8').write('\n'.join(src) + '\n')
        print(f'{doc}:{start}: example {n}, {len(block)} lines')
if n == 0:
    sys.exit('no ```csharp block in ' + ', '.join(docs))
PY
if ! dotnet restore "$p/Examples.csproj" "${ilmap_restore_args[@]}" --artifacts-path "$out/artifacts" \
        -v q "${ilmap_build_args[@]}" >"$out/restore.log" 2>&1; then
    cat "$out/restore.log"
    echo "SKIP: the Ilmap library's packages could not be restored (log: $out/restore.log)"
    exit 77
fi
if ! dotnet build "$p/Examples.csproj" -c Release --no-restore --artifacts-path "$out/artifacts" \
        -v q "${ilmap_build_args[@]}" >"$out/build.log" 2>&1; then
    grep -E ': error ' "$out/build.log" | sort -u >&2 || cat "$out/build.log" >&2
    fail "the examples of the .NET docs do not compile (log: $out/build.log)"
fi
count=$(ls "$p"/Example*.cs | wc -l)
echo "ok: $count examples compile for net10.0 and net8.0"
echo "docs examples: $count passed, 0 failed"
