# same-compile.sh - sourced by the tests that run another build of ilmap against this machine's
# (tests/arm64 under qemu-user, tests/windows under Wine): every corpus input compiles to the same
# bytes on both. Needs the caller's `fail MESSAGE` and `$work` (a scratch folder).
#
# corpus_inputs ROOT SHARED   sets the array `inputs`: every PDB of ROOT/corpus/out and of
#                             SHARED/corpus-public, or the same-named PE beside it when there is one
#                             (so the caches hold names); fails when fewer than 10 are found
# same_compiles REF OTHER WHERE   compiles each of `inputs` with REF and with OTHER (programs or
#                             shell functions taking ilmap's arguments): the same cache bytes, or
#                             the same exit code and message; one `fail` per input that differs,
#                             and an "ok" line naming WHERE when none does
corpus_inputs() {
  local pdb pe
  inputs=()
  for pdb in "$1"/corpus/out/*/*.pdb "$2"/corpus-public/*/*.pdb "$2"/corpus-public/*.pdb; do
    [[ -f $pdb ]] || continue
    pe="${pdb%.pdb}.dll"
    if [[ -f $pe ]]; then inputs+=("$pe"); else inputs+=("$pdb"); fi
  done
  [[ ${#inputs[@]} -ge 10 ]] || fail "only ${#inputs[@]} corpus inputs found"
}

same_compiles() {
  local ref=$1 other=$2 where=$3 in n=0 same=0 rc_r rc_o
  for in in "${inputs[@]}"; do
    n=$((n + 1))
    rc_r=0 rc_o=0
    "$ref" compile -q "$in" -o "$work/same-ref-$n.ilmap" 2>"$work/same-ref.err" || rc_r=$?
    "$other" compile -q "$in" -o "$work/same-other-$n.ilmap" 2>"$work/same-other.err" || rc_o=$?
    if [[ $rc_r -ne $rc_o ]]; then
      # ilmap never fails without a message: a silent exit is the other platform's runner (Wine,
      # qemu) failing to start it. Said, with what the same run gives a second time.
      local again=""
      if [[ ! -s $work/same-other.err ]]; then
        again=0
        "$other" compile -q "$in" -o "$work/same-other-$n.ilmap" 2>"$work/same-again.err" || again=$?
        again="(no message; run again: exit $again $(head -c 200 "$work/same-again.err"))"
      fi
      fail "$in: exit $rc_o on $where, $rc_r here: $(head -c 300 "$work/same-other.err")$again"
    elif [[ $rc_r -ne 0 ]]; then
      cmp -s "$work/same-ref.err" "$work/same-other.err" && same=$((same + 1)) || fail "$in: the messages differ on $where"
    else
      cmp -s "$work/same-ref-$n.ilmap" "$work/same-other-$n.ilmap" && same=$((same + 1)) \
        || fail "$in: the cache made on $where differs"
    fi
    rm -f "$work/same-ref-$n.ilmap" "$work/same-other-$n.ilmap"
  done
  if [[ $n -gt 0 && $same -eq $n ]]; then echo "ok   $n corpus inputs compile to the same bytes on $where and here"; fi
}
