#!/usr/bin/env bash
# tests/experiments/test_report.sh — `mixbench report` end to end through the CLI: a short
# autoencoder sweep (three seeds per point) on the built-in corpus, run by a
# worker; the report shows the paper's S3 figures (4.35 mixer, 5.23
# attention), our mixer's mean test loss equal to the store's (sqlite3), the
# seeds, a verdict per claim and the command that made the runs; --md writes
# a Markdown table; a preset never queued says "not run"; bad input is one
# error line.
set -u
. "$(dirname "$0")/../harness.sh"

DB=$T/r.db
$MB sweep autoencoder tokens=30000 --data builtin:stories --db "$DB" >"$T/sweep.out" 2>&1
grep -q "estimated time: ~" "$T/sweep.out" && pass sweep_shows_estimate || fail sweep_shows_estimate "$(cat "$T/sweep.out")"
$MB worker --db "$DB" --jobs 2 --threads 2 >"$T/w.out" 2>&1
n=$(q "$DB" "select count(*) from runs where status = 'done'")
[ "$n" = 9 ] && pass sweep_ran || fail sweep_ran "done=$n $(tail -3 "$T/w.out")"

$MB report autoencoder --db "$DB" >"$T/report.txt" 2>"$T/err"; rc=$?
[ $rc = 0 ] && pass report_runs || fail report_runs "rc=$rc $(cat "$T/err")"
grep -q "S3 test_loss 4.35" "$T/report.txt" && grep "arch=attention d=128" "$T/report.txt" | grep -q "S3 test_loss 5.23" &&
  pass report_paper_figures || fail report_paper_figures "$(cat "$T/report.txt")"
# our mixer's test loss: the mean over its three seeds in the store
want=$(q "$DB" "select printf('%.3f', avg(test_loss)) from sweep_results
                 where json_extract(coords, '$.arch') = 'mixer' and json_extract(coords, '$.d') = '128'")
line=$(grep "arch=mixer d=128" "$T/report.txt" | head -1)
echo "$line" | grep -q " $want +- " && echo "$line" | grep -Eq "^ +arch=mixer d=128 +3 " &&
  pass report_ours_equals_store || fail report_ours_equals_store "want $want in: $line"
grep -Eq "^  \[(holds|does not hold|undecided|undecided \(budget\))\] the mixer autoencoder's test loss is below attention's" "$T/report.txt" &&
  pass report_verdict || fail report_verdict "$(grep -A1 Claims "$T/report.txt")"
grep -q "paper 4.35 vs 5.23, ratio 0.832" "$T/report.txt" && pass report_paper_ratio || fail report_paper_ratio "no paper ratio"
# the tally before the sections counts the verdicts below it
tally=$(sed -n 's/^  \([0-9]*\) claims: .*/\1/p' "$T/report.txt")
verdicts=$(grep -Ec "^  \[(holds|does not hold|undecided|undecided \(budget\)|not run)\]" "$T/report.txt")
holds=$(grep -c "^  \[holds\]" "$T/report.txt")
if [ -n "$tally" ] && [ "$tally" = "$verdicts" ] && [ "$tally" -gt 0 ] &&
   { [ "$holds" = 0 ] || grep -Eq "^  [0-9]+ claims: (.*, )?$holds holds?(,|$)" "$T/report.txt"; }; then
  pass report_tally
else
  fail report_tally "tally '$tally', $verdicts verdicts, $holds hold: $(grep claims: "$T/report.txt")"
fi
grep -q "mixbench sweep .*task=autoencode .*tokens=30000" "$T/report.txt" && pass report_command || fail report_command "no command"

$MB report autoencoder --db "$DB" --md "$T/r.md" >/dev/null 2>"$T/err"
grep -q "^| point | seeds | test_loss |" "$T/r.md" && grep -q "^|---|" "$T/r.md" &&
  grep -Eq "^\| arch=mixer d=128 \| 3( \([^)]*\))? \| $want \+- " "$T/r.md" && grep -Eq '^\| .* \| \*\*(holds|does not hold|undecided|undecided \(budget\))\*\*( \([^|]*\))? \|' "$T/r.md" &&
  pass report_markdown || fail report_markdown "$(cat "$T/r.md" "$T/err")"

# one seed left per point: its value alone, no "+- 0.000" (nothing to spread over)
cp "$DB" "$T/one.db"
$MB rm --where "seed>1" --db "$T/one.db" >/dev/null 2>"$T/err"
$MB report autoencoder --db "$T/one.db" --md "$T/one.md" >/dev/null 2>>"$T/err"
grep -Eq "^\| arch=mixer d=128 \| 1( \([^)]*\))? \| [0-9]+\.[0-9]{3} \|" "$T/one.md" && ! grep -q "+- 0.000" "$T/one.md" &&
  pass report_one_seed || fail report_one_seed "$(grep "arch=" "$T/one.md" | head -3; cat "$T/err")"

$MB report recall --db "$DB" >"$T/out" 2>&1
grep -q "not run: no sweep of recall" "$T/out" && pass report_not_run || fail report_not_run "$(cat "$T/out")"
$MB report no-such --db "$DB" >"$T/out" 2>"$T/err"; rc=$?
[ $rc != 0 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "unknown preset 'no-such'" "$T/err" &&
  pass report_bad_preset || fail report_bad_preset "rc=$rc $(cat "$T/err")"
$MB report --db "$T/none.db" >"$T/out" 2>"$T/err"; rc=$?
[ $rc != 0 ] && [ "$(wc -l <"$T/err")" = 1 ] && [ ! -e "$T/none.db" ] &&
  pass report_missing_store || fail report_missing_store "rc=$rc $(cat "$T/err")"

# --- queuing a preset stores its paper's figures, with the setting
# (queueing loads each preset's corpora first: without them it is refused)
DATA_DIR=${MIXBENCH_DATA:-../shared/data}
if [ ! -d "$DATA_DIR/ptb" ] || [ ! -d "$DATA_DIR/wikitext-2" ]; then
  echo "SKIP preset_figures: the papers' corpora are not in $DATA_DIR"
  exit 0
fi
F=$T/figures.db
for p in pairconnect-grid pairconnect-hash pairconnect-speed autoencoder mixer-vs-transformer prefix-models fft-mlm; do
  $MB sweep "$p" --db "$F" >/dev/null 2>"$T/err" || fail "queue_$p" "$(cat "$T/err")"
done
counts=$(q "$F" "select group_concat(preset || '=' || n, ' ') from
                 (select preset, count(*) n from paper_figures group by preset order by preset)")
[ "$counts" = "autoencoder=10 mixer-vs-transformer=2 pairconnect-grid=48 pairconnect-hash=10 pairconnect-speed=6 prefix-models=2" ] &&
  pass figures_counts || fail figures_counts "$counts"
v=$(q "$F" "select value || ' ' || setting || ' ' || note from paper_figures where preset = 'autoencoder'
            and json_extract(coords_json, '$.d') = '160' and metric = 'test_loss'")
[ "$v" = "1.37 S5 Masked Mixers II (autoencoders)" ] && pass figure_equal_memory || fail figure_equal_memory "$v"
v=$(q "$F" "select value from paper_figures where preset = 'pairconnect-speed' and metric = 'samples_per_s'
            and json_extract(coords_json, '$.arch') = 'pairconnect' and json_extract(coords_json, '$.hash_size') = '1000'")
[ "$v" = "55.55" ] && pass figure_speed || fail figure_speed "$v"
# a figure's point is its jobs' point: same coords apart from seed, data expanded
n=$(q "$F" "select count(*) from paper_figures f where f.preset = 'pairconnect-grid' and exists
            (select 1 from runs r join sweeps s on s.id = r.sweep_id where s.name = f.preset
              and json_remove(r.coords_json, '$.seed') = f.coords_json)")
[ "$n" = 48 ] && pass figures_at_jobs || fail figures_at_jobs "$n of 48 grid figures at a job"
v=$(q "$F" "select value || ' ' || (setting_text like 'PairConnect Tables 1-2:%') from paper_figures
            where preset = 'pairconnect-grid' and metric = 'test_loss'
              and json_extract(coords_json, '$.data') like '%/wikitext-2' and json_extract(coords_json, '$.layers') = '6'
              and json_extract(coords_json, '$.arch') = 'attention'")
[ "$v" = "1.11 1" ] && pass figure_grid_value || fail figure_grid_value "$v"
