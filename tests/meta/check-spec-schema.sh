#!/usr/bin/env bash
# check-spec-schema.sh SOURCE_DIR - SPEC.md's Appendix A is format/ilmap.fbs without its comments:
# the schema a reader needs is in the specification itself, and the two cannot drift apart.
# Both are compared after dropping `//` comments, trailing blanks and empty lines.
# Exit 0 pass, 1 fail.
set -euo pipefail
export LC_ALL=C
src=$1
normal() { sed -e 's|[[:space:]]*//.*$||' -e 's/[[:space:]]*$//' | grep -v '^$' || true; }
schema=$(normal <"$src/format/ilmap.fbs")
# The first ``` block after the Appendix A heading.
appendix=$(awk '/^## Appendix A/ { on = 1; next } on && /^```/ { if (in_block) exit; in_block = 1; next }
                in_block { print }' "$src/SPEC.md" | normal)
[[ -n $appendix ]] || { echo "FAIL: SPEC.md has no schema block under '## Appendix A'"; exit 1; }
if [[ "$schema" != "$appendix" ]]; then
  echo "FAIL: SPEC.md Appendix A differs from format/ilmap.fbs (comments aside):"
  diff <(printf '%s\n' "$appendix") <(printf '%s\n' "$schema") | head -40
  exit 1
fi
echo "ok: SPEC.md Appendix A is format/ilmap.fbs ($(printf '%s\n' "$schema" | wc -l) lines)"
