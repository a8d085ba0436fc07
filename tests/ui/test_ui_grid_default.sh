#!/usr/bin/env bash
# tests/ui/test_ui_grid_default.sh — the Grid screen's default view and
# random searches (issue items 2 and 7), driven in tmux on a store of no
# preset: a grid (arch x layers x lr, 2 seeds), a random search (6 trials
# of lr and d) and a sweep with heads zipped to arch.  The grid opens as
# `plot grid` does: arch down, layers across, lr fixed at 1e-3, seeds
# averaged (each cell the store's mean +- se of its 2 seeds); f steps lr
# and then averages lr, seeds staying averaged; no "pending" when nothing
# is.  The zipped sweep: heads follows arch, both columns full.  The
# search: its trials as a table sorted by test loss (the store's order),
# which knob matters over its drawn axes in ranges; a pruned trial after the
# finished ones, with the loss it was stopped at; R: its report.
set -u
. "$(dirname "$0")/../harness.sh"
. "$(dirname "$0")/../cli/views_store.sh"
ui_setup mbgdef

S=$T/v.db
views_store "$S" || exit 0

launch A "$S" C.UTF-8 xterm-256color
wait_for A 10 "Runs" || fail launch "$(screen A)"
TM resize-window -t A -x 110 -y 30
TM send-keys -t A "$(tab A Grid)"
# --- the zipped sweep (the latest): heads follows arch, every cell has its 2 seeds
check zipped_shown A 5 "Grid: sweep 3 grid"
check zipped_header A 3 "^other axes averaged over: seed; heads with arch *\$"
check zipped_columns A 3 "^n_ctx \\\\ arch +mixer +attention *\$"
check zipped_full A 3 "^16 +[0-9.]+±[0-9.]+!? +[0-9.]+±[0-9.]+!? *\$"
screen A | grep -q "pending" && fail zipped_no_pending "$(screen A)" || pass zipped_no_pending
# --- the search: trials sorted by test loss
TM send-keys -t A '['
check search_shown A 5 "Grid: sweep 2 search"
check search_title A 3 "^a random search: 6 trials, the best test loss first"
want=$(q "$S" "select json_extract(coords, '$.trial') from sweep_results where sweep_id = 2 order by test_loss, run_id" | tr '\n' ' ')
got=$(screen A | grep -E "^ +[1-6]  [0-9.]+ +[0-9]+ +[0-9]+ " | awk '{ print $4 }' | tr '\n' ' ')
[ "$got" = "$want" ] && pass search_sorted || fail search_sorted "want $want got $got: $(screen A)"
check search_knobs A 3 "^which knob matters \(variance over [0-9]+ cells.*drawn axes in 3 ranges\)"
screen A | grep -q "pending" && fail search_no_pending "$(screen A)" || pass search_no_pending
TM send-keys -t A R
check search_report A 5 "^Report: sweep 2 search +lines"
check search_report_body A 3 "a random search: its 6 trials \(a seed group each\), the best test loss first"
TM send-keys -t A R
# a trial a pruner stopped (the best one, made pruned at step 4): after the
# finished trials, with the loss it was stopped at
pr=$(q "$S" "select run_id from sweep_results where sweep_id = 2 order by test_loss, run_id limit 1")
prl=$(q "$S" "select printf('%.3f', test_loss) from sweep_results where run_id = $pr")
q "$S" "update runs set status = 'pruned', steps_done = 4 where id = $pr"
check search_pruned_last A 10 "^ +6  .* $prl pruned@4 +1 *\$"
check search_finished_first A 3 "^ +1  [0-9.]+ +[0-9]+ +[0-9]+ +[0-9.]+ +1 *\$"
q "$S" "update runs set status = 'done', steps_done = 8 where id = $pr"
# --- the grid: lr fixed, seeds averaged, arch down
TM send-keys -t A '['
check grid_shown A 5 "Grid: sweep 1 grid"
check grid_fixed_lr A 3 "^other axes fixed at: lr=1e-3; averaged: seed +\(f: next value\)"
check grid_columns A 3 "^arch \\\\ layers +1 +2 *\$"
cell() {   # the store's mean of layers=$1 arch=$2 lr=$3 over its seeds
  q "$S" "select printf('%.3f', avg(test_loss)) from sweep_results where sweep_id = 1 and json_extract(coords, '$.layers') = '$1'
          and json_extract(coords, '$.arch') = '$2' and json_extract(coords, '$.lr') = '$3'"
}
check grid_seed_mean A 3 "^attention +$(cell 1 attention 1e-3)±[0-9.]+!? +$(cell 2 attention 1e-3)±"
check grid_each_cell A 3 "^each cell: mean ± standard error of 2 runs"
screen A | grep -q "pending" && fail grid_no_pending "$(screen A)" || pass grid_no_pending
TM send-keys -t A f
check grid_next_lr A 3 "^other axes fixed at: lr=3e-3; averaged: seed +\(f: next value, then averaged\)"
check grid_next_lr_mean A 3 "^cumsum +$(cell 1 cumsum 3e-3)±[0-9.]+!? +$(cell 2 cumsum 3e-3)±"
TM send-keys -t A f
check grid_averaged A 3 "^other axes averaged over: lr, seed +\(f: fix them\)"
check grid_averaged_count A 3 "^each cell: mean ± standard error of 4 runs"
TM send-keys -t A q
exit 0
