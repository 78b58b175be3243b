#!/bin/bash
# windows.sh REPO_ROOT ILMAP SHARED_DIR - `ilmap symbolicate` on modules whose PDB is a Windows
# (MSF 7.00) PDB: the module index must match the PE's Windows CodeView entry (GUID + DBI age)
# with the PDB beside it, compile both into the cache directory under the Windows key
# (<pdb>/<guid N><age x>/<stem>.ilmap), reuse that cache, and answer CoreCLR (file name),
# Android (method name), ProductionStackTrace (MODULE line G:/A:) and Mono (MVID) frames with the
# line that `ilmap lookup` of the PDB's own cache gives and that the naive rule gives (the
# visible point's line in `ilmap dump` of the PDB). A cache compiled from PE + Windows PDB is
# found in --search by file name, CodeView GUID + age and MVID; a PDB of another build beside the
# PE is a "PDB id mismatch".
# Modules: SHARED_DIR/corpus-public/win_* (PE + PDB, hermetic), and rows of
# corpus/windows/manifest.tsv restored by corpus/windows/restore.sh (old NuGet packages).
# Exit 0 ok, 1 failure, 77 when neither is available.
set -u
export LC_ALL=C
root=$1 ilmap=$2 shared=${3:-$1/../shared}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-sym-win.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0 checked=0
expect() {  # NAME WANT GOT
  checked=$((checked + 1))
  if [ "$2" = "$3" ]; then echo "ok   $1"; else echo "FAIL $1"; echo "     want: $2"; echo "     got:  $3"; fail=1; fi
}

# check_module NAME DLL PDB MAX_FRAMES [OTHER_PDB: a PDB of another build, for a stale cache]
check_module() {
  local name=$1 dll=$2 pdb=$3 max=$4 other=${5:-}
  local d=$tmp/$name stem
  stem=$(basename "$dll" .dll)
  mkdir -p "$d/mod" "$d/pdbcache"
  cp "$dll" "$d/mod/" && cp "$pdb" "$d/mod/$stem.pdb" || { echo "FAIL $name: copy"; fail=1; return; }
  "$ilmap" dump --methods "$d/mod/$stem.dll" >"$d/methods" 2>"$d/err" || { echo "FAIL $name: dump --methods"; cat "$d/err"; fail=1; return; }
  "$ilmap" dump "$d/mod/$stem.pdb" >"$d/points" 2>"$d/err" || { echo "FAIL $name: dump"; cat "$d/err"; fail=1; return; }
  "$ilmap" compile "$d/mod/$stem.pdb" -o "$d/pdbcache/pdb.ilmap" >/dev/null 2>"$d/err" || { echo "FAIL $name: compile PDB"; cat "$d/err"; fail=1; return; }
  local info guid age mvid
  info=$("$ilmap" info --json "$d/mod/$stem.dll")
  guid=$(printf '%s\n' "$info" | sed -n 's/^ *"codeview_guid": "\([0-9a-f-]*\)".*/\1/p' | head -1)
  age=$(printf '%s\n' "$info" | sed -n 's/^ *"codeview_age": \([0-9]*\).*/\1/p' | head -1)
  mvid=$(printf '%s\n' "$info" | sed -n 's/^ *"mvid": "\([0-9a-f-]*\)".*/\1/p' | tr -d -)
  [ -n "$guid" ] && [ -n "$age" ] && [ -n "$mvid" ] || { echo "FAIL $name: no CodeView GUID/age/MVID in ilmap info"; fail=1; return; }

  # Points: per method, its second visible point (else its first), spread over the methods.
  # Fields: token, offset, path, line, column, CoreCLR name, Mono name, and 1 when the name
  # without parameters and generic arguments is unique (only those make Android frames: the
  # Android form names no module and no overload).
  awk -F'\t' 'NR == FNR { n = $2; sub(/\(.*/, "", n); sub(/\[.*/, "", n); count[n]++; cor[$1] = $2; mono[$1] = $3; short[$1] = n; next }
       {
         if ($0 ~ / hidden$/) next
         tok = $1; off = $2
         if (!(tok in cor) || (tok in seen && seen[tok] > 0)) next
         # path: fields 3..NF-1 (a path may hold spaces); span: last field
         path = $3; for (i = 4; i < NF; i++) path = path " " $i
         split($NF, span, /[:-]/)
         seen[tok] = off
         line[tok] = tok "\t" off "\t" path "\t" span[1] "\t" span[2] "\t" cor[tok] "\t" mono[tok] "\t" (count[short[tok]] == 1)
         if (!(tok in order)) { order[tok] = ++k; toks[k] = tok }
       }
       END { for (i = 1; i <= k; i++) print line[toks[i]] }' \
      "$d/methods" FS=' ' "$d/points" | awk -v n="$max" '
        { all[NR] = $0 } END { step = NR > n ? int(NR / n) : 1; c = 0
          for (i = 1; i <= NR && c < n; i += step) { print all[i]; c++ } }' >"$d/picked"
  local npicked
  npicked=$(wc -l <"$d/picked")
  [ "$npicked" -gt 0 ] || { echo "FAIL $name: no visible point picked"; fail=1; return; }

  : >"$d/coreclr.in"; : >"$d/coreclr.want"; : >"$d/android.in"; : >"$d/android.want"
  : >"$d/pst.in"; : >"$d/pst.want"; : >"$d/mono.in"; : >"$d/mono.want"
  local tok off path sl sc cor mono uniq short hexoff lk
  while IFS=$'\t' read -r tok off path sl sc cor mono uniq; do
    # The naive rule (the dump line) and `ilmap lookup` of the PDB's cache must agree first.
    lk=$("$ilmap" lookup "$d/pdbcache/pdb.ilmap" "$tok" "$off" 2>&1)
    expect "$name $tok+$off lookup == dump" "$path:$sl:$sc" "$lk"
    hexoff=$(printf '0x%x' "$off")
    short=${cor%%(*}
    printf '   at %s in %s:token %s+%s\n' "$cor" "$stem.dll" "$(printf '0x%x' "$tok")" "$hexoff" >>"$d/coreclr.in"
    printf '   at %s in %s:line %s:%s\n' "$cor" "$path" "$sl" "$sc" >>"$d/coreclr.want"
    if [ "$uniq" = 1 ]; then
      printf 'at %s + %s(Unknown Source)\n' "$short" "$hexoff" >>"$d/android.in"
      printf 'at %s in %s:line %s:%s\n' "$cor" "$path" "$sl" "$sc" >>"$d/android.want"
    fi
    printf '   at %s!%s!%s +%s\n' "$stem" "$(printf '0x%08x' "$tok")" "$cor" "$hexoff" >>"$d/pst.in"
    printf '   at %s in %s:line %s:%s\n' "$cor" "$path" "$sl" "$sc" >>"$d/pst.want"
    printf '  at %s [0x%05x] in <%s>:0 \n' "$mono" "$off" "$mvid" >>"$d/mono.in"
    printf '  at %s [0x%05x] in %s:%s:%s \n' "$mono" "$off" "$path" "$sl" "$sc" >>"$d/mono.want"
  done <"$d/picked"
  printf '==========\nMODULE: %s => x; G:%s; A:%s\n' "$stem" "$guid" "$age" | tee -a "$d/pst.in" >>"$d/pst.want"

  local sym="$ilmap symbolicate --columns --cache-dir $d/cache"
  expect "$name coreclr ($npicked frames)" "$(cat "$d/coreclr.want")" "$($sym --search "$d/mod" <"$d/coreclr.in" 2>"$d/err")"
  expect "$name   summary" "ilmap symbolicate: $npicked frames, $npicked resolved" "$(head -1 "$d/err")"
  # Compiled once, under the Windows key (lower-case GUID N as every key of docs/store-layout.md, age hex).
  local key
  key=$(printf '%s' "$stem.pdb/${guid//-/}$(printf '%x' "$age")/$stem.ilmap" | tr '[:upper:]' '[:lower:]')
  expect "$name   cache at the Windows key" "$key" "$(cd "$d/cache" && find . -type f -name '*.ilmap' | sed 's|^\./||')"
  [ -s "$d/android.in" ] && expect "$name android ($(wc -l <"$d/android.in") frames)" "$(cat "$d/android.want")" "$($sym --search "$d/mod" <"$d/android.in" 2>"$d/err")"
  expect "$name   reused" "ilmap: reused $d/cache/$key" "$($sym -v --search "$d/mod" <"$d/coreclr.in" 2>&1 >/dev/null | grep -E '^ilmap: (reused|compiled)')"
  # A cache at that key that does not verify, or records another PDB id, is not reused.
  local wrong
  for wrong in truncated other; do
    if [ $wrong = truncated ]; then
      head -c 100 "$d/cache/$key" >"$d/bad.ilmap"
    else
      [ -n "$other" ] || continue
      "$ilmap" compile "$other" -o "$d/bad.ilmap" >/dev/null 2>&1 || { echo "FAIL $name: compile $other"; fail=1; continue; }
    fi
    cp "$d/bad.ilmap" "$d/cache/$key"
    expect "$name stale cache ($wrong)" "$(cat "$d/coreclr.want")" "$($sym -v --search "$d/mod" <"$d/coreclr.in" 2>"$d/err")"
    expect "$name   not reused, recompiled" "ilmap: $d/cache/$key: not reused (does not verify or records another PDB id)
ilmap: compiled $d/mod/$stem.dll -> $d/cache/$key" "$(grep -E '^ilmap: .*(not reused|compiled /)' "$d/err")"
  done
  expect "$name pst (G:/A:)" "$(cat "$d/pst.want")" "$($sym --search "$d/mod" <"$d/pst.in" 2>"$d/err")"
  expect "$name mono (MVID)" "$(cat "$d/mono.want")" "$($sym --search "$d/mod" <"$d/mono.in" 2>"$d/err")"
  # A fresh cache directory: the PST block alone (no file-name frame first) compiles by GUID + age.
  expect "$name pst first" "$(cat "$d/pst.want")" \
    "$("$ilmap" symbolicate --columns --cache-dir "$d/cache-pst" --search "$d/mod" <"$d/pst.in" 2>"$d/err")"

  # A Sentry event: image by the Windows debug id "<guid>-<age hex>", frames by function_id and
  # IL offset (rel:0); its PDB with another age is another image, whose frame is left alone.
  local debug_id
  debug_id=$("$ilmap" info --json "$d/mod/$stem.pdb" | sed -n 's/^ *"debug_id": "\([0-9a-f-]*\)".*/\1/p')
  expect "$name   debug id = CodeView GUID + age" "$guid-$(printf '%x' "$age")" "$debug_id"
  python3 - "$d" "$debug_id" "$stem" <<'PY' || { echo "FAIL $name: no event made"; fail=1; }
import json, sys
d, debug_id, stem = sys.argv[1:4]
frames, want = [], []
for row in open(d + "/picked"):
    tok, off, path, sl, sc = row.rstrip("\n").split("\t")[:5]
    frames.append({"function": "f", "function_id": hex(int(tok, 16) & 0xFFFFFF),
                   "instruction_addr": hex(int(off)), "addr_mode": "rel:0"})
    want.append([path, int(sl), int(sc)])
guid, age = debug_id.rsplit("-", 1)
frames.append({"function": "g", "function_id": frames[0]["function_id"], "instruction_addr": frames[0]["instruction_addr"],
               "addr_mode": "rel:1"})
images = [{"type": "pe_dotnet", "debug_id": debug_id, "debug_file": stem + ".pdb", "code_file": stem + ".dll"},
          {"type": "pe_dotnet", "debug_id": "%s-%x" % (guid, int(age, 16) + 1), "debug_file": stem + ".pdb", "code_file": stem + ".dll"}]
json.dump({"event_id": "0" * 32, "platform": "csharp", "debug_meta": {"images": images},
           "exception": {"values": [{"type": "E", "stacktrace": {"frames": frames}}]}}, open(d + "/event.json", "w"))
json.dump(want + [None], open(d + "/event.want", "w"))
PY
  local got
  got=$("$ilmap" symbolicate --cache-dir "$d/cache" --search "$d/mod" "$d/event.json" 2>"$d/err" | python3 -c '
import json, sys
frames = json.load(sys.stdin)["exception"]["values"][0]["stacktrace"]["frames"]
print(json.dumps([[f["abs_path"], f["lineno"], f["colno"]] if "lineno" in f else None for f in frames]))')
  expect "$name sentry event (debug id <guid>-<age>)" "$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))))' "$d/event.want")" "$got"

  # The cache compiled from PE + Windows PDB, alone in --search: by file name, GUID + age, MVID.
  mkdir -p "$d/only"
  "$ilmap" compile "$d/mod/$stem.dll" -o "$d/only/$stem.ilmap" >/dev/null 2>"$d/err" || { echo "FAIL $name: compile PE"; cat "$d/err"; fail=1; return; }
  local symc="$ilmap symbolicate --columns --cache-dir $d/cache-only"
  expect "$name cache in --search: coreclr" "$(cat "$d/coreclr.want")" "$($symc --search "$d/only" <"$d/coreclr.in" 2>"$d/err")"
  expect "$name cache in --search: pst" "$(cat "$d/pst.want")" "$($symc --search "$d/only" <"$d/pst.in" 2>"$d/err")"
  expect "$name cache in --search: mono" "$(cat "$d/mono.want")" "$($symc --search "$d/only" <"$d/mono.in" 2>"$d/err")"
  [ -s "$d/android.in" ] && expect "$name cache in --search: android" "$(cat "$d/android.want")" "$($symc --search "$d/only" <"$d/android.in" 2>"$d/err")"
  expect "$name   nothing compiled" "" "$(find "$d/cache-only" -type f 2>/dev/null)"

  # The PDB in a symbol store (ilmap store add), the PE alone: found by its Windows key.
  mkdir -p "$d/pe"
  cp "$d/mod/$stem.dll" "$d/pe/"
  if "$ilmap" store add "$d/store" "$d/mod/$stem.pdb" >/dev/null 2>"$d/err"; then
    expect "$name PE + --symbol-path store" "$(cat "$d/coreclr.want")" \
      "$("$ilmap" symbolicate --columns --cache-dir "$d/cache-sp" --search "$d/pe" --symbol-path "$d/store" <"$d/coreclr.in" 2>"$d/err")"
    expect "$name PE + store in --search" "$(cat "$d/coreclr.want")" \
      "$("$ilmap" symbolicate --columns --cache-dir "$d/cache-ss" --search "$d/pe" --search "$d/store" <"$d/coreclr.in" 2>"$d/err")"
    # No PE anywhere: the PST MODULE line's GUID + age names the PDB in the store (Windows key).
    mkdir -p "$d/empty"
    expect "$name pst from --symbol-path only" "$(cat "$d/pst.want")" \
      "$("$ilmap" symbolicate --columns --cache-dir "$d/cache-sp2" --search "$d/empty" --symbol-path "$d/store" <"$d/pst.in" 2>"$d/err")"
  else
    echo "FAIL $name: store add"; cat "$d/err"; fail=1
  fi
  # The PDB alone in --search (no PE): found by GUID + age; another age is not this PDB.
  mkdir -p "$d/pdbonly"
  cp "$d/mod/$stem.pdb" "$d/pdbonly/"
  expect "$name pst, PDB alone in --search" "$(cat "$d/pst.want")" \
    "$("$ilmap" symbolicate --columns --cache-dir "$d/cache-po" --search "$d/pdbonly" <"$d/pst.in" 2>"$d/err")"
  expect "$name   its cache key" "1" "$(find "$d/cache-po" -type f -path "*/${guid//-/}$(printf '%x' "$age")/*" | wc -l)"
  sed "s/; A:$age\$/; A:$((age + 1))/" "$d/pst.in" >"$d/pst-age.in"
  local root_frames
  root_frames=$(grep -c '^   at ' "$d/pst.in")
  local pst_asm
  pst_asm=$(sed -n 's/^   at \([^!]*\)!.*/\1/p' "$d/pst.in" | sort -u | paste -sd, - | sed 's/,/, /g')
  for where in pdbonly mod only; do
    expect "$name pst, another age ($where)" "$(cat "$d/pst-age.in")" \
      "$("$ilmap" symbolicate --columns --cache-dir "$d/cache-age-$where" --search "$d/$where" <"$d/pst-age.in" 2>"$d/err")"
    expect "$name   summary" "ilmap symbolicate: $root_frames frames, 0 resolved, $root_frames unresolved ($root_frames module not found ($pst_asm))" "$(head -1 "$d/err")"
  done
  # A truncated Windows PDB beside the PE: unresolved, told, nothing compiled.
  mkdir -p "$d/trunc"
  cp "$d/mod/$stem.dll" "$d/trunc/"
  head -c 5000 "$d/mod/$stem.pdb" >"$d/trunc/$stem.pdb"
  expect "$name truncated PDB" "$(cat "$d/coreclr.in")" \
    "$("$ilmap" symbolicate --cache-dir "$d/cache-tr" --search "$d/trunc" <"$d/coreclr.in" 2>"$d/err")"
  expect "$name   summary" "ilmap symbolicate: $npicked frames, 0 resolved, $npicked unresolved ($npicked unreadable debug file)" "$(head -1 "$d/err")"
  expect "$name   nothing compiled" "" "$(find "$d/cache-tr" -type f 2>/dev/null)"
}

# check_mismatch NAME DLL OTHER_PDB: another build's PDB renamed beside the PE is refused.
check_mismatch() {
  local name=$1 dll=$2 other=$3 d=$tmp/mismatch-$1 stem
  stem=$(basename "$dll" .dll)
  mkdir -p "$d"
  cp "$dll" "$d/" && cp "$other" "$d/$stem.pdb"
  local frame="   at X.Y() in $stem.dll:token 0x6000001+0x0"
  expect "$name mismatch: frame unchanged" "$frame" \
    "$(printf '%s\n' "$frame" | "$ilmap" symbolicate --cache-dir "$d/cache" --search "$d" 2>"$d/err")"
  expect "$name mismatch: summary" "ilmap symbolicate: 1 frames, 0 resolved, 1 unresolved (1 PDB id mismatch)" "$(head -1 "$d/err")"
  expect "$name mismatch: nothing compiled" "" "$(find "$d/cache" -type f 2>/dev/null)"
  expect "$name mismatch: android too" "at X.Y + 0x0(Unknown Source)" \
    "$(printf 'at X.Y + 0x0(Unknown Source)\n' | "$ilmap" symbolicate --cache-dir "$d/cache" --search "$d" 2>/dev/null)"
}

# 1. Hermetic: the shared corpus's Windows PDBs with their PEs.
hermetic=0
for w in "$shared"/corpus-public/win_*; do
  [ -d "$w" ] || continue
  for pdb in "$w"/*.pdb; do
    dll=${pdb%.pdb}.dll
    [ -f "$dll" ] || continue
    check_module "$(basename "$w")" "$dll" "$pdb" 4 "$(ls "$shared"/corpus-public/win_*/*.pdb | grep -v -F "$pdb" | head -1)"
    hermetic=$((hermetic + 1))
  done
done
if [ -f "$shared/corpus-public/win_symreader_Async/Async.dll" ] && [ -f "$shared/corpus-public/win_symreader_VB/VB.pdb" ]; then
  check_mismatch win_symreader "$shared/corpus-public/win_symreader_Async/Async.dll" "$shared/corpus-public/win_symreader_VB/VB.pdb"
fi
[ $hermetic -gt 0 ] || echo "note: no $shared/corpus-public/win_* with PE + PDB"

# 2. Real packages (restored into NuGet's global folder; skipped when that fails).
nuget=0
manifest=$root/corpus/windows/manifest.tsv
if pkgroot=$("$root/corpus/windows/restore.sh" "$manifest" 2>"$tmp/restore.err"); then
  dir_of() { awk -F'\t' -v c="$1" -v r="$pkgroot" '$1 == c { print r "/" tolower($2) "/" $3 "\t" $4 "\t" $5 }' "$manifest"; }
  for c in polly-5.7.0-net45 moq-4.7.142-net45 dotnetzip-1.16.0-net40 fscheck-2.5.0-net45 htmlagilitypack-1.11.28-net45; do
    IFS=$'\t' read -r base pdb pe <<<"$(dir_of "$c")"
    [ -n "$base" ] || { echo "FAIL $c: not in the manifest"; fail=1; continue; }
    check_module "$c" "$base/$pe" "$base/$pdb" 6 "$(dir_of polly-5.7.0-netstandard1.1 | awk -F'\t' '{ print $1 "/" $2 }')"
    nuget=$((nuget + 1))
  done
  IFS=$'\t' read -r b1 pdb1 pe1 <<<"$(dir_of polly-5.7.0-net45)"
  IFS=$'\t' read -r b2 pdb2 pe2 <<<"$(dir_of polly-5.7.0-netstandard1.1)"
  check_mismatch polly "$b1/$pe1" "$b2/$pdb2"
else
  echo "note: NuGet packages not restored: $(tail -1 "$tmp/restore.err")"
fi
[ $hermetic -gt 0 ] || [ $nuget -gt 0 ] || { echo "SKIP: no Windows PDB module available"; exit 77; }
echo "$checked checks, $hermetic shared and $nuget NuGet modules"
exit $fail
