#!/usr/bin/env bash
# check-layout-docs.sh SOURCE_DIR - fails when the documents that describe the tree's layers
# drift from the tree and from the rule the build enforces:
#   1. docs/architecture.md's layer table names exactly the layers of tests/meta/check-layers.sh,
#      and each row's "may use" column is exactly that layer's allowed set there;
#   2. README.md's "Layout" table names the same layers;
#   3. every folder either table or README's "Beside them:" line names exists, and every
#      top-level folder of the tree is named by one of them.
# Prints one line per difference and a closing line; exit 0 pass, 1 fail, 2 usage.
set -euo pipefail
export LC_ALL=C
src=${1:?usage: check-layout-docs.sh SOURCE_DIR}
cd "$src" || exit 2
for f in README.md docs/architecture.md tests/meta/check-layers.sh; do
  [[ -f $f ]] || { echo "FAIL: $f is missing"; exit 1; }
done

# The rule: check-layers.sh's `declare -A allowed=( ... )` block, read without running the script.
eval "$(sed -n '/^declare -A allowed=(/,/^)/p' tests/meta/check-layers.sh)"
[[ ${#allowed[@]} -gt 0 ]] || { echo "FAIL: no 'declare -A allowed' block in check-layers.sh"; exit 1; }
sorted() { tr ', ' '\n\n' | sed '/^$/d; /^—$/d; /^-$/d' | sort -u | tr '\n' ' '; }

bad=0
fail() { echo "  $*"; bad=$((bad + 1)); }

# Rows "| `NAME/` | what | may use |" of the first table after a heading line matching $2.
table_rows() {  # file heading-regex -> "name<TAB>last column" per row
  awk -v h="$2" '
    $0 ~ h { on = 1; next }
    on && /^\|/ { seen = 1; print; next }
    on && seen { exit }' "$1" |
    awk -F'|' '$2 ~ /^ `[a-z_]+\/` $/ { n = $2; gsub(/[ `\/]/, "", n); u = $(NF - 1); gsub(/^ +| +$/, "", u); print n "\t" u }'
}

# 1. docs/architecture.md: the layer table (the first table of the page).
declare -A doc_allowed=()
while IFS=$'\t' read -r name uses; do
  doc_allowed[$name]=$uses
done < <(table_rows docs/architecture.md '^# Architecture')
[[ ${#doc_allowed[@]} -gt 0 ]] || fail "docs/architecture.md: no layer table found"
for layer in "${!allowed[@]}"; do
  if [[ -z ${doc_allowed[$layer]+x} ]]; then
    fail "docs/architecture.md: layer $layer/ (check-layers.sh) has no row"; continue
  fi
  want=$(printf '%s' "${allowed[$layer]}" | sed "s/\b$layer\b//" | sorted)
  have=$(printf '%s' "${doc_allowed[$layer]}" | sorted)
  [[ $want == "$have" ]] || fail "docs/architecture.md: $layer/ may use '${have% }', check-layers.sh allows '${want% }'"
done
for layer in "${!doc_allowed[@]}"; do
  [[ -n ${allowed[$layer]+x} ]] || fail "docs/architecture.md: row $layer/ is not a layer of check-layers.sh"
done

# 2. README.md: the "Layout" table names the same layers.
declare -A readme=()
while IFS=$'\t' read -r name _; do readme[$name]=1; done < <(table_rows README.md '^## Layout')
[[ ${#readme[@]} -gt 0 ]] || fail "README.md: no table under '## Layout'"
for layer in "${!allowed[@]}"; do
  [[ -n ${readme[$layer]+x} ]] || fail "README.md: layer $layer/ is missing from the Layout table"
done
for name in "${!readme[@]}"; do
  [[ -n ${allowed[$name]+x} ]] || fail "README.md: Layout row $name/ is not a layer of check-layers.sh"
done

# 3. Folders: the tables' and the "Beside them:" line's, against the tree's top-level folders.
beside=$(awk '/^## Layout/ { on = 1 } on && /^Beside them:/ { b = 1 } b { print } b && /\.$/ { exit }' README.md |
  grep -o '`[^`]*/`' | tr -d '`' | sed 's:/$::' || true)
[[ -n $beside ]] || fail "README.md: no 'Beside them:' line after the Layout table"
declare -A named=()
for name in "${!readme[@]}" $beside; do named[$name]=1; done
for name in "${!named[@]}"; do
  [[ -d $name ]] || fail "README.md names $name/, which is not a folder of the tree"
done
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  top=$(git ls-files -z | tr '\0' '\n' | sed -n 's:^\([^/]*\)/.*:\1:p' | sort -u)
else
  top=$(find . -mindepth 1 -maxdepth 1 -type d ! -name 'build*' ! -name .git -printf '%f\n' | sort)
fi
for name in $top; do
  [[ -n ${named[$name]+x} ]] || fail "$name/ is a top-level folder that README.md's Layout section does not name"
done

if [[ $bad -gt 0 ]]; then
  echo "check-layout-docs: $bad differences between the tree, check-layers.sh and the docs"
  exit 1
fi
echo "check-layout-docs: ${#allowed[@]} layers, their rules and $(wc -w <<<"$top") top-level folders agree"
