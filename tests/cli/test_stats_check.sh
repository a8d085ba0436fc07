#!/usr/bin/env bash
# tests/cli/test_stats_check.sh -- `mixbench stats-check`, small and seeded:
# a row per claim kind and truth; one look's worst false-decision rate at
# most alpha plus 3 Monte Carlo standard errors at 600 trials (0.077); the
# last line "worst false-decision rate R at alpha A" the worse of one look
# and the --until-conclusive loop's; the loop, which spends alpha over its
# looks, at most alpha plus 3 Monte Carlo standard errors at 2000 trials
# (0.065; each look at alpha, it was 0.084); the power where the claim is
# true; the same seed the same table; --alpha changes the level; bad
# arguments refused in one line.
set -u
. "$(dirname "$0")/../harness.sh"

"$MB" stats-check --trials 600 --seed 3 >"$T/out" 2>"$T/err"; rc=$?
rows=$(grep -cE "^(directional|equivalence|every point|flat|threshold) .* [0-9.-]+ +([0-9.]+|-)$" "$T/out")
[ $rc = 0 ] && [ "$rows" = 14 ] && pass stats_check_table || fail stats_check_table "rc=$rc rows=$rows $(cat "$T/out" "$T/err")"
last=$(tail -1 "$T/out")
one=$(sed -n 's/^one look: worst false-decision rate \([0-9.]*\); .*: \([0-9.]*\)$/\1 \2/p' "$T/out")
if echo "$last" | grep -Eq '^worst false-decision rate [0-9.]+ at alpha 0.05$' && [ -n "$one" ] &&
   awk -v r="$(echo "$last" | awk '{print $4}')" -v one="${one% *}" -v loop="${one#* }" \
     'BEGIN { exit !(one <= 0.077 && r == (one > loop ? one : loop)) }'; then
  pass stats_check_worst
else
  fail stats_check_worst "$last"
fi
# the loop's looks at their spent levels: its worst rate of a wrong decision within the bound
"$MB" stats-check --trials 2000 --seed 5 >"$T/loop" 2>&1
loop=$(sed -n 's/^one look: .*: \([0-9.]*\)$/\1/p' "$T/loop")
[ -n "$loop" ] && awk -v r="$loop" 'BEGIN { exit !(r <= 0.065) }' && pass stats_check_loop ||
  fail stats_check_loop "$(tail -2 "$T/loop")"
# where the claim is true (c), "holds" is more frequent than any false decision
awk '/^directional +\(c\)/ { exit !($(NF - 1) > 0.3) }' "$T/out" && awk '/^equivalence +\(c\)/ { exit !($(NF - 1) > 0.8) }' "$T/out" &&
  pass stats_check_power || fail stats_check_power "$(cat "$T/out")"
"$MB" stats-check --trials 600 --seed 3 >"$T/again" 2>&1
cmp -s "$T/out" "$T/again" && pass stats_check_seeded || fail stats_check_seeded "$(diff "$T/out" "$T/again")"
"$MB" stats-check --trials 200 --seed 3 --alpha 0.1 >"$T/a10" 2>&1
tail -1 "$T/a10" | grep -Eq 'at alpha 0.1$' && pass stats_check_alpha || fail stats_check_alpha "$(tail -1 "$T/a10")"

refuse() {
  local name=$1; shift
  "$MB" stats-check "$@" >"$T/out" 2>"$T/err"; local rc=$?
  if [ $rc -ne 0 ] && one_line "$T/err" && [ ! -s "$T/out" ]; then pass "stats_check_refuses[$name]"
  else fail "stats_check_refuses[$name]" "rc=$rc $(cat "$T/err")"; fi
}
refuse trials_0 --trials 0
refuse trials_x --trials x
refuse seed_negative --seed -1
refuse alpha_0 --alpha 0
refuse alpha_1 --alpha 1
refuse alpha_x --alpha x
