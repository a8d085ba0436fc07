#!/usr/bin/env bash
# tests/cli/test_sweep_views.sh — `plot grid` and `report` on any sweep
# (issue items 2 and 7), on a store of no preset: a grid (arch x layers x
# lr, 2 seeds), a random search (6 trials of lr and d), and a sweep with
# heads zipped to arch.  plot grid opens on the Grid screen's view: arch
# down, layers across, lr fixed at its first value, seeds averaged (each
# cell the store's mean of its 2 seeds), heads following arch (every
# attention cell filled); --at lr=all averages lr; on the search it draws
# the trials' parallel coordinates, not an empty heatmap.  report ID,
# sweep:ID and NAME report any sweep: the grid its points and which knob
# matters, the search its trials sorted by test loss (checked against the
# store); `report` alone on this store reports every sweep.  Bad input:
# one line, non-zero.
set -u
. "$(dirname "$0")/../harness.sh"
. "$(dirname "$0")/views_store.sh"

S=$T/v.db
views_store "$S" || exit 0

# texts of one class of an SVG, one a line
texts() {
  python3 -c "
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
print('\n'.join(t.text or '' for t in root.iter('{http://www.w3.org/2000/svg}text') if t.get('class') == sys.argv[2]))" "$1" "$2" 2>&1
}

# --- plot grid: the Grid screen's view
$MB plot grid 1 --db "$S" -o "$T/g1.svg" >/dev/null 2>"$T/err" || fail plot_grid_default "$(cat "$T/err")"
texts "$T/g1.svg" note | grep -qx "rows: arch, columns: layers; averaged over: seed; fixed at: lr=1e-3" &&
  [ "$(texts "$T/g1.svg" row | tr '\n' ' ')" = "attention cumsum " ] && [ "$(texts "$T/g1.svg" col | tr '\n' ' ')" = "1 2 " ] &&
  pass plot_grid_default_view || fail plot_grid_default_view "$(texts "$T/g1.svg" note)"
want=$(q "$S" "select printf('%.3f', avg(test_loss)) from sweep_results where sweep_id = 1
               and json_extract(coords, '$.lr') = '1e-3' group by json_extract(coords, '$.arch'),
               json_extract(coords, '$.layers') order by json_extract(coords, '$.arch'), json_extract(coords, '$.layers')" | tr '\n' ' ')
got=$(texts "$T/g1.svg" cell | sed 's/ ± .*//' | tr '\n' ' ')
[ "$got" = "$want" ] && pass plot_grid_seed_means || fail plot_grid_seed_means "want $want got $got"
$MB plot grid 1 --at lr=all --db "$S" -o "$T/g1avg.svg" >/dev/null 2>&1 &&
  texts "$T/g1avg.svg" note | grep -qx "rows: arch, columns: layers; averaged over: lr, seed" &&
  pass plot_grid_at_all_averages || fail plot_grid_at_all_averages "$(texts "$T/g1avg.svg" note)"
# heads zipped with arch follows it: both columns full, 2 seeds a cell
$MB plot grid 3 --db "$S" -o "$T/g3.svg" >/dev/null 2>&1 &&
  texts "$T/g3.svg" note | grep -qx "rows: n_ctx, columns: arch; averaged over: seed; heads with arch" &&
  [ "$(texts "$T/g3.svg" cell | grep -c ' ± ')" = 4 ] &&
  pass plot_grid_zipped_follows || fail plot_grid_zipped_follows "$(texts "$T/g3.svg" note; texts "$T/g3.svg" cell)"
# a random search: its parallel coordinates
$MB plot grid 2 --db "$S" -o "$T/g2.svg" >/dev/null 2>"$T/err" &&
  texts "$T/g2.svg" title | grep -q "^Parallel coordinates: sweep 2 search, test loss" &&
  pass plot_grid_search_parallel || fail plot_grid_search_parallel "$(cat "$T/err"; texts "$T/g2.svg" title)"

# --- report of any sweep
$MB report 1 --db "$S" >"$T/r1" 2>"$T/err" && grep -q "^sweep 1: grid (a grid)" "$T/r1" &&
  grep -Eq "^  arch=attention layers=1 lr=1e-3 +2( \(2 not learned\))? +[0-9.]+ \+- [0-9.]+" "$T/r1" &&
  grep -q "Which knob matters (share of the variance of test loss over the grid's 8 cells" "$T/r1" &&
  grep -Eq "^  point +seeds +test_loss +tokens +wall s$" "$T/r1" &&
  pass report_sweep_grid || fail report_sweep_grid "$(cat "$T/err" "$T/r1")"
$MB report sweep:2 --db "$S" >"$T/r2" 2>"$T/err" && grep -q "a random search: its 6 trials (a seed group each), the best test loss first" "$T/r2" &&
  grep -q "Which knob matters (share of the variance of test loss over [0-9]* cells, each drawn axis in 3 ranges" "$T/r2" &&
  pass report_sweep_search || fail report_sweep_search "$(cat "$T/err" "$T/r2")"
want=$(q "$S" "select json_extract(coords, '$.trial') from sweep_results where sweep_id = 2 order by test_loss, run_id" | tr '\n' ' ')
got=$(grep -oE "trial=[0-9]+" "$T/r2" | cut -d= -f2 | tr '\n' ' ')
[ "$got" = "$want" ] && pass report_search_sorted || fail report_search_sorted "want $want got $got"
$MB report search --db "$S" >"$T/rn" 2>&1 && cmp -s "$T/r2" "$T/rn" && pass report_sweep_by_name ||
  fail report_sweep_by_name "$(diff "$T/r2" "$T/rn" | head -5)"
$MB report --db "$S" >"$T/all" 2>&1 && [ "$(grep -c '^sweep [123]: ' "$T/all")" = 3 ] &&
  ! grep -q "no preset has been queued" "$T/all" && pass report_every_sweep || fail report_every_sweep "$(head -20 "$T/all")"
$MB report 1 --md "$T/r1.md" --db "$S" >/dev/null 2>"$T/err" && grep -q "^## sweep 1: grid (a grid)" "$T/r1.md" &&
  grep -q "](figures/sweep1.svg)" "$T/r1.md" && [ -s "$T/figures/sweep1.svg" ] &&
  pass report_sweep_md_figures || fail report_sweep_md_figures "$(cat "$T/err"; head -20 "$T/r1.md")"

# --- bad input: one line, non-zero
bad() {   # name, expected text, args...
  local name=$1 want=$2; shift 2
  $MB report "$@" --db "$S" >"$T/out" 2>"$T/err"; local rc=$?
  [ $rc != 0 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "$want" "$T/err" && pass "report_refuses_$name" ||
    fail "report_refuses_$name" "rc=$rc $(cat "$T/err")"
}
bad unknown_sweep "no sweep 99 in the store" 99
bad unknown_name "unknown preset 'nosuch', and no sweep of this store is named so" nosuch
bad zero_id "'sweep:0' is not a sweep id" sweep:0
bad mixed "name presets or sweeps, not both" 1 autoencoder
exit 0
