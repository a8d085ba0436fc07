#!/usr/bin/env bash
# tests/cli/test_sweep_alpha.sh -- the sweep key alpha (the level of the
# claims' verdicts, experiments/sweep.c): alpha=0.1 is kept in the sweep's
# plan and shown in the report's claims header ("verdicts at alpha = 0.1"),
# the default is 0.05; alpha=0, alpha=1, alpha=x (and 0.5, two values) are
# refused in one line naming the key, nothing queued, the store untouched.
set -u
. "$(dirname "$0")/../harness.sh"

seq 1 300 | awk '{print "the cat sat on the mat number", $1}' >"$T/story.txt"
DB=$T/a.db
"$MB" sweep --db "$DB" autoencoder tokens=2000 alpha=0.1 --data "$T/story.txt" >"$T/out" 2>"$T/err"; rc=$?
plan=$(q "$DB" "select json_extract(plan_json, '$.alpha') from sweeps")
[ $rc = 0 ] && [ "$plan" = 0.1 ] && pass alpha_stored || fail alpha_stored "rc=$rc plan=$plan $(cat "$T/err")"
"$MB" report autoencoder --db "$DB" >"$T/report" 2>"$T/err"
grep -q "^  Claims (verdicts at alpha = 0.1; in brackets the 80% intervals" "$T/report" &&
  pass alpha_in_report || fail alpha_in_report "$(grep -i alpha "$T/report") $(cat "$T/err")"

# the default: 0.05, in the report of a sweep that did not name it
"$MB" sweep --db "$T/d.db" autoencoder tokens=2000 --data "$T/story.txt" >/dev/null 2>&1
"$MB" report autoencoder --db "$T/d.db" >"$T/report" 2>&1
grep -q "^  Claims (verdicts at alpha = 0.05; in brackets the 90% intervals" "$T/report" &&
  pass alpha_default || fail alpha_default "$(grep -i alpha "$T/report")"

# refused: one line naming the value, exit != 0, the store as it was
before=$(dump "$DB")
for a in 0 1 x 0.5 0.1,0.2; do
  "$MB" sweep --db "$DB" autoencoder tokens=2000 "alpha=$a" --data "$T/story.txt" >"$T/out" 2>"$T/err"; rc=$?
  if [ $rc -ne 0 ] && one_line "$T/err" && grep -q "alpha" "$T/err" && [ "$(dump "$DB")" = "$before" ]; then
    pass "alpha_refused[$a]"
  else
    fail "alpha_refused[$a]" "rc=$rc $(cat "$T/err")"
  fi
done
