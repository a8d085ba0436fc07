#!/usr/bin/env bash
# tests/ui/test_ui_compare.sh — the Compare, Grid and AE/Bidir screens of the
# workbench, driven for real in tmux on a store of finished runs: three
# sweeps (a 2x2 grid over arch and layers, a small `bidirectional` preset,
# and a 2x2x2 grid with one job paused) trained by `mixbench worker`, and a
# paper figure put in paper_figures by hand.
#
# Compare: runs picked with space on the Runs screen (or, without a Runs
# screen, the "none picked" fallback), the legend with the config key in
# which they differ, a braille curve, the final-number table with the best
# value highlighted, a/l, removing runs down to the fallback, a resize.
# Grid: the 2x2 table with its axes' names and numbers, m, a, [ ], the
# third axis fixed / averaged with f, the paused cell, the paper figure
# beside ours, the preset's claim with its verdict.  AE/Bidir: mixer and
# attention panels, the final losses, the "which is lower" lines, the
# claim's verdict.  An empty store: how to pick and to queue.
# Without UTF-8: ASCII curves; without colours: the shading glyphs.
#
# A private tmux server (-L); the workbench runs one job on one thread.
set -u
. "$(dirname "$0")/../harness.sh"
ui_setup mbcmp

# --- the store: three sweeps, trained
S=$T/s.db
tiny="d=32 n_ctx=16 batch=4 heads=2 data=builtin:stories eval_every=10 threads=1 warmup=5"
$MB sweep --db "$S" "arch=attention,mixer" "layers=1,2" steps=40 $tiny >/dev/null 2>&1 &&
  $MB sweep --db "$S" bidirectional tokens=0 steps=30 layers=1 $tiny >/dev/null 2>&1 &&
  $MB sweep --db "$S" "arch=attention,mixer" "n_ctx=8,16" "d=16,32" steps=20 layers=1 batch=4 heads=2 \
    data=builtin:stories threads=1 warmup=5 >/dev/null 2>&1 ||
  { fail store "mixbench sweep failed"; exit 1; }
paused=$(q "$S" "select max(id) from runs")
$MB pause "$paused" --db "$S" >/dev/null 2>&1
timeout 60 $MB worker --db "$S" --jobs 2 >/dev/null 2>&1
done_runs=$(q "$S" "select count(*) from runs where status = 'done'")
# 4 + 12 (the preset: 4 points x 3 seeds) + 8 jobs, one of them paused
[ "$done_runs" = 23 ] && pass store_trained || fail store_trained "$done_runs of 23 runs done"
q "$S" "insert into paper_figures (preset, coords_json, metric, value, note)
        values ('bidirectional', '{\"task\": \"bidir\", \"arch\": \"mixer\"}', 'test_loss', 3.05, 'test')"

# run 2's config as if it had been queued on a token budget (the store's
# config is what the legend reads): its steps key then applies to run 1
# only, its tokens to run 2 only
q "$S" "update runs set config_json = json_set(config_json, '\$.tokens', '640') where id = 2"
launch A "$S" C.UTF-8 xterm-256color
wait_for A 10 "Compare" || fail launch "$(screen A)"
compare=$(tab A Compare); grid=$(tab A Grid); masked=$(tab A AE/Bidir); runs=$(tab A Runs)
[ -n "$compare" ] && [ -n "$grid" ] && [ -n "$masked" ] && pass tabs ||
  fail tabs "Compare '$compare' Grid '$grid' AE/Bidir '$masked' in: $(screen A | head -1)"

# --- Compare
if [ -n "$runs" ]; then
  # the Runs screen lists by id: pick runs 1 and 2 (attention, layers 1 and 2)
  TM send-keys -t A "$runs"
  wait_for A 5 "^ *\+? *1 +attention" || fail runs_screen "$(screen A)"
  TM send-keys -t A Home ' ' j ' '
  sleep 0.3
  TM send-keys -t A "$compare"
  check compare_picked A 5 "Compare: 2 picked runs"
  check compare_legend_differences A 3 "#1 attention/clm layers=1"
  check compare_legend_second A 3 "#2 attention/clm layers=2"
  # each budget key named only for the run it applies to, not "tokens=-" / "steps=-"
  check compare_legend_applies A 3 "#1 attention/clm layers=1 steps=40( |$)"
  check compare_legend_applies_second A 3 "#2 attention/clm layers=2 tokens=640( |$)"
  screen A | grep -q "=-" && fail compare_legend_no_dash "$(screen A)" || pass compare_legend_no_dash
else
  TM send-keys -t A "$compare"
  check compare_fallback A 5 "last finished runs of sweep 3"
fi
check compare_legend_sample A 3 "^━━ +#[0-9]+ (attention|mixer)/clm"
n=$(screen A | braille)
# the y range spans the dataset's unigram line too (below these short runs'
# curves), so the curves themselves fill the upper rows only
[ "$n" -ge 3 ] && pass compare_curve_braille || fail compare_curve_braille "$n braille cells"
check compare_table_header A 3 "run +train +best vl +valid +test +ppl +acc % +tok/s +params"
check compare_table_row A 3 "^━━ #[0-9]+ +[0-9]\.[0-9]{3} +[0-9]\.[0-9]{3} +[0-9]\.[0-9]{3} +[0-9]\.[0-9]{3} +[0-9.]+ +[0-9.]+ +[0-9.]+k +[0-9.]+k"
# the best test loss of the table is drawn in the "good" colour (green,
# ESC[32m); tmux writes an attribute once for a run of cells that share it
best=$(q "$S" "select printf('%.3f', min(test_loss)) from results where id in
               (select id from runs order by id limit 2)")
if [ -n "$runs" ]; then
  TM capture-pane -e -p -t A | grep -E "^.*#[0-9]+" | grep -q $'\e\\[32m[^\e]*'"$best" &&
    pass compare_best_highlighted || fail compare_best_highlighted "$best not green in: $(TM capture-pane -e -p -t A | grep '#' | cat -v)"
fi
check compare_axis_steps A 3 "x: steps +y: loss, linear"
TM send-keys -t A a
check compare_align_tokens A 3 "x: tokens"
TM send-keys -t A a
check compare_align_wall A 3 "x: wall seconds"
TM send-keys -t A a l
check compare_log_y A 3 "x: steps +y: loss, log"
# F: each curve's valid points fitted (4 evaluations to step 40), drawn
# dashed from the last to 3x it: the x axis then reaches step 120; F again
# takes them off, and on again
TM send-keys -t A F
check compare_fits A 3 "x: steps +y: loss, log.*dashed: fits"
check compare_fits_said A 3 "fits on: valid points, L = E \+ A x\^-a, dashed past the last to 3x"
check compare_fits_axis A 3 "^ +20 .* 120 *$"
TM send-keys -t A F
check compare_fits_off A 3 "x: steps +y: loss, log +mean|x: steps +y: loss, log +(lines|1-8)"
screen A | grep -q "dashed: fits" && fail compare_fits_off_header "$(screen A)" || pass compare_fits_off_header
screen A | grep -Eq "^ +20 .* 120 *$" && fail compare_fits_off_axis "$(screen A)" || pass compare_fits_off_axis
TM send-keys -t A F
check compare_fits_again A 3 "x: steps +y: loss, log.*dashed: fits"
TM send-keys -t A F
check compare_fits_off_again A 3 "fits off \(F: on\)"
TM resize-window -t A -x 120 -y 40
sleep 0.4
check compare_resized A 3 "^━━ #[0-9]+ +[0-9]\.[0-9]{3}"
w=$(screen A | awk '{ if (length($0) > m) m = length($0) } END { print m }')
[ "$w" -gt 80 ] && pass compare_uses_width || fail compare_uses_width "widest line $w"
n=$(screen A | braille)
[ "$n" -ge 6 ] && pass compare_resized_curve || fail compare_resized_curve "$n braille cells"
TM resize-window -t A -x 80 -y 24
sleep 0.4
if [ -n "$runs" ]; then
  TM send-keys -t A ' '
  check compare_removed A 3 "Compare: 1 picked run"
  TM send-keys -t A ' '
fi
check compare_none_left_fallback A 3 "Compare: the last finished runs of sweep 3 grid"
check compare_fallback_legend A 3 "#[0-9]+ mixer/clm d=(16|32) n_ctx=(8|16)"

# --- Grid: the latest sweep first (arch x n_ctx, d fixed), then [ to the others
TM send-keys -t A "$grid"
check grid_latest A 5 "Grid: sweep 3 grid"
check grid_fixed_axis A 3 "other axes fixed at: d=16"
TM send-keys -t A f
check grid_fixed_next A 3 "other axes fixed at: d=32"
# these tiny runs do not get 0.1 nat below the unigram level: '!' after a value
check grid_pending A 3 "^mixer +[0-9]\.[0-9]{3}!? +… paused"
TM send-keys -t A f
check grid_averaged A 3 "other axes averaged over: d"
TM send-keys -t A '['
check grid_preset A 5 "Grid: sweep 2 bidirectional"
check grid_paper_figure A 3 "^bidir +[0-9]\.[0-9]{3}±[0-9.]+!? \(paper 3\.050\)"
check grid_claim_verdict A 3 "^(holds|does not hold|undecided|undecided \(budget\)) +mixer vs Transformer standing"
check grid_preset_axes A 3 "task \\\\ arch +mixer +attention"
TM send-keys -t A '['
check grid_sweep1 A 5 "Grid: sweep 1 grid"
check grid_axes_names A 3 "arch \\\\ layers +1 +2"
check grid_row_attention A 3 "^attention +[0-9]\.[0-9]{3}!? +[0-9]\.[0-9]{3}!? *$"
check grid_row_mixer A 3 "^mixer +[0-9]\.[0-9]{3}!? +[0-9]\.[0-9]{3}!? *$"
check grid_metric_test A 3 "metric: test loss \(lower is better\)"
check grid_no_paper A 3 "paper figures: none"
TM send-keys -t A m
check grid_metric_valid A 3 "metric: valid loss"
TM send-keys -t A m m m m
check grid_metric_speed A 3 "metric: tokens/s \(higher is better\)"
check grid_speed_cells A 3 "^attention +[0-9.]+k +[0-9.]+k"
TM send-keys -t A a
check grid_axes_swapped A 3 "layers \\\\ arch +attention +mixer"
TM resize-window -t A -x 120 -y 40
sleep 0.4
check grid_resized A 3 "layers \\\\ arch +attention +mixer"
TM resize-window -t A -x 80 -y 24

# --- AE/Bidir
TM send-keys -t A "$masked"
check masked_title A 5 "AE/Bidir: sweep 2 bidirectional"
check masked_panels A 3 "masked mixer +attention \(Transformer\)"
check masked_table_bidir A 3 "^━━ mixer/bidir +[0-9]\.[0-9]{3}"
check masked_table_clm A 3 "^━━ attention/clm +[0-9]\.[0-9]{3}"
check masked_mixer_vs_attention A 3 "^(mixer|attention) lower by [0-9.]+ \(test loss\): mixer/bidir [0-9.]+ vs attention/bidir [0-9.]+"
check masked_bidir_vs_clm A 3 "^mixer, lowest first: (bidir|clm) [0-9.]+ < (bidir|clm) [0-9.]+"
n=$(screen A | braille)
[ "$n" -ge 4 ] && pass masked_curves || fail masked_curves "$n braille cells"
TM send-keys -t A v
check masked_valid_curves A 3 "valid loss vs steps"
check masked_claims A 3 "the paper's claims, judged on this sweep:"
check masked_claim_verdict A 3 "^(holds|does not hold|undecided|undecided \(budget\)) +mixer vs Transformer standing"
TM kill-session -t A

# --- an empty store: how to pick runs and to queue the presets
E=$T/e.db
launch E "$E" C.UTF-8 xterm-256color
wait_for E 10 "Compare" || fail launch_empty "$(screen E)"
TM send-keys -t E "$(tab E Compare)"
check empty_compare E 5 "Pick runs with space on the Runs screen"
TM send-keys -t E "$(tab E Grid)"
check empty_grid E 5 "Grid: no sweeps in this store"
TM send-keys -t E "$(tab E AE/Bidir)"
check empty_masked E 5 "mixbench sweep autoencoder"
TM kill-session -t E

# --- a sweep of one's own that trains autoencode: on AE/Bidir too, and
# the sweep `mixbench plot ae` draws without naming one
U=$T/u.db
$MB sweep --db "$U" arch=mixer "task=autoencode,clm" steps=20 layers=1 --name my-ae $tiny >/dev/null 2>&1 &&
  $MB sweep --db "$U" arch=mixer steps=20 layers=1 --name plain $tiny >/dev/null 2>&1 &&
  timeout 60 $MB worker --db "$U" --jobs 2 >/dev/null 2>&1 || fail own_store "mixbench sweep or worker failed"
launch U "$U" C.UTF-8 xterm-256color
wait_for U 10 "Compare" || fail launch_own "$(screen U)"
TM send-keys -t U "$(tab U AE/Bidir)"
check own_masked_title U 5 "AE/Bidir: sweep 1 my-ae +\(1 of 1"
check own_masked_table U 3 "^━━ mixer/autoencode +[0-9]\.[0-9]{3}"
TM kill-session -t U
mkdir -p "$T/own"
if (cd "$T/own" && $MB plot ae --db "$U" > "$T/plot.out" 2>&1) && grep -q "written to ae-sweep1.svg" "$T/plot.out" &&
   grep -q "my-ae" "$T/own/ae-sweep1.svg"; then
  pass own_plot_ae
else
  fail own_plot_ae "$(cat "$T/plot.out")"
fi

# --- no UTF-8 and no colours: ASCII curves and markers, shading glyphs
launch M "$S" C xterm-mono
wait_for M 10 "Compare" || fail launch_ascii "$(screen M)"
TM send-keys -t M "$(tab M Compare)"
check ascii_compare M 5 "Compare: the last finished runs of sweep 3"
n=$(screen M | braille)
[ "$n" = 0 ] && pass ascii_no_braille || fail ascii_no_braille "$n braille cells"
check ascii_markers M 3 "^1o +#[0-9]+ attention"
# lines in ASCII: each run's its digit, never '*' (run 4's valid marker)
check ascii_curve M 3 "^ *([0-9]+\.[0-9]+)?[|+][1-8 .:'~%#@*ox&+-]*[1-8]{3}"
screen M | grep -q '[*]\{3\}' && fail ascii_curve_not_marker "$(screen M)" || pass ascii_curve_not_marker
check ascii_curve_legend M 3 "1-8: smoothed train"
TM send-keys -t M "$(tab M Grid)"
check mono_shading M 5 "^attention +[ .:=+*#%@-] [0-9]\.[0-9]{3}"
check mono_shade_legend M 3 "shade: ' \.:-=\+\*#%@' worse to better"
TM send-keys -t M "$(tab M AE/Bidir)"
check ascii_masked M 5 "^[a-h]\\* mixer/bidir"
# without colours each group's lines end in the letter of its table row
check mono_masked_letters M 3 "[*.':][a-h]( |\$)"
