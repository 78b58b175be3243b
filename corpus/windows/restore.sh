#!/usr/bin/env bash
# corpus/windows/restore.sh [MANIFEST] - restores the NuGet packages that manifest.tsv names, with
# the ordinary client (`dotnet restore` of a throw-away project holding one PackageDownload item per
# package), into NuGet's global packages folder (NUGET_PACKAGES, else the user's default). Prints
# that folder; a row's files are then FOLDER/<package, lower case>/<version>/<pdb or pe column>.
# Checks every row: the PDB starts with the MSF 7.00 signature, and the PDB and the PE have the
# SHA-256 of the manifest (what the corpus was made from; a republished package would fail here).
# Nothing is written into the source tree. Run at test time, never at build time: the first run
# needs a NuGet source, later runs are served from the global folder.
# Exit 0 ok, 1 a file is missing or differs, 77 (skip) without dotnet or when restore fails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
manifest=${1:-$here/manifest.tsv}
command -v dotnet > /dev/null || { echo "SKIP: dotnet not found" >&2; exit 77; }
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 \
       MSBUILDDISABLENODEREUSE=1
work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-win-corpus.XXXXXX")
trap 'rm -rf "$work"' EXIT

# One PackageDownload per package id; several versions of one id are joined with ';'.
items=$(awk -F'\t' 'NR > 1 && $1 !~ /^#/ && NF >= 3 {
          key = $2; v = "[" $3 "]"
          if (!(key in seen)) { order[++n] = key; seen[key] = v }
          else if (index(";" seen[key] ";", ";" v ";") == 0) seen[key] = seen[key] ";" v
        }
        END { for (i = 1; i <= n; i++) printf "    <PackageDownload Include=\"%s\" Version=\"%s\" />\n", order[i], seen[order[i]] }' "$manifest")
cat > "$work/restore.csproj" <<XML
<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup>
    <TargetFramework>net10.0</TargetFramework>
  </PropertyGroup>
  <ItemGroup>
$items
  </ItemGroup>
</Project>
XML
if ! dotnet restore "$work/restore.csproj" --nologo -v quiet > "$work/restore.log" 2>&1; then
  cat "$work/restore.log" >&2
  echo "SKIP: the Windows PDB corpus packages could not be restored (no NuGet source?)" >&2
  exit 77
fi
root=${NUGET_PACKAGES:-}
if [[ -z $root ]]; then
  root=$(dotnet nuget locals global-packages --list | sed -n 's/^global-packages: *//p')
fi
root=${root%/}
[[ -d $root ]] || { echo "restore.sh: NuGet global packages folder '$root' not found" >&2; exit 1; }

status=0
while IFS=$'\t' read -r name package version pdb pe language pdb_bytes pdb_sha pe_sha licence; do
  [[ $name == case || $name == \#* || -z $name ]] && continue
  dir="$root/$(tr '[:upper:]' '[:lower:]' <<< "$package")/$version"
  for f in "$pdb" "$pe"; do
    [[ -f $dir/$f ]] || { echo "restore.sh: $name: $package $version has no $f" >&2; status=1; continue 2; }
  done
  if [[ "$(head -c 24 "$dir/$pdb" | tr -d '\0')" != "Microsoft C/C++ MSF 7.00" ]]; then
    echo "restore.sh: $name: $pdb is not an MSF 7.00 (Windows) PDB" >&2; status=1
  fi
  [[ $(sha256sum < "$dir/$pdb" | cut -c1-64) == "$pdb_sha" ]] || { echo "restore.sh: $name: $pdb: SHA-256 differs from the manifest" >&2; status=1; }
  [[ $(sha256sum < "$dir/$pe" | cut -c1-64) == "$pe_sha" ]] || { echo "restore.sh: $name: $pe: SHA-256 differs from the manifest" >&2; status=1; }
done < "$manifest"
[[ $status == 0 ]] || exit 1
echo "$root"
