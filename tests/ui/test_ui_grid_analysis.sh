#!/usr/bin/env bash
# tests/ui/test_ui_grid_analysis.sh — the Grid screen's analysis (issue 27),
# driven in tmux on a store of finished runs (attention and cumsum at 1 and
# 2 layers, 2 seeds; run 1's best valid evaluation made its first): which
# knob matters under the heatmap, its shares and seed noise equal to a
# functional ANOVA computed here from the store's test losses; L: the best valid loss and
# its step (the cell of run 1 at the mean of its seeds' steps), named in
# the header, and back; v: parallel coordinates (the axes' names and
# values, braille lines), brushing (right to an axis, down moves its
# range's top: "4 of 8 runs kept"; x clears it), g per seed group, P the
# parallel figure beside the store; at 60x20, 80x24 and 120x36 (the footer
# and the ? help fit 80x24), and in ASCII ('|' axes, '#' the range kept).
set -u
. "$(dirname "$0")/../harness.sh"
ui_setup mbgra

S=$T/g.db
$MB sweep arch=attention,cumsum layers=1,2 repeats=2 steps=12 d=32 n_ctx=32 batch=4 eval_every=4 \
  --data builtin:stories --db "$S" >/dev/null 2>&1 && $MB worker --jobs 2 --threads 1 --db "$S" >/dev/null 2>&1
q "$S" "update evals set loss = loss - 0.5 where run_id = 1 and split = 'valid' and step = 4"
[ "$(q "$S" "select count(*) from runs where status = 'done'")" = 8 ] &&
  [ "$(q "$S" "select json_extract(coords_json, '$.arch') || json_extract(coords_json, '$.layers') from runs where id = 1")" = attention1 ] &&
  pass store_trained || { fail store_trained "$(q "$S" "select id, status, coords_json from runs")"; exit 0; }

# the decomposition by hand: cell means of the test loss, main effects, the interaction
knobs=$(q "$S" "select json_extract(coords_json, '$.arch'), json_extract(coords_json, '$.layers'), test_loss
  from runs r join results x on x.id = r.id" | python3 -c "
import sys, collections
cells = collections.defaultdict(list)
for line in sys.stdin:
    a, l, v = line.strip().split('|')
    cells[(a, l)].append(float(v))
y = {k: sum(v) / len(v) for k, v in cells.items()}
A = sorted({k[0] for k in y}); L = sorted({k[1] for k in y})
g = sum(y.values()) / len(y)
fa = {a: sum(y[(a, l)] for l in L) / len(L) - g for a in A}
fl = {l: sum(y[(a, l)] for a in A) / len(A) - g for l in L}
total = sum((v - g) ** 2 for v in y.values()) / len(y)
va = sum(v * v for v in fa.values()) / len(A) / total
vl = sum(v * v for v in fl.values()) / len(L) / total
vp = sum((y[(a, l)] - fa[a] - fl[l] - g) ** 2 for a in A for l in L) / len(y) / total
parts = sorted([(va, 'arch'), (vl, 'layers'), (vp, 'arch x layers')], key=lambda p: -p[0])
# seed noise: the pooled variance within cells over each cell's count, over the cells' variance
within = sum(sum((v - sum(vs) / len(vs)) ** 2 for v in vs) for vs in cells.values())
dof = sum(len(vs) - 1 for vs in cells.values())
noise = within / dof * sum(1 / len(vs) for vs in cells.values()) / len(cells) / total
print(', '.join('%s %.0f%%' % (n, 100 * s) for s, n in parts if s >= 0.005) + '; seed noise alone %.0f%%' % (100 * noise))")

launch A "$S" C.UTF-8 xterm-256color
wait_for A 10 "Compare" || fail launch "$(screen A)"
grid=$(tab A Grid)
TM resize-window -t A -x 120 -y 36
TM send-keys -t A "$grid"
check grid_shown A 5 "Grid: sweep 1 grid"
check grid_knobs A 3 "^which knob matters \(variance over 4 cells\): $knobs *\$"

# --- L: best or last
check grid_last_named A 3 "metric: test loss \(lower is better\)"
TM send-keys -t A L
check grid_best_header A 3 "metric: best valid loss@step, the lowest \(L: last\) \(lower is better\)"
check grid_best_cell A 3 "^attention +[0-9]\.[0-9]{3}±[0-9.]+@8!? +[0-9]\.[0-9]{3}±[0-9.]+@12"
check grid_best_said A 3 "valid loss: each run's lowest evaluation, at its step"
TM send-keys -t A L
check grid_last_header A 3 "metric: valid loss, the last \(L: best\)"
screen A | grep -qE "@[0-9]+" && fail grid_last_no_steps "$(screen A)" || pass grid_last_no_steps

# --- v: parallel coordinates, brushing
TM send-keys -t A v
check parallel_axes A 3 "^arch +layers +valid loss"
check parallel_kept_all A 3 "^axis arch: all   8 of 8 runs kept"
n=$(screen A | braille)
[ "$n" -ge 20 ] && pass parallel_lines || fail parallel_lines "$n braille cells: $(screen A)"
TM send-keys -t A Right Down
check parallel_brushed A 3 "^axis layers: 1\.\.1   4 of 8 runs kept"
TM send-keys -t A g
check parallel_groups A 3 "^axis layers: 1\.\.1   2 of 4 seed groups kept"
TM send-keys -t A P
check parallel_figure_said A 5 "figure written to .*g-parallel-sweep1\.svg"
grep -q "brushed: layers=1..1: 2 of 4 lines kept" "$T/g-parallel-sweep1.svg" && pass parallel_figure_brushed ||
  fail parallel_figure_brushed "$(ls "$T")"
TM send-keys -t A x
check parallel_cleared A 3 "^axis layers: all   4 of 4 seed groups kept"
# the metric's axis: its range's top down to its bottom keeps the best group only; X clears every range
TM send-keys -t A Right Down Down Down Down Down Down Down Down Down Down Down
check parallel_metric_brushed A 3 "^axis valid loss: ([0-9.]+)\.\.\1   1 of 4 seed groups kept"
TM send-keys -t A PgDn X
check parallel_all_cleared A 3 "^axis valid loss: all   4 of 4 seed groups kept"

# --- the other sizes: the view fits, nothing past the edge
for size in 60x20 80x24; do
  TM resize-window -t A -x "${size%x*}" -y "${size#*x}"
  sleep 0.4
  if wait_for A 3 "^axis valid loss: all" && wait_for A 1 "^arch +layers"; then
    long=$(screen A | python3 -c "
import sys
w = int(sys.argv[1])
print(next((l for l in sys.stdin.read().split('\\n') if len(l) > w), ''))" "${size%x*}")
    [ -z "$long" ] && pass "parallel_$size" || fail "parallel_$size" "a line past the edge: $long"
  else
    fail "parallel_$size" "$(screen A)"
  fi
done
# at 80 columns the footer still shows the loop's own keys after the Grid's
screen A | tail -1 | grep -q "v parallel  Tab screens  ? help  q quit" && pass footer_fits_80 ||
  fail footer_fits_80 "$(screen A | tail -1)"
# ? at 80x24: the Grid's keys, the last of them too
TM send-keys -t A '?'
check help_fits_80 A 3 "matters \(each axis's and pair's share of the variance\)"
screen A | grep -q "^    v               parallel coordinates" && pass help_names_v || fail help_names_v "$(screen A)"
TM send-keys -t A ' '
TM send-keys -t A v
check heatmap_back A 3 "^which knob matters"
TM kill-session -t A

# --- ASCII: '|' axes, '#' the range kept
launch M "$S" C xterm-256color
wait_for M 10 "Compare" || fail launch_ascii "$(screen M)"
TM send-keys -t M "$(tab M Grid)"
wait_for M 5 "Grid: sweep 1 grid"
TM send-keys -t M v Right Down
check ascii_brushed M 3 "^axis layers: 1\.\.1"
screen M | grep -q "#1" && screen M | grep -q "|2" && pass ascii_axes || fail ascii_axes "$(screen M)"
TM kill-session -t M
exit 0
