#!/usr/bin/env bash
# test_search.sh — random search and the pruner through the binary, on tiny
# models of builtin:markov (a few seconds of training in all):
#   search_reproducible  the same --search-seed lists the same trials, another
#                        seed others, more trials keep the first ones; a
#                        whole-number key (warmup) draws whole numbers in
#                        its range;
#                        repeats gives each trial its seeds (a seed group)
#   search_refused       a distribution without --search random, a log range
#                        from 0, an empty choice, --prune on a grid, asha
#                        with one rung, trials out of range: one line each,
#                        nothing queued
#   search_named         a random search's sweep is called `search`, not `grid`
#   asha_workers         --prune asha trained by 1 worker and by 2 workers
#                        from the same queued store: every run ends with the
#                        same status, budget and why; at least one trial
#                        reaches the full budget, the others are pruned at a
#                        rung ('pruned by asha at rung'), `ls --status
#                        pruned` lists them and the sweep's done results
#                        leave them out
#   median_workers       --prune median the same way: same decisions with 1
#                        and 2 workers, the startup trials never pruned
#   pruned_shown         the Runs screen shows a pruned run and, under the
#                        table, why
#   form_search          the New sweep form: a distribution in Axes, the
#                        Search field's trials and pruner, the Time line's
#                        asha share, queued with its plan at the first rung
#
# Run from the repository root by tests/run.sh; prints PASS/FAIL lines.
. "$(dirname "$0")/../harness.sh"
cd "$T" || exit 2

TINY="arch=mixer data=builtin:markov d=16 layers=1 heads=2 n_ctx=16 batch=4 steps=90"

# ---- the draws
$MB sweep $TINY "lr=log:1e-4..1e-1" "warmup=uniform:1..3" --search random --trials 4 --search-seed 3 --dry-run >a.out 2>&1
$MB sweep $TINY "lr=log:1e-4..1e-1" "warmup=uniform:1..3" --search random --trials 4 --search-seed 3 --dry-run >b.out 2>&1
$MB sweep $TINY "lr=log:1e-4..1e-1" "warmup=uniform:1..3" --search random --trials 4 --search-seed 4 --dry-run >c.out 2>&1
$MB sweep $TINY "lr=log:1e-4..1e-1" "warmup=uniform:1..3" --search random --trials 6 --search-seed 3 --dry-run >d.out 2>&1
$MB sweep $TINY "lr=log:1e-4..1e-1" "act=choice:relu,gelu" --search random --trials 3 repeats=2 --dry-run >e.out 2>&1
trials() { grep -o '{"lr".*}' "$1"; }
warmups=$(trials d.out | grep -o '"warmup": "[^"]*"' | sort -u | tr -d '\n')
seeds=$(trials e.out | grep -c '"trial": "2", "seed"')
if cmp -s a.out b.out && ! cmp -s a.out c.out && [ "$(trials a.out)" = "$(trials d.out | head -4)" ] &&
   [ "$(trials d.out | wc -l)" = 6 ] && echo "$warmups" | grep -Eq '^("warmup": "[123]")+$' &&
   grep -q "random search: 4 trials of lr warmup drawn with search seed 3" a.out && [ "$seeds" = 2 ]; then
  pass search_reproducible
else
  fail search_reproducible "$(cat a.out c.out d.out e.out)"
fi

# ---- refusals
refused=0
bad() {   # WHY WORDS...: refused with one line that says WHY, and no store made
  local why=$1
  shift
  if $MB sweep $TINY "$@" --db r.db >r.out 2>r.err || ! one_line r.err || ! grep -q -- "$why" r.err || [ -e r.db ]; then
    echo "not refused for '$why': $*: $(cat r.err)"
  else
    refused=$((refused + 1))
  fi
}
bad "is drawn by a random search" "lr=log:1e-4..1e-2"
bad "log needs LO > 0" "lr=log:0..1e-2" --search random --trials 3
bad "has an empty value" "act=choice:relu,,gelu" --search random --trials 3
bad "stops the trials of a random search" warmup=1,2 --prune asha
bad "leaves asha one rung" "lr=log:1e-4..1e-2" --search random --trials 3 --prune asha prune_grace=0.5
bad "trials=0 must be" "lr=log:1e-4..1e-2" --search random --trials 0
bad "the pruner is asha, median or none" "lr=log:1e-4..1e-2" --search random --trials 3 --prune hyperband
bad "act is not a number" "act=log:1..2" --search random --trials 3
[ "$refused" = 8 ] && pass search_refused || fail search_refused "$refused of 8 refused"

# ---- asha and median: 1 worker and 2 workers from the same queued store
decisions() { q "$1" "select id || ' ' || status || ' ' || total_steps || ' ' || coalesce(error, '') from runs order by id"; }
$MB sweep $TINY "lr=log:1e-5..0.3" --search random --trials 9 --search-seed 1 --prune asha --db a1.db >asha.out 2>&1
[ "$(q a1.db "select name || ' ' || coalesce(preset, '') from sweeps")" = "search search" ] && pass search_named ||
  fail search_named "$(q a1.db "select name, preset from sweeps")"
cp a1.db a2.db
$MB worker --db a1.db --jobs 1 --threads 1 >/dev/null 2>&1
$MB worker --db a2.db --jobs 2 --threads 1 >/dev/null 2>&1
full=$(q a1.db "select count(*) from runs where status = 'done' and total_steps = 90")
pruned=$(q a1.db "select count(*) from runs where status = 'pruned' and error like 'pruned by asha at rung %'")
listed=$($MB ls --db a1.db --status pruned 2>&1 | grep -c pruned)
results=$(q a1.db "select count(*) from sweep_results where status = 'done'")
if [ -n "$(decisions a1.db)" ] && [ "$(decisions a1.db)" = "$(decisions a2.db)" ] && [ "$full" -ge 1 ] &&
   [ $((full + pruned)) = 9 ] && [ "$listed" = "$pruned" ] && [ "$results" = "$full" ] &&
   grep -q -- "--prune asha: rungs at 0.111, 0.333, 1 of each budget" asha.out; then
  pass asha_workers
else
  fail asha_workers "full $full pruned $pruned listed $listed results $results
$(decisions a1.db)
--- 2 workers:
$(decisions a2.db)"
fi

$MB sweep $TINY "lr=log:1e-5..0.3" eval_every=10 --search random --trials 8 --search-seed 2 --prune median prune_startup=2 \
  --db m1.db >/dev/null 2>&1
cp m1.db m2.db
$MB worker --db m1.db --jobs 1 --threads 1 >/dev/null 2>&1
$MB worker --db m2.db --jobs 2 --threads 1 >/dev/null 2>&1
startup=$(q m1.db "select group_concat(status) from runs where id <= 2")
mpruned=$(q m1.db "select count(*) from runs where status = 'pruned' and error like 'pruned by median at step %'")
if [ "$(decisions m1.db)" = "$(decisions m2.db)" ] && [ "$startup" = "done,done" ] && [ "$mpruned" -ge 1 ]; then
  pass median_workers
else
  fail median_workers "startup $startup pruned $mpruned
$(decisions m1.db)
--- 2 workers:
$(decisions m2.db)"
fi

# ---- the Runs screen
ui_setup pr
launch ui a1.db "$UTF8"
check pruned_shown ui 5 "pruned by asha at rung"   # the first run is pruned: its why under the table

# ---- the New sweep form: Axes takes the distribution, Search the trials and
# the pruner; the Time line says asha's share; queued at the first rung
launch form form.db "$UTF8"
sleep 1
keys() { TM send-keys -t form "$@"; sleep 0.2; }
keys "$(tab form "New sweep")"
keys Down Down Down Down Enter C-u          # Archs, Task, Dataset, Axes
TM send-keys -t form -l "lr=log:1e-4..1e-2"; sleep 0.2
keys Enter Down Down Down Down Enter         # Budget, Extra keys, Priority, Search
TM send-keys -t form -l "trials=9 search_seed=2 prune=asha"; sleep 0.2
keys Enter
if wait_for form 5 "Queue 9 jobs" && wait_for form 5 "with asha \(about 27%"; then
  keys Down Enter
  plan=""
  for _ in $(seq 50); do
    plan=$(q form.db "select json_extract(plan_json, '\$.prune.kind') || ' ' || json_extract(plan_json, '\$.search.seed') from sweeps" 2>/dev/null)
    [ -n "$plan" ] && break
    sleep 0.2
  done
  first=$(q form.db "select group_concat(distinct json_extract(config_json, '\$.steps')) from runs")
  [ "$plan" = "asha 2" ] && [ "$first" = 33 ] && pass form_search || fail form_search "plan '$plan' steps '$first'
$(screen form)"
else
  fail form_search "$(screen form)"
fi
