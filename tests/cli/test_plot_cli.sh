#!/usr/bin/env bash
# tests/cli/test_plot_cli.sh — `mixbench plot` and the figures of `report --md`
# end to end, on a store made here: a completion preset sweep (tiny: d=32,
# 1500 tokens a run, 3 seeds of mixer and attention) and a grid sweep
# (attention and cumsum at 1 and 2 layers, 2 seeds, 12 steps) on the
# built-in corpus.  Every figure is read back: the SVG parses as XML (its
# text layer holds the labels), a PDF starts with %PDF and ends with %%EOF,
# a PNG has its signature and the page's size in IHDR; and it shows the
# store's numbers: the Run figure has its two train curves and y-axis tick
# labels that enclose every loss it draws, Compare one curve per seed group
# (one per run with --seeds runs) and a band per group, the Grid heatmap's
# cells read the store's mean +- standard error per point (and a paper's
# figure whose setting names an axis zipped with a shown one), the AE figure a
# panel per architecture and the claims' verdicts.  P on the Run, Compare,
# Grid and AE/Bidir screens (tmux) writes its figure beside the store.
# report --md links figures that exist; REPORT_ONLY=1
# experiments/reproduce.sh carries them beside the Markdown it writes.  Bad
# input: one line, non-zero, no file.
set -u
. "$(dirname "$0")/../harness.sh"

DB=$T/p.db
$MB sweep completion tokens=1500 layers=2 d=32 --data builtin:stories --db "$DB" >/dev/null 2>"$T/err" &&
  $MB sweep arch=attention,cumsum layers=1,2 repeats=2 steps=12 d=32 n_ctx=32 batch=4 eval_every=4 \
    --data builtin:stories --db "$DB" >/dev/null 2>>"$T/err" &&
  $MB worker --jobs 2 --threads 1 --db "$DB" >/dev/null 2>>"$T/err"
n=$(q "$DB" "select count(*) from runs where status = 'done'")
[ "$n" = 14 ] && pass plot_store_made || { fail plot_store_made "done=$n $(cat "$T/err")"; exit 0; }

# check.py KIND FILE: prints what the test compares, or "bad: why"
cat >"$T/check.py" <<'EOF'
import re, struct, sys, xml.etree.ElementTree as ET
kind, path = sys.argv[1], sys.argv[2]
def texts(cls):
    root = ET.parse(path).getroot()
    return [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == cls]
def curves():
    # stroked paths in a colour (not gray) as wide as a curve: one per curve drawn
    root = ET.parse(path).getroot()
    n = 0
    for p in root.iter("{http://www.w3.org/2000/svg}path"):
        m = re.search(r"stroke:rgb\(([\d.]+)%,([\d.]+)%,([\d.]+)%\)", p.get("style", ""))
        w = re.search(r"stroke-width:([\d.]+)", p.get("style", ""))
        # the data lines' widths (1.7, faint 0.8), not the legend's samples or hollow markers
        if m and "fill:none" in p.get("style", "") and len(set(m.groups())) > 1 and w and w.group(1) in ("1.7", "0.8"):
            n += 1
    return n
def dashes():
    # the curves' (coloured stroked paths') line patterns, "solid" for none
    root = ET.parse(path).getroot()
    out = []
    for p in root.iter("{http://www.w3.org/2000/svg}path"):
        st = p.get("style", "")
        m = re.search(r"stroke:rgb\(([\d.]+)%,([\d.]+)%,([\d.]+)%\)", st)
        if m and "fill:none" in st and len(set(m.groups())) > 1 and "stroke-width:1.7" in st:
            d = re.search(r"stroke-dasharray:([^;]+)", st)
            out.append(d.group(1) if d else "solid")
    return out
def fits():
    # the fits drawn past the budget (thin, dash-dot 5,2,1.2,2; not the legend's sample, 1.3 wide)
    root = ET.parse(path).getroot()
    return sum(1 for p in root.iter("{http://www.w3.org/2000/svg}path")
               if "stroke-dasharray:5,2,1.2,2" in p.get("style", "") and "stroke-width:1.1;" in p.get("style", ""))
def bands():
    root = ET.parse(path).getroot()
    return sum(1 for p in root.iter("{http://www.w3.org/2000/svg}path") if "fill-opacity:0.22" in p.get("style", ""))
if kind == "pdf":
    data = open(path, "rb").read()
    print("ok" if data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF") else "bad: %r ... %r" % (data[:8], data[-8:]))
elif kind == "png":
    data = open(path, "rb").read()
    ok = data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    print("%d %d" % struct.unpack(">II", data[16:24]) if ok else "bad: not a PNG")
elif kind == "ticks":   # the y tick labels: min max count
    v = [float(t) for t in texts("ytick")]
    print("%g %g %d" % (min(v), max(v), len(v)))
elif kind == "curves":
    print(curves(), bands())
elif kind == "fits":
    print(fits())
elif kind == "dashes":   # how many curves, how many line patterns among them
    d = dashes()
    print(len(d), len(set(d)))
else:                    # the texts of one class, one a line
    print("\n".join(texts(kind)))
EOF
fig() { python3 "$T/check.py" "$@" 2>&1; }   # what figure FILE shows

# --- Run: two train curves (raw, smoothed), ticks around every drawn loss
first=$(q "$DB" "select min(id) from runs where sweep_id = 2")
$MB plot run "$first" --db "$DB" -o "$T/run.svg" >"$T/out" 2>&1 && [ "$(fig curves "$T/run.svg")" = "2 0" ] &&
  grep -q "figure written to $T/run.svg" "$T/out" && pass plot_run_curves ||
  fail plot_run_curves "$(cat "$T/out"; fig curves "$T/run.svg")"
read -r lo hi nt < <(fig ticks "$T/run.svg")
read -r dlo dhi < <(q "$DB" "select min(v), max(v) from (select train_loss v from metrics where run_id = $first
  union all select train_loss_smooth from metrics where run_id = $first
  union all select loss from evals where run_id = $first and split = 'valid'
  union all select unigram_nats from results where id = $first)" | tr '|' ' ')
python3 -c "import sys; sys.exit(not ($lo <= $dlo and $hi >= $dhi and $nt >= 3 and $hi - $lo < 4 * ($dhi - $dlo) + 0.5))" &&
  pass plot_run_ticks_span_losses || fail plot_run_ticks_span_losses "ticks $lo..$hi ($nt) losses $dlo..$dhi"
fig title "$T/run.svg" | grep -q "^Run $first: attention, clm on builtin:stories" && fig legend "$T/run.svg" | grep -q "valid loss (3 evaluations)" &&
  pass plot_run_labels || fail plot_run_labels "$(fig title "$T/run.svg"; fig legend "$T/run.svg")"

# --- Compare: seeds of one point pooled (2 groups: 2 curves, 2 bands, each
# band also a swatch in the legend), or each run alone
ids="$first $((first + 1)) $((first + 2)) $((first + 3))"
$MB plot compare $ids --db "$DB" -o "$T/cmp.svg" >/dev/null 2>"$T/err" && [ "$(fig curves "$T/cmp.svg")" = "2 4" ] &&
  fig legend "$T/cmp.svg" | grep -q "layers=1, 2 seeds (#$first #$((first + 1))): test .* ± " &&
  fig legend "$T/cmp.svg" | grep -q "layers=2, 2 seeds" &&
  pass plot_compare_seed_bands || fail plot_compare_seed_bands "$(cat "$T/err"; fig curves "$T/cmp.svg"; fig legend "$T/cmp.svg")"
$MB plot compare $ids --seeds runs --db "$DB" -o "$T/each.svg" >/dev/null 2>&1 && [ "$(fig curves "$T/each.svg")" = "4 0" ] &&
  pass plot_compare_runs || fail plot_compare_runs "$(fig curves "$T/each.svg")"
$MB plot compare "$first" --seeds groups --db "$DB" -o "$T/grp.svg" >/dev/null 2>&1 && [ "$(fig curves "$T/grp.svg")" = "1 2" ] &&
  pass plot_compare_whole_group || fail plot_compare_whole_group "$(fig curves "$T/grp.svg")"
fig note "$T/cmp.svg" | grep -q "^shared config (where not the defaults): .*d=32" && pass plot_compare_shared_config ||
  fail plot_compare_shared_config "$(fig note "$T/cmp.svg")"
# curves told apart by more than colour: 4 runs, 4 line patterns
[ "$(fig dashes "$T/each.svg")" = "4 4" ] && pass plot_compare_dash_patterns ||
  fail plot_compare_dash_patterns "$(fig dashes "$T/each.svg")"
# attention vs cumsum: the legend names only keys that apply to a run's
# architecture (no "key=-"), reals in 4 digits (cumsum's emb_std 2 sqrt(32))
$MB plot compare "$first" $((first + 4)) --db "$DB" -o "$T/arch.svg" >/dev/null 2>"$T/err" &&
  ! fig legend "$T/arch.svg" | grep -q "=- \|=-:\|=-$" &&
  fig legend "$T/arch.svg" | grep -q "^#$((first + 4)) cumsum/clm .*emb_std=11.31: test" &&
  ! fig legend "$T/arch.svg" | grep -q "emb_std=11.3137" && pass plot_compare_legend_applies_short ||
  fail plot_compare_legend_applies_short "$(cat "$T/err"; fig legend "$T/arch.svg")"
# a run on a token budget beside one on steps: each budget key named only
# for the run it applies to
$MB plot compare 1 "$first" --seeds runs --db "$DB" -o "$T/budget.svg" >/dev/null 2>"$T/err" &&
  fig legend "$T/budget.svg" | grep "^#1 " | grep -q " tokens=1500" && ! fig legend "$T/budget.svg" | grep "^#1 " | grep -q " steps=" &&
  fig legend "$T/budget.svg" | grep "^#$first " | grep -q " steps=12" && ! fig legend "$T/budget.svg" | grep -q "=-" &&
  pass plot_compare_budget_keys_apply || fail plot_compare_budget_keys_apply "$(cat "$T/err"; fig legend "$T/budget.svg")"
# a seed group with a cancelled seed: counted and averaged over its finished run, and says so
cp "$DB" "$T/cancel.db"
q "$T/cancel.db" "update runs set status = 'cancelled' where id = $((first + 1))"
$MB plot compare "$first" $((first + 1)) --db "$T/cancel.db" -o "$T/cancel.svg" >/dev/null 2>"$T/err" &&
  fig legend "$T/cancel.svg" | grep -Eq "2 seeds \(#$first #$((first + 1))\), 1 of 2 seeds finished: test [0-9]+\.[0-9]+$" &&
  pass plot_compare_cancelled_seed || fail plot_compare_cancelled_seed "$(cat "$T/err"; fig legend "$T/cancel.svg")"

# --- fits past the budget (--fits): the grid sweep's attention runs with
# valid losses set by hand to known power laws in their tokens (6
# evaluations a run: steps 2..12), layers=1 3.0 + 1.2 u^-0.5 and layers=2
# 3.35 + 0.5 / u (u: the share of the 12 steps), which cross at 8.66 u: a
# fit a group, drawn on a log tokens axis to 10x, and an x where they cross
cp "$DB" "$T/fits.db"
q "$T/fits.db" "insert into evals (run_id, step, split, loss, n_tokens) select run_id, step - 2, 'valid', loss, n_tokens
                from evals where split = 'valid' and run_id between $first and $((first + 3));
                update evals set loss = case when run_id < $((first + 2)) then 3.0 + 1.2 * power(step / 12.0, -0.5)
                  else 3.35 + 0.5 / (step / 12.0) end where split = 'valid' and run_id between $first and $((first + 3))"
budget=$(q "$T/fits.db" "select max(tokens) from metrics where run_id = $first")
$MB plot compare $ids --fits --db "$T/fits.db" -o "$T/fits.svg" >/dev/null 2>"$T/err" && [ "$(fig fits "$T/fits.svg")" = 2 ] &&
  [ "$(fig xlabel "$T/fits.svg")" = "training tokens" ] && [ "$(fig xtick "$T/fits.svg" | tr '\n' ' ')" = "100 1k 10k 100k " ] &&
  fig legend "$T/fits.svg" | grep -q "^dashed past the budget: fit L = E + A t^-a" &&
  fig legend "$T/fits.svg" | grep -q "^the fits of #$first and #$((first + 2)) cross near 13.3k tokens$" &&
  [ "$(fig curves "$T/fits.svg")" = "2 4" ] && pass plot_compare_fits ||
  fail plot_compare_fits "budget $budget: $(cat "$T/err"; fig fits "$T/fits.svg"; fig xtick "$T/fits.svg"; fig legend "$T/fits.svg")"
# without --fits none; a group of 3 runs of 1 evaluation (completion's mixer) is not fitted, and a note says so
$MB plot compare $ids --db "$T/fits.db" -o "$T/nofits.svg" >/dev/null 2>&1 && [ "$(fig fits "$T/nofits.svg")" = 0 ] &&
  $MB plot compare 1 "$first" --seeds groups --fits --db "$T/fits.db" -o "$T/few.svg" >/dev/null 2>&1 &&
  [ "$(fig fits "$T/few.svg")" = 1 ] && fig note "$T/few.svg" | grep -q "^no fit (fewer than 4 valid evaluations.*): #1$" &&
  pass plot_compare_fits_only_where_asked_and_fitted ||
  fail plot_compare_fits_only_where_asked_and_fitted "$(fig fits "$T/nofits.svg"; fig fits "$T/few.svg"; fig note "$T/few.svg")"

# --- Grid: each cell is the store's mean ± standard error of its seeds
$MB plot grid 2 --db "$DB" -o "$T/grid.svg" >/dev/null 2>"$T/err" || fail plot_grid "$(cat "$T/err")"
want=$(q "$DB" "select json_extract(coords, '$.arch'), json_extract(coords, '$.layers'), group_concat(test_loss)
                from sweep_results where sweep_id = 2 group by 1, 2 order by 1, 2" |
  python3 -c "
import sys, statistics as st
for line in sys.stdin:
    arch, layers, vals = line.strip().split('|'); v = [float(x) for x in vals.split(',')]
    print('%.3f ± %.3f' % (st.mean(v), st.stdev(v) / len(v) ** 0.5))")
got=$(fig cell "$T/grid.svg")
[ -n "$want" ] && [ "$(echo "$want" | sort)" = "$(echo "$got" | sort)" ] && [ "$(echo "$got" | wc -l)" = 4 ] &&
  pass plot_grid_cells_equal_store || fail plot_grid_cells_equal_store "want: $want got: $got"
# the Grid screen's default: the first axis down (arch), the next across (layers)
[ "$(fig row "$T/grid.svg" | tr '\n' ' ')" = "attention cumsum " ] && [ "$(fig col "$T/grid.svg" | tr '\n' ' ')" = "1 2 " ] &&
  pass plot_grid_axes || fail plot_grid_axes "$(fig row "$T/grid.svg") / $(fig col "$T/grid.svg")"
$MB plot grid 2 --rows arch --cols layers --metric valid_loss --db "$DB" -o "$T/g2.svg" >/dev/null 2>&1 &&
  [ "$(fig row "$T/g2.svg" | tr '\n' ' ')" = "attention cumsum " ] && fig title "$T/g2.svg" | grep -q "valid loss" &&
  pass plot_grid_options || fail plot_grid_options "$(fig row "$T/g2.svg"; fig title "$T/g2.svg")"
$MB plot grid 2 --at layers=2 --db "$DB" -o "$T/g3.svg" >/dev/null 2>&1 && [ "$(fig cell "$T/g3.svg" | wc -l)" = 2 ] &&
  fig note "$T/g3.svg" | grep -q "fixed at: layers=2" && pass plot_grid_fixed || fail plot_grid_fixed "$(fig note "$T/g3.svg")"

# the colours run from worst to best whatever the spread: a note names the
# cells the seeds cannot tell from the best (test losses set by hand:
# attention 5.00/5.10 at 1 layer, 5.02/5.12 at 2 -- within noise; cumsum
# 6.00/6.01 and 6.50/6.51 -- far)
cp "$DB" "$T/tie.db"
q "$T/tie.db" "update evals set loss = (select case json_extract(r.coords_json, '\$.arch') || json_extract(r.coords_json, '\$.layers')
                 when 'attention1' then 5.00 when 'attention2' then 5.02 when 'cumsum1' then 6.00 else 6.50 end
                 + case r.arch when 'attention' then 0.10 else 0.01 end * (r.seed - 1) from runs r where r.id = evals.run_id)
               where split = 'test' and run_id in (select id from runs where sweep_id = 2)"
$MB plot grid 2 --db "$T/tie.db" -o "$T/tie.svg" >/dev/null 2>&1 &&
  fig note "$T/tie.svg" | grep -q "^1 cell within seed noise of the best (Welch's t at 95%, as the claims)" &&
  pass plot_grid_tied || fail plot_grid_tied "$(fig cell "$T/tie.svg"; fig note "$T/tie.svg")"

# a paper's figure names an axis zipped with a shown one: mixer-vs-transformer's
# (arch,heads)=(mixer,1),(attention,4) puts arch across and averages heads,
# one value per cell, so its n=512 figures (heads named) still stand in
# their cells; runs of 2 steps learned nothing: every cell flagged
$MB sweep mixer-vs-transformer steps=2 d=16 layers=1 repeats=1 eval_tokens=256 batch=2 --data builtin:stories \
  --db "$T/mvt.db" >/dev/null 2>"$T/err" && $MB worker --jobs 2 --threads 1 --db "$T/mvt.db" >/dev/null 2>>"$T/err" &&
  $MB plot grid 1 --db "$T/mvt.db" -o "$T/mvt.svg" >/dev/null 2>>"$T/err" || fail plot_grid_zipped "$(cat "$T/err")"
want=$(q "$T/mvt.db" "select group_concat('! 1 not learned, paper ' || printf('%.3f', value), '|') from
                      (select value from paper_figures where preset = 'mixer-vs-transformer' order by value desc)")
[ "$(fig detail "$T/mvt.svg" | grep paper | tr '\n' '|')" = "$want|" ] &&
  [ "$(fig detail "$T/mvt.svg" | grep -c "^! 1 not learned")" = 6 ] && fig note "$T/mvt.svg" | grep -q "^! not learned: " &&
  fig note "$T/mvt.svg" | grep -q "^rows: n_ctx, columns: arch; heads with arch$" &&
  pass plot_grid_zipped_paper || fail plot_grid_zipped_paper "want $want: $(fig detail "$T/mvt.svg")"

# --- Parallel coordinates: the metric's axis labelled at its ends, the
# lowest and the highest seed-group mean test loss (the tick labels last)
$MB plot parallel 2 --db "$DB" -o "$T/par.svg" >/dev/null 2>"$T/err" || fail plot_parallel "$(cat "$T/err")"
ends=$(q "$DB" "select min(m), max(m) from (select avg(test_loss) m from sweep_results where sweep_id = 2
               group by json_extract(coords, '$.arch'), json_extract(coords, '$.layers'))" | tr '|' ' ')
fig ytick "$T/par.svg" | python3 -c "
import sys
lo, hi = map(float, '$ends'.split()); t = [float(x) for x in sys.stdin.read().split() if '.' in x]  # the losses' (layers: 1, 2)
near = lambda a, b: abs(a - b) <= 5e-4 * max(1, abs(b))
sys.exit(not (t and near(min(t), lo) and near(max(t), hi) and near(t[-1], hi)))" &&
  pass plot_parallel_metric_ends || fail plot_parallel_metric_ends "ends $ends ticks $(fig ytick "$T/par.svg" | tr '\n' ' ')"

# --- AE/Bidir: a panel per architecture, the verdicts; the same figure as PDF and PNG
$MB plot ae --db "$DB" -o "$T/ae.svg" >/dev/null 2>"$T/err" &&
  [ "$(fig panel "$T/ae.svg" | tr '\n' '|')" = "masked mixer: smoothed train loss|attention: smoothed train loss|" ] &&
  fig footer "$T/ae.svg" | grep -Eq "^(holds|does not hold|undecided|undecided \(budget\)|not run): " &&
  pass plot_ae_panels_verdicts || fail plot_ae_panels_verdicts "$(cat "$T/err"; fig panel "$T/ae.svg"; fig footer "$T/ae.svg")"
# its note says what the runs are (queued with tokens=1500), not the preset's 200k tokens
fig note "$T/ae.svg" | grep -q "^Masked Mixers II (preset completion) as queued: 1.5k tokens a run, d=32, layers=2; 2 points x 3 seeds; 6 of 6 runs finished$" &&
  ! fig note "$T/ae.svg" | grep -q "200k tokens" && pass plot_ae_note_budget_of_runs ||
  fail plot_ae_note_budget_of_runs "$(fig note "$T/ae.svg")"
$MB plot ae completion --db "$DB" -o "$T/ae.pdf" >/dev/null 2>&1 && [ "$(fig pdf "$T/ae.pdf")" = ok ] &&
  pass plot_pdf || fail plot_pdf "$(fig pdf "$T/ae.pdf")"
$MB plot ae 1 --db "$DB" -o "$T/ae.PNG" >/dev/null 2>&1 && read -r w h < <(fig png "$T/ae.PNG") &&
  [ "$w" = 1440 ] && [ "$h" -gt 400 ] && pass plot_png || fail plot_png "$(fig png "$T/ae.PNG")"
# a renamed preset sweep keeps its paper: the same verdicts under its new name
$MB rename sweep:1 "my completion" --db "$DB" >/dev/null &&
  $MB plot ae 1 --db "$DB" -o "$T/ae-renamed.svg" >/dev/null 2>"$T/err" &&
  [ "$(fig footer "$T/ae-renamed.svg")" = "$(fig footer "$T/ae.svg")" ] &&
  fig title "$T/ae-renamed.svg" | grep -q "my completion" && pass plot_renamed_preset_keeps_paper ||
  fail plot_renamed_preset_keeps_paper "$(cat "$T/err"; fig title "$T/ae-renamed.svg"; fig footer "$T/ae-renamed.svg")"
$MB rename sweep:1 completion --db "$DB" >/dev/null
for f in run cmp grid ae; do xmllint --noout "$T/$f.svg" 2>>"$T/xml" || echo "$f" >>"$T/xml"; done
command -v xmllint >/dev/null || echo "SKIP plot_svg_xmllint: xmllint not installed (make deps installs libxml2-utils)"
command -v xmllint >/dev/null && { [ ! -s "$T/xml" ] && pass plot_svg_xmllint || fail plot_svg_xmllint "$(cat "$T/xml")"; }

# --- the screens' P key: the figure of what each shows, beside the store (p.db: p-NAME.svg)
ui_setup plotui
launch W "$DB" C.UTF-8
wait_for W 10 "Runs" || fail screen_launch "$(screen W)"
for k in 2:run 3:compare 4:grid-sweep 5:ae-sweep; do
  TM send-keys -t W "${k%%:*}"
  sleep 0.5
  TM send-keys -t W P
  if wait_for W 10 "figure written to .*/p-${k#*:}[0-9]*\.svg"; then
    f=$(ls "$T"/p-"${k#*:}"*.svg 2>/dev/null | head -1)
    [ -n "$f" ] && python3 -c "import xml.etree.ElementTree as E; E.parse('$f')" && pass "screen_key_${k#*:}" ||
      fail "screen_key_${k#*:}" "no SVG $f"
  else
    fail "screen_key_${k#*:}" "$(screen W)"
  fi
done
# Compare's P with F on: the figure with the fits, on training tokens
TM send-keys -t W 3
sleep 0.5
TM send-keys -t W F
wait_for W 10 "fits on" && TM send-keys -t W P
if wait_for W 10 "figure written to .*/p-compare[0-9]*\.svg"; then
  f=$(ls -t "$T"/p-compare*.svg 2>/dev/null | head -1)
  [ "$(fig xlabel "$f")" = "training tokens" ] && pass screen_key_compare_fits || fail screen_key_compare_fits "$(fig xlabel "$f")"
else
  fail screen_key_compare_fits "$(screen W)"
fi
TM send-keys -t W q
wait_exit W 10 || fail screen_quit "$(screen W)"
# the Grid screen says the same of the hand-set store above
launch G "$T/tie.db" C.UTF-8
wait_for G 10 "Runs" || fail screen_launch_tie "$(screen G)"
TM send-keys -t G 4
wait_for G 10 "1 cell within seed noise of the best" && pass grid_screen_tied || fail grid_screen_tied "$(screen G)"
TM send-keys -t G q
wait_exit G 10 || fail screen_quit_tie "$(screen G)"

# --- bad input: one line, non-zero, no file
bad() {   # name, expected text, args...
  local name=$1 want=$2; shift 2
  $MB plot "$@" >"$T/out" 2>"$T/err"; local rc=$?
  [ $rc != 0 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q -e "$want" "$T/err" && pass "plot_refuses_$name" ||
    fail "plot_refuses_$name" "rc=$rc $(cat "$T/err")"
}
bad unknown_run "no run 999 in " run 999 --db "$DB" -o "$T/x.svg"
bad run_id "no run abc in " compare 3 abc --db "$DB" -o "$T/x.svg"
bad extension "unknown figure format" run 3 --db "$DB" -o "$T/x.jpg"
bad unwritable "cannot write $T/no/such/x.svg" run 3 --db "$DB" -o "$T/no/such/x.svg"
bad unknown_sweep "no sweep 77 in the store" grid 77 --db "$DB" -o "$T/x.svg"
bad unknown_axis "has no axis 'heads'" grid 2 --rows heads --db "$DB" -o "$T/x.svg"
bad unknown_metric "unknown metric 'loss'" grid 2 --metric loss --db "$DB" -o "$T/x.svg"
bad missing_store "no such store" run 1 --db "$T/none.db" -o "$T/x.svg"
bad kind "unknown figure kind" histogram --db "$DB"
bad fits_axis "--fits draws against training tokens, not --x steps" compare 3 --fits --x steps --db "$DB" -o "$T/x.svg"
bad fits_kind "--fits is for plot compare and plot ae" grid 2 --fits --db "$DB" -o "$T/x.svg"
[ ! -e "$T/x.svg" ] && [ ! -e "$T/x.jpg" ] && [ ! -e "$T/none.db" ] && pass plot_refusals_write_nothing ||
  fail plot_refusals_write_nothing "$(ls "$T")"
$MB plot --help >"$T/out" 2>&1 && grep -q "^usage: mixbench plot run RUN" "$T/out" && grep -q "^example: " "$T/out" &&
  pass plot_help || fail plot_help "$(cat "$T/out")"

# --- report --md: figures beside the Markdown, linked by relative paths that exist
mkdir -p "$T/md"
$MB report --db "$DB" --md "$T/md/r.md" >/dev/null 2>"$T/err"
links=$(grep -o '!\[[^]]*\]([^)]*)' "$T/md/r.md" | sed 's/.*](\(.*\))/\1/')
missing=""
for l in $links; do [ -s "$T/md/$l" ] && python3 -c "import xml.etree.ElementTree as E; E.parse('$T/md/$l')" || missing="$missing $l"; done
[ "$(echo $links)" = "figures/completion.svg figures/completion-curves.svg" ] && [ -z "$missing" ] &&
  grep -q '^!\[Grid: sweep 1 completion, test loss\](figures/completion.svg)$' "$T/md/r.md" &&
  grep -q '^!\[AE/Bidir: sweep 1 completion\](figures/completion-curves.svg)$' "$T/md/r.md" &&
  pass report_md_links_figures || fail report_md_links_figures "links: $links missing:$missing $(cat "$T/err")"
# the curves figure of a preset whose claims compare points carries the fits:
# completion's mixer and attention (1 evaluation a run: no fit, said so;
# with valid losses set at steps 1-3 as power laws crossing at 8.66x the
# budget: a fit in each panel, the crossing marked in both)
fig xlabel "$T/md/figures/completion-curves.svg" | grep -q "^training tokens$" &&
  fig note "$T/md/figures/completion-curves.svg" | grep -q "^no fit (fewer than 4 valid evaluations.*): mixer/complete, attention/complete$" &&
  pass report_curves_fits_asked || fail report_curves_fits_asked "$(fig xlabel "$T/md/figures/completion-curves.svg"; fig note "$T/md/figures/completion-curves.svg")"
q "$T/fits.db" "insert into evals (run_id, step, split, loss, n_tokens) select run_id, s.step, 'valid', loss, n_tokens
                from evals, (select 1 step union all select 2) s where split = 'valid' and run_id in (select id from runs where sweep_id = 1);
                update evals set loss = case (select arch from runs where id = run_id) when 'mixer' then 3.0 + 1.2 * power(step / 3.0, -0.5)
                  else 3.35 + 0.5 / (step / 3.0) end where split = 'valid' and run_id in (select id from runs where sweep_id = 1)"
mkdir -p "$T/mdf"
$MB report --db "$T/fits.db" --md "$T/mdf/r.md" >/dev/null 2>"$T/err" &&
  [ "$(fig fits "$T/mdf/figures/completion-curves.svg")" = 2 ] &&
  [ "$(fig legend "$T/mdf/figures/completion-curves.svg" | grep -c "^the fits of mixer/complete and attention/complete cross near ")" = 1 ] &&
  pass report_curves_fits || fail report_curves_fits "$(cat "$T/err"; fig fits "$T/mdf/figures/completion-curves.svg"; fig legend "$T/mdf/figures/completion-curves.svg")"
# the reproduction script: figures/NAME/ beside NAME.md, made anew
R=$T/repro
mkdir -p "$R/figures/reproduction" && touch "$R/figures/reproduction/stale.svg"
REPORT_ONLY=1 MIXBENCH=$MB experiments/reproduce.sh "$DB" "$R/reproduction.md" >/dev/null 2>"$T/err"
grep -q '^!\[AE/Bidir: sweep 1 completion\](figures/reproduction/completion-curves.svg)$' "$R/reproduction.md" &&
  [ -s "$R/figures/reproduction/completion.svg" ] && [ -s "$R/figures/reproduction/completion-curves.svg" ] && [ ! -e "$R/figures/reproduction/stale.svg" ] &&
  [ -z "$(ls -A "$R" | grep '^\.report')" ] &&
  pass reproduce_carries_figures || fail reproduce_carries_figures "$(cat "$T/err"; ls -laR "$R")"
exit 0
