#!/usr/bin/env bash
# tests/cli/test_analysis_cli.sh — the analysis of issue 27 on the command
# line, on a store made here (a grid sweep: attention and cumsum at 1 and 2
# layers, 2 seeds, 12 steps, valid every 4; and the completion preset,
# tiny): best or last (`ls`, `export` and `report --loss best|last`: the
# lowest valid evaluation and its step as the store's evals hold them, the
# choice named in each header, the default unchanged), which knob matters
# in `report` (text and --md), and `plot parallel` read back from its SVG
# (its axes and their values, a coloured line per seed group or run, the
# brushed-out lines faint and counted in a note; PDF and PNG headers); the
# Grid figure of the best valid loss with each cell's step.
# Bad input: one line, non-zero, no file.
set -u
. "$(dirname "$0")/../harness.sh"

DB=$T/a.db
$MB sweep arch=attention,cumsum layers=1,2 repeats=2 steps=12 d=32 n_ctx=32 batch=4 eval_every=4 \
  --data builtin:stories --db "$DB" >/dev/null 2>"$T/err" &&
  $MB sweep completion tokens=1500 layers=2 d=32 --data builtin:stories --db "$DB" >/dev/null 2>>"$T/err" &&
  $MB worker --jobs 2 --threads 1 --db "$DB" >/dev/null 2>>"$T/err"
n=$(q "$DB" "select count(*) from runs where status = 'done'")
[ "$n" = 14 ] && pass analysis_store_made || { fail analysis_store_made "done=$n $(cat "$T/err")"; exit 0; }

# run 1's best valid evaluation becomes its first (step 4), not its last
q "$DB" "update evals set loss = loss - 0.5 where run_id = 1 and split = 'valid' and step = 4"
[ "$(q "$DB" "select count(*) from evals where run_id = 1 and split = 'valid'")" -ge 3 ] && pass analysis_best_not_last ||
  fail analysis_best_not_last "$(q "$DB" "select * from evals where run_id = 1")"
# the store's best: the lowest valid evaluation and, of equal ones, the first step
q "$DB" "select run_id || ' ' || printf('%.3f', loss) || '@' || step from
  (select run_id, loss, step, row_number() over (partition by run_id order by loss, step) k
     from evals where split = 'valid') where k = 1 order by run_id" >"$T/best"
q "$DB" "select id || ' ' || printf('%.3f', valid_loss) from results order by id" >"$T/last"

# --- ls: VALID (last) by default, BEST VALID@STEP with --loss best
$MB ls --db "$DB" >"$T/ls" 2>&1
head -1 "$T/ls" | grep -q " VALID " && ! grep -q BEST "$T/ls" &&
  [ "$(awk '$1 ~ /^[0-9]+$/ {print $1, $9}' "$T/ls")" = "$(cat "$T/last")" ] && pass ls_loss_last_default ||
  fail ls_loss_last_default "$(head -3 "$T/ls"; head -3 "$T/last")"
$MB ls --db "$DB" --loss best >"$T/ls" 2>&1
head -1 "$T/ls" | grep -q " BEST VALID@STEP " &&
  [ "$(awk '$1 ~ /^[0-9]+$/ {print $1, $9}' "$T/ls")" = "$(cat "$T/best")" ] && grep -q "^1 .*@4$" "$T/best" &&
  pass ls_loss_best ||
  fail ls_loss_best "$(head -3 "$T/ls"; head -3 "$T/best")"
[ "$($MB ls --db "$DB" --loss last | head -1)" = "$($MB ls --db "$DB" | head -1)" ] && pass ls_loss_last ||
  fail ls_loss_last "$($MB ls --db "$DB" --loss last | head -1)"
$MB ls --db "$DB" --json | python3 -c "
import json, sys
for r in json.load(sys.stdin):
    print(r['id'], '%.3f@%d' % (r['best_valid_loss'], r['best_valid_step']))" >"$T/json" 2>&1
cmp -s "$T/json" "$T/best" && pass ls_json_best_step || fail ls_json_best_step "$(head -3 "$T/json")"
$MB ls --db "$DB" --loss worst >"$T/out" 2>"$T/err"; rc=$?
[ $rc = 1 ] && one_line "$T/err" && grep -q "\-\-loss worst: one of best" "$T/err" && [ ! -s "$T/out" ] &&
  pass ls_loss_refused || fail ls_loss_refused "rc $rc: $(cat "$T/err")"

# --- export: valid_loss (last), or best_valid_loss and best_valid_step in its place
$MB export --db "$DB" --csv >"$T/last.csv" && $MB export --db "$DB" --csv --loss best >"$T/best.csv"
python3 - "$T/last.csv" "$T/best.csv" >"$T/cols" <<'EOF'
import csv, sys
last = list(csv.DictReader(open(sys.argv[1])))
best = list(csv.DictReader(open(sys.argv[2])))
head_l = open(sys.argv[1]).readline().strip().split(",")
head_b = open(sys.argv[2]).readline().strip().split(",")
print("last", "valid_loss" in head_l, "best_valid_step" in head_l)
print("best", "valid_loss" in head_b, head_b.count("best_valid_loss"), head_b.index("best_valid_step") - head_b.index("best_valid_loss"))
for r in best:
    print(r["id"], "%.3f@%s" % (float(r["best_valid_loss"]), r["best_valid_step"]))
EOF
[ "$(sed -n 1p "$T/cols")" = "last True False" ] && [ "$(sed -n 2p "$T/cols")" = "best False 1 1" ] &&
  [ "$(tail -n +3 "$T/cols")" = "$(cat "$T/best")" ] && pass export_loss_best ||
  fail export_loss_best "$(head -4 "$T/cols")"
$MB export --db "$DB" --csv --curves --loss best >"$T/out" 2>"$T/err"; rc=$?
[ $rc = 1 ] && one_line "$T/err" && [ ! -s "$T/out" ] && pass export_loss_curves_refused ||
  fail export_loss_curves_refused "rc $rc: $(cat "$T/err")"

# --- report: --loss best's columns, and which knob matters
$MB report completion --db "$DB" >"$T/r_last" 2>&1 && $MB report completion --db "$DB" --loss best >"$T/r_best" 2>&1
grep -q "best_valid_loss  best_valid_step" "$T/r_best" && grep -q "^  valid loss: each run's lowest evaluation" "$T/r_best" &&
  ! grep -q "best_valid" "$T/r_last" && pass report_loss_best || fail report_loss_best "$(cat "$T/r_best")"
grep -A2 "Which knob matters (share of the variance of test loss over the grid's 2 cells" "$T/r_last" >"$T/knobs"
grep -q "^    arch 100%" "$T/knobs" && grep -q "^    (seed noise alone would make [0-9]*% of this variance)" "$T/knobs" &&
  pass report_knobs || fail report_knobs "$(cat "$T/r_last")"
$MB report completion --db "$DB" --md "$T/r.md" >/dev/null 2>"$T/err"
grep -q "^| knob | share |" "$T/r.md" && grep -q "^| arch | 100.0% |" "$T/r.md" && pass report_md_knobs ||
  fail report_md_knobs "$(grep -A4 knob "$T/r.md") $(cat "$T/err")"
$MB report --db "$DB" --loss first >"$T/out" 2>"$T/err"; rc=$?
[ $rc = 1 ] && one_line "$T/err" && pass report_loss_refused || fail report_loss_refused "rc $rc: $(cat "$T/err")"

# --- plot grid of the best valid loss: each cell's mean step under it (run 1: 4, run 2: 12)
$MB plot grid 1 --db "$DB" --metric best_valid_loss --rows arch --cols layers -o "$T/g.svg" >/dev/null 2>&1
python3 -c "
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
print([t.text for t in root.iter('{http://www.w3.org/2000/svg}text') if t.get('class') == 'detail'][0])" "$T/g.svg" \
  >"$T/detail" 2>&1
grep -q "^at step 8" "$T/detail" && pass plot_grid_best_step || fail plot_grid_best_step "$(cat "$T/detail")"

# --- plot parallel: axes, values, a line per seed group / run, brushes
texts() { python3 -c "
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
print('|'.join(t.text or '' for t in root.iter('{http://www.w3.org/2000/svg}text') if t.get('class') == sys.argv[2]))" "$@"; }
kept() { grep -c "stroke-width:1.6;" "$1"; }
faint() { grep -c "stroke-width:0.8;.*stroke-opacity:0.3;" "$1"; }
$MB plot parallel 1 --db "$DB" -o "$T/p.svg" >"$T/out" 2>&1
[ "$(texts "$T/p.svg" axis)" = "arch|layers|test loss (lower better)" ] &&
  texts "$T/p.svg" ytick | grep -q "^attention|cumsum|1|2|" && [ "$(kept "$T/p.svg")" = 4 ] &&
  [ "$(faint "$T/p.svg")" = 0 ] && grep -q "figure written to $T/p.svg" "$T/out" && pass plot_parallel_groups ||
  fail plot_parallel_groups "$(cat "$T/out"; texts "$T/p.svg" axis; texts "$T/p.svg" ytick; kept "$T/p.svg")"
$MB plot parallel 1 --db "$DB" --seeds runs --metric valid_loss -o "$T/p.svg" >/dev/null 2>&1
[ "$(kept "$T/p.svg")" = 8 ] && texts "$T/p.svg" axis | grep -q "|valid loss (lower better)$" &&
  texts "$T/p.svg" note | grep -q "a line per finished run (8)" && pass plot_parallel_runs ||
  fail plot_parallel_runs "$(kept "$T/p.svg"); $(texts "$T/p.svg" note)"
# the two runs of layers 2 with the lowest valid loss: the bound lies halfway
# between the second- and third-lowest, so it does not hang on how sqlite3
# rounds a stored double when it prints it (%.15g can print the second-lowest
# a hair below itself, and the brush then keeps one line)
med=$(q "$DB" "select printf('%.9g', (max(v) + min(v)) / 2) from (select valid_loss v from results r
  join runs u on u.id = r.id where u.sweep_id = 1 and r.layers = 2 order by valid_loss limit 2 offset 1)")
$MB plot parallel 1 --db "$DB" --seeds runs --metric valid_loss --range "layers=2..2 valid_loss=..$med" \
  -o "$T/b.svg" >/dev/null 2>&1
[ "$(kept "$T/b.svg")" = 2 ] && [ "$(faint "$T/b.svg")" = 6 ] &&
  texts "$T/b.svg" note | grep -q "brushed: layers=2..2 valid_loss=..[0-9.]*: 2 of 8 lines kept" &&
  pass plot_parallel_brushed || fail plot_parallel_brushed "$(kept "$T/b.svg") $(faint "$T/b.svg"); $(texts "$T/b.svg" note)"
$MB plot parallel 1 --db "$DB" -o "$T/p.pdf" >/dev/null 2>&1 && $MB plot parallel 1 --db "$DB" -o "$T/p.png" >/dev/null 2>&1 &&
  head -c 5 "$T/p.pdf" | grep -q "%PDF-" && [ "$(head -c 4 "$T/p.png" | tail -c 3)" = PNG ] &&
  pass plot_parallel_pdf_png || fail plot_parallel_pdf_png "$(ls -la "$T"/p.*)"
bad=""
for args in "1 --range heads=1..2" "1 --range layers=2" "1 --range layers=5..9" "1 --range test_loss=x.." \
            "1 --seeds pool" "9 " "1 --metric frob"; do
  # shellcheck disable=SC2086
  $MB plot parallel $args --db "$DB" -o "$T/bad.svg" >"$T/out" 2>"$T/err"; rc=$?
  { [ $rc != 0 ] && one_line "$T/err" && [ ! -e "$T/bad.svg" ]; } || bad="$bad [$args: rc $rc $(cat "$T/err")]"
done
[ -z "$bad" ] && pass plot_parallel_refusals || fail plot_parallel_refusals "$bad"

exit 0
