#!/usr/bin/env bash
# test_adaptive.sh — lr=tune and --until-conclusive through the binary:
#   tune_picks_best      a small problem where the best lr is clear (1e-6
#                        learns nothing, 1 diverges, 1e-3 learns): the search
#                        picks 1e-3, its trials are stored with role
#                        lr-search and left out of sweep_results, the seed
#                        trains at 1e-3 and ends equal to the rung that
#                        continued it (an extension is the run itself)
#   tune_runs_screen     the Runs screen marks a trial and says its lr
#   until_conclusive_form  the New sweep form's checkbox and cap queue the
#                        preset with its plan (decay=wsd)
#   adaptive_refused     --max-hours 0, junk or without --until-conclusive,
#                        --until-conclusive on a grid, lr=tune with
#                        decay=cosine: one line each, nothing queued
#   tune_first_rung      lr=tune's first rung trains at least 50 steps
#   continue_raises_cap  sweep --continue ID --max-hours H reopens a sweep
#                        its cap stopped; a cap not larger, a missing
#                        sweep or store, junk: one line, store unchanged;
#                        `--continue ID` alone judges a decided one again
#   tune_form_estimate   the New sweep form's Time line adds lr=tune's
#                        searches (as planned and at most)
#   cancel_stops_rounds  cancelling a job of an until-conclusive sweep
#                        stops its rounds and says so (CLI and the Queue
#                        screen); --continue goes on
#
# Run from the repository root by tests/run.sh; prints PASS/FAIL lines.
. "$(dirname "$0")/../harness.sh"
cd "$T" || exit 2

SPEC="arch=attention data=builtin:markov d=32 layers=1 heads=2 n_ctx=16 batch=4 steps=300 warmup=10"
$MB sweep "$SPEC lr=tune tune_lr=1e-6..1 tune_points=3 tune_share=0.5" --db t.db >"$T/sweep.out" 2>&1
$MB worker --db t.db --jobs 2 --threads 1 >/dev/null 2>&1
tuned=$(q t.db "select lr || ' ' || trials from tuned_lrs")
trials=$(q t.db "select count(*) from runs where role = 'lr-search'")
seed=$(q t.db "select json_extract(config_json, '\$.lr') || ' ' || status from runs where role is null")
in_results=$(q t.db "select count(*) || ' ' || min(run_id) from sweep_results")
same=$(q t.db "select a.loss = b.loss from evals a join evals b on a.split = b.split and a.step = b.step
               join runs ra on ra.id = a.run_id join runs rb on rb.id = b.run_id
               where ra.role = 'lr-search' and rb.role is null and a.split = 'test'
                 and CAST(json_extract(ra.config_json, '\$.lr') AS REAL) = 0.001")
if [ "$tuned" = "0.001 3" ] && [ "$trials" = 3 ] && [ "$seed" = "0.001 done" ] && [ "$in_results" = "1 4" ] &&
   [ "$same" = 1 ] && grep -q "lr=tune: each point first searches 3 learning rates" "$T/sweep.out"; then
  pass tune_picks_best
else
  fail tune_picks_best "tuned '$tuned' trials $trials seed '$seed' results '$in_results' same '$same'"
fi

# the first rung is at least 50 steps and 5 warm-ups: 1/8 of 80 steps would
# rank the rates while they still warm up
$MB sweep "arch=attention data=builtin:markov d=32 layers=1 heads=2 n_ctx=16 batch=4 steps=80 warmup=10 lr=tune" \
  --db rung.db >"$T/rung.out" 2>&1
rung=$(q rung.db "select group_concat(distinct json_extract(config_json, '\$.steps')) from runs where role = 'lr-search'")
if [ "$rung" = 50 ] && grep -q "successive halving from 0.625 of its budget, at least 50 steps" "$T/rung.out"; then
  pass tune_first_rung
else
  fail tune_first_rung "trial steps '$rung': $(grep lr=tune "$T/rung.out")"
fi

SOCK=ad$$   # the harness kills its tmux server on exit
tmux -L "$SOCK" new-session -d -x 220 -y 30 "cd $T && $MB --db t.db --jobs 0"
sleep 1
tmux -L "$SOCK" send-keys Home
sleep 0.3
shown=$(tmux -L "$SOCK" capture-pane -p)
tmux -L "$SOCK" kill-server 2>/dev/null
if echo "$shown" | grep -q "lr-search trial: lr 1e-06" && echo "$shown" | grep -q "lr tuned per architecture: attention 0.001"; then
  pass tune_runs_screen
else
  fail tune_runs_screen "$shown"
fi

ok=1; bad=""
for args in "completion --until-conclusive --max-hours 0" "completion --until-conclusive --max-hours lots" \
            "completion --max-hours 2" "arch=mixer steps=10 --until-conclusive" \
            "arch=mixer steps=10 lr=tune decay=cosine" "arch=mixer steps=10 lr=tune tune_points=1"; do
  $MB sweep $args --db r.db >"$T/out" 2>"$T/err"; rc=$?
  if [ $rc -eq 0 ] || ! one_line "$T/err" || [ -e r.db ]; then ok=0; bad="$bad [$args: rc $rc $(cat "$T/err")]"; fi
done
[ $ok = 1 ] && pass adaptive_refused || fail adaptive_refused "$bad"

# --continue: a sweep its cap stopped (made so by hand: its jobs stay queued)
# gets a larger cap and goes on; bad input is one line and leaves the store
$MB sweep recall --until-conclusive --max-hours 0.5 --db c.db >/dev/null 2>&1
q c.db "update sweeps set concluded = 'cap: 0.40 of 0.50 CPU hours spent; the next round needs about 0.20 more'"
ok=1; bad=""
before=$(dump c.db)
for args in "--continue 1 --max-hours 0.5" "--continue 1 --max-hours 0.2" "--continue 9 --max-hours 2" \
            "--continue one --max-hours 2" "--continue 1" "--continue 1 --max-hours lots" \
            "--continue 1 --max-hours 2 arch=mixer"; do
  $MB sweep $args --db c.db >"$T/out" 2>"$T/err"; rc=$?
  if [ $rc -eq 0 ] || ! one_line "$T/err"; then ok=0; bad="$bad [$args: rc $rc $(cat "$T/err")]"; fi
done
$MB sweep --continue 1 --max-hours 2 --db nothere.db >"$T/out" 2>"$T/err"; rc=$?
{ [ $rc -ne 0 ] && one_line "$T/err" && [ ! -e nothere.db ]; } || { ok=0; bad="$bad [missing store: $(cat "$T/err")]"; }
[ "$(dump c.db)" = "$before" ] || { ok=0; bad="$bad [a refusal changed the store]"; }
$MB sweep --continue 1 --max-hours 2 --db c.db >"$T/out" 2>&1; rc=$?
state=$(q c.db "select coalesce(concluded, 'going') || ' ' || json_extract(plan_json, '\$.max_hours') from sweeps")
# one that stopped for another reason is judged again under its cap
q c.db "update sweeps set concluded = 'every claim decided'"
$MB sweep --continue 1 --db c.db >"$T/out2" 2>&1 || { ok=0; bad="$bad [decided: $(cat "$T/out2")]"; }
grep -q "judged again under its cap of 2 CPU hours" "$T/out2" || { ok=0; bad="$bad [decided: $(cat "$T/out2")]"; }
if [ $ok = 1 ] && [ $rc = 0 ] && [ "$state" = "going 2" ] && grep -q "cap raised from 0.5 to 2 CPU hours" "$T/out"; then
  pass continue_raises_cap
else
  fail continue_raises_cap "rc $rc state '$state' $(cat "$T/out")$bad"
fi

# cancelling a job of an until-conclusive sweep stops its rounds (the next
# would queue the job's like again) and says so; --continue goes on; a
# sweep without rounds is left alone
$MB sweep recall --until-conclusive --max-hours 0.5 --db x.db >/dev/null 2>&1
$MB sweep recall --db x.db >/dev/null 2>&1
$MB cancel 3 --db x.db >"$T/c1" 2>&1
stopped=$(q x.db "select coalesce(concluded, 'going') from sweeps where id = 1")
$MB cancel "$(q x.db "select min(id) from runs where sweep_id = 2")" --db x.db >"$T/c2" 2>&1
plain=$(q x.db "select coalesce(concluded, 'going') from sweeps where id = 2")
$MB sweep --continue 1 --db x.db >"$T/c3" 2>&1
reopened=$(q x.db "select coalesce(concluded, 'going') from sweeps where id = 1")
if [ "$stopped" = "stopped: run 3 was cancelled by hand (mixbench sweep --continue 1 goes on)" ] &&
   grep -q "^sweep 1: its rounds stop here" "$T/c1" && [ "$plain" = going ] && ! grep -q "rounds" "$T/c2" &&
   [ "$reopened" = going ]; then
  pass cancel_stops_rounds
else
  fail cancel_stops_rounds "stopped '$stopped' plain '$plain' reopened '$reopened' $(cat "$T/c1" "$T/c2" "$T/c3")"
fi

# the Queue screen's x says the same
$MB sweep recall --until-conclusive --max-hours 0.5 --db qx.db >/dev/null 2>&1
# after DB "KEYS" ...: the workbench's screen after each group of keys in turn (110x40)
after() {
  local db=$1 sock=af$$; shift
  tmux -L "$sock" new-session -d -x 110 -y 40 "cd $T && $MB --db $db --jobs 0"
  sleep 1
  for keys in "$@"; do tmux -L "$sock" send-keys $keys; sleep 0.6; done
  tmux -L "$sock" capture-pane -p
  tmux -L "$sock" kill-server 2>/dev/null
}
shown=$(after qx.db 6 x y)
if echo "$shown" | grep -q "job 1: cancelled; sweep 1's rounds stop (:sweep --continue 1 goes on)" &&
   [ "$(q qx.db "select substr(concluded, 1, 28) from sweeps")" = "stopped: run 1 was cancelled" ]; then
  pass cancel_stops_rounds_screen
else
  fail cancel_stops_rounds_screen "$shown"
fi

# the New sweep form's Time line counts lr=tune's searches (typed as an extra key):
# the preset list's last but one (recall; long-context, a study since, is last), then Extra
form=$(after tuneform.db 7 "Enter End Up Enter" "Down Enter lr=tune Enter")
if echo "$form" | grep -q "lr=tune's search ~[0-9].* more, up to ~[0-9]"; then
  pass tune_form_estimate
else
  fail tune_form_estimate "$form"
fi

# the New sweep form's checkbox and cap (recall: built-in data, no corpora needed)
SOCK=ns$$
tmux -L "$SOCK" new-session -d -x 110 -y 40 "cd $T && $MB --db form.db --jobs 0"
sleep 1
tmux -L "$SOCK" send-keys 7
sleep 0.3
tmux -L "$SOCK" send-keys Enter End Up Enter   # the preset list: recall, the last but one
sleep 0.3
for k in Down Down Down; do tmux -L "$SOCK" send-keys $k; sleep 0.05; done   # Extra, Priority, Conclusive (recall's corpora are an axis: no Dataset)
tmux -L "$SOCK" send-keys Enter                # [x] until conclusive
sleep 0.3
tmux -L "$SOCK" send-keys Down Enter C-u 1.5 Enter
sleep 0.3
form=$(tmux -L "$SOCK" capture-pane -p)
tmux -L "$SOCK" send-keys Down Enter
sleep 0.3
tmux -L "$SOCK" send-keys y                    # "Queue 495 jobs? [y/N]": recall is a large sweep
# recall's 495 jobs take a while to queue
for i in $(seq 1 100); do
  [ "$(q form.db "select count(*) from sweeps" 2>/dev/null)" = 1 ] && [ -n "$(q form.db "select 1 from runs limit 1")" ] && break
  sleep 0.2
done
sleep 0.5
tmux -L "$SOCK" kill-server 2>/dev/null
plan=$(q form.db "select json_extract(plan_json, '\$.until_conclusive') || ' ' || json_extract(plan_json, '\$.max_hours') || ' ' || name from sweeps")
if echo "$form" | grep -q "\[x\] until every claim is decided" && echo "$form" | grep -q -- "--until-conclusive --max-hours 1.5" &&
   [ "$plan" = "1 1.5 recall" ] && [ "$(q form.db "select count(*) from runs where json_extract(config_json, '\$.decay') = 'wsd'")" -gt 0 ]; then
  pass until_conclusive_form
else
  fail until_conclusive_form "plan '$plan': $form"
fi
