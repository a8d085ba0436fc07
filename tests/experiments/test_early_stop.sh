#!/usr/bin/env bash
# tests/experiments/test_early_stop.sh — the two early stops of a run
# (experiments/job.c step_evaluate): stop_accuracy=A ends a run done at the
# first evaluation whose valid accuracy reaches A (a solved recall job),
# patience=P after P evaluations without a better valid loss.  A stopped run
# is finished as one that used its budget: final valid and test evaluations
# at the step it stopped, a model checkpoint, the reason in runs.error.  A
# value out of range, or either key without evaluations (eval_every=0), is
# refused in one line and stores nothing.  `extend` refuses a decay=wsd run
# stopped early before its cool-down; a sweep's estimate says it is of the
# full budgets.  The workbench (tmux): the Runs
# screen's line for the stopped run and its Run screen say why.
set -u
. "$(dirname "$0")/../harness.sh"
TINY="--arch attention --data builtin:stories d=16 layers=1 heads=2 n_ctx=16 batch=4 eval_tokens=256 --threads 1"
DB="$T/e.db"

# --- a. the full budget with an evaluation every 5 steps: the accuracies a
# stop is chosen from (same seed, same threads: the same numbers)
$MB run --db "$DB" $TINY steps=60 eval_every=5 stop_accuracy=1 >"$T/a.out" 2>&1
row=$(q "$DB" "select status, steps_done, coalesce(error, '-') from runs where id = 1")
[ "$row" = "done|60|-" ] && pass stop_accuracy_unreached_runs_budget || fail stop_accuracy_unreached_runs_budget "$row $(tail -2 "$T/a.out")"

# the first evaluation whose accuracy is above every earlier one's, past the first
read -r step acc < <(q "$DB" "select e.step, printf('%.17g', e.accuracy) from evals e where e.run_id = 1 and
  e.split = 'valid' and e.step > 5 and e.step < 60 and e.accuracy > (select max(p.accuracy) from evals p
  where p.run_id = 1 and p.split = 'valid' and p.step < e.step) order by e.step limit 1" | tr '|' ' ')
if [ -z "${step:-}" ]; then
  fail stop_accuracy_first_reaching "no valid evaluation rose above the ones before it: $(q "$DB" "select step, accuracy from evals where run_id = 1")"
else
  # --- b. the same run asked to stop at that accuracy stops there, done
  $MB run --db "$DB" $TINY steps=60 eval_every=5 stop_accuracy="$acc" >"$T/b.out" 2>&1
  row=$(q "$DB" "select status, steps_done, total_steps from runs where id = 2")
  [ "$row" = "done|$step|60" ] && pass stop_accuracy_first_reaching || fail stop_accuracy_first_reaching "want done|$step|60, got $row"
  q "$DB" "select error from runs where id = 2" | grep -q "^solved at step $step: valid accuracy .* reached stop_accuracy=" &&
    pass stop_accuracy_reason || fail stop_accuracy_reason "$(q "$DB" "select error from runs where id = 2")"
  grep -q "solved at step $step" "$T/b.out" && pass stop_accuracy_printed || fail stop_accuracy_printed "$(cat "$T/b.out")"
  $MB show 2 --db "$DB" 2>&1 | grep -q "^  stopped: solved at step $step: " && pass stop_accuracy_show ||
    fail stop_accuracy_show "$($MB show 2 --db "$DB" 2>&1 | head -8)"
  # finished as a run that used its budget: test evaluated at that step, a model checkpoint
  n=$(q "$DB" "select (select count(*) from evals where run_id = 2 and split = 'test' and step = $step) ||
    (select count(*) from checkpoints where run_id = 2)")
  [ "$n" = 11 ] && pass stop_accuracy_finished || fail stop_accuracy_finished "test evals at $step, checkpoints: $n"
  # the steps before the stop are the undisturbed run's, bit for bit
  d=$(q "$DB" "select count(*) from metrics a join metrics b on a.step = b.step where a.run_id = 1 and b.run_id = 2
    and a.train_loss is not b.train_loss")
  [ "$d" = 0 ] && pass stop_accuracy_same_steps || fail stop_accuracy_same_steps "$d steps differ"
fi

# --- c. patience: at lr 0 the valid loss never improves, so patience=2
# stops at the third evaluation (step 15)
$MB run --db "$DB" $TINY steps=60 eval_every=5 lr=0 patience=2 >"$T/c.out" 2>&1
row=$(q "$DB" "select status, steps_done from runs where id = 3")
[ "$row" = "done|15" ] && pass patience_stops || fail patience_stops "$row $(tail -2 "$T/c.out")"
q "$DB" "select error from runs where id = 3" | grep -q "^early stop at step 15: valid loss did not improve for 2 evaluations" &&
  pass patience_reason || fail patience_reason "$(q "$DB" "select error from runs where id = 3")"

# --- d. refusals, one line each, nothing stored
before=$(dump "$DB")
for bad in "stop_accuracy=1.5:out of range" "stop_accuracy=-0.1:out of range" \
  "stop_accuracy=0.9 eval_every=0:stop_accuracy stops a run on its evaluations" \
  "patience=3 eval_every=0:patience stops a run on its evaluations"; do
  args=${bad%%:*}
  want=${bad#*:}
  name=refuse_$(echo "$args" | tr ' =.' '___')
  if $MB run --db "$DB" $TINY steps=10 $args >"$T/r.out" 2>"$T/r.err"; then
    fail "$name" "accepted"
  elif one_line "$T/r.err" && grep -q "$want" "$T/r.err"; then
    pass "$name"
  else
    fail "$name" "$(cat "$T/r.err")"
  fi
done
[ "$(dump "$DB")" = "$before" ] && pass refusals_store_nothing || fail refusals_store_nothing "the store changed"

# --- e. extend (decay=wsd) refuses a run stopped early before its cool-down:
# a larger budget keeps those steps, so the same rule would stop it there
$MB run --db "$DB" $TINY steps=60 eval_every=5 decay=wsd stop_accuracy=0.0001 >/dev/null 2>&1
id=$(q "$DB" "select max(id) from runs")
if [ "$(q "$DB" "select status = 'done' and steps_done < 48 from runs where id = $id")" != 1 ]; then
  fail extend_refuses_stopped "run $id did not stop before its cool-down: $(q "$DB" "select status, steps_done from runs where id = $id")"
else
  before=$(dump "$DB")
  if $MB extend "$id" steps=120 --db "$DB" >"$T/x.out" 2>"$T/x.err"; then
    fail extend_refuses_stopped "extended: $(cat "$T/x.out")"
  elif one_line "$T/x.err" && grep -q "stopped early at step [0-9]* of 60, before its cool-down (solved at step" "$T/x.err" &&
    [ "$(dump "$DB")" = "$before" ]; then
    pass extend_refuses_stopped
  else
    fail extend_refuses_stopped "$(cat "$T/x.err")"
  fi
fi

# --- f. a sweep's estimate says it is of the full budgets when its jobs stop early
SW="arch=attention,cumsum data=builtin:stories d=16 layers=1 heads=2 n_ctx=16 batch=4 steps=50"
$MB sweep $SW stop_accuracy=0.9 --dry-run --db "$T/s.db" 2>&1 | grep -q "^early stops: 2 of 2 jobs end once solved" &&
  ! $MB sweep $SW --dry-run --db "$T/s.db" 2>&1 | grep -q "^early stops" &&
  pass sweep_estimate_names_early_stops || fail sweep_estimate_names_early_stops "$($MB sweep $SW stop_accuracy=0.9 --dry-run --db "$T/s.db" 2>&1 | tail -3)"

# --- g. the workbench: the Runs screen's line for the stopped run and its
# Run screen say why it stopped (as a done run's reason, not an error)
if [ -n "${step:-}" ]; then
  ui_setup mbstop
  launch A "$DB" C.UTF-8
  wait_for A 10 "Runs" || fail ui_launch "$(screen A)"
  TM send-keys -t A Down
  check ui_runs_line_says_solved A 5 "^ run 2 solved at step $step: valid accuracy"
  TM send-keys -t A Enter
  check ui_run_screen_says_solved A 5 "^ solved at step $step: valid accuracy .* reached stop_accuracy="
fi
