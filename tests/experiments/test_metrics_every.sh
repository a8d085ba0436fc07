#!/usr/bin/env bash
# tests/experiments/test_metrics_every.sh — metrics_every=N (experiments/job.c): a run
# stores the metrics row of every N-th step, each checkpoint's step and the
# last step; a row's train_loss is the mean of the steps since the previous
# row (checked against an every-step run of the same seed), its grad_norm
# their largest, its smoothed loss the step's own; the results view's final
# train loss is the last step's; a run killed with SIGKILL and resumed keeps
# the rule and stores exactly the rows of an undisturbed run; a bad value
# is refused in one line.
set -u
. "$(dirname "$0")/../harness.sh"
TINY="--arch attention --data builtin:stories d=16 layers=1 heads=2 n_ctx=16 batch=4 eval_every=0 eval_tokens=256 --threads 1"

# --- a. 23 steps, a row every 5 and a checkpoint every 7
$MB run --db "$T/a.db" $TINY --steps 23 metrics_every=5 ckpt_every=7 >/dev/null 2>&1
$MB run --db "$T/a.db" $TINY --steps 23 ckpt_every=7 >/dev/null 2>&1
steps=$(q "$T/a.db" "select group_concat(step, ' ') from (select step from metrics where run_id = 1 order by step)")
[ "$steps" = "5 7 10 14 15 20 21 23" ] && pass metrics_every_steps || fail metrics_every_steps "stored steps: $steps"
# each row against the every-step run 2: mean loss, max grad norm, the step's smoothed loss
bad=$(q "$T/a.db" "select count(*) from metrics a where a.run_id = 1 and (
  abs(a.train_loss - (select avg(b.train_loss) from metrics b where b.run_id = 2 and b.step <= a.step and
       b.step > coalesce((select max(c.step) from metrics c where c.run_id = 1 and c.step < a.step), 0))) > 1e-12
  or a.grad_norm != (select max(b.grad_norm) from metrics b where b.run_id = 2 and b.step <= a.step and
       b.step > coalesce((select max(c.step) from metrics c where c.run_id = 1 and c.step < a.step), 0))
  or a.train_loss_smooth != (select b.train_loss_smooth from metrics b where b.run_id = 2 and b.step = a.step)
  or a.tokens != (select b.tokens from metrics b where b.run_id = 2 and b.step = a.step))")
[ "$bad" = 0 ] && pass metrics_every_row_is_window_mean || fail metrics_every_row_is_window_mean "$bad rows differ"
fin=$(q "$T/a.db" "select (select train_loss from results where id = 1) = (select train_loss from results where id = 2)
                    and (select steps_done from results where id = 1) = 23")
[ "$fin" = 1 ] && pass metrics_every_final_train_loss || fail metrics_every_final_train_loss "results differ"
n1=$(q "$T/a.db" "select count(*) from metrics where run_id = 2")
[ "$n1" = 23 ] && pass metrics_every_default_every_step || fail metrics_every_default_every_step "$n1 rows"
# ls and export read the thinned run
$MB ls --db "$T/a.db" >"$T/ls.out" 2>&1 && grep -q "^ *1 " "$T/ls.out" && pass metrics_every_ls || fail metrics_every_ls "$(cat "$T/ls.out")"
$MB export --db "$T/a.db" --csv --curves >"$T/x.csv" 2>"$T/x.err" && [ "$(grep -c '^1,' "$T/x.csv")" -ge 8 ] &&
  pass metrics_every_export ||
  fail metrics_every_export "$(cat "$T/x.err")"

# --- b. a worker killed with SIGKILL and started again: the rows of an undisturbed run
SPEC="arch=attention data=builtin:stories d=16 layers=1 heads=2 n_ctx=16 batch=4 eval_every=0 eval_tokens=256
      threads=1 steps=4000 metrics_every=7 ckpt_every=250"
$MB sweep --db "$T/u.db" $SPEC >/dev/null 2>&1 && $MB worker --db "$T/u.db" >/dev/null 2>&1
$MB sweep --db "$T/k.db" $SPEC >/dev/null 2>&1
$MB worker --db "$T/k.db" >/dev/null 2>&1 &
p=$!
for i in $(seq 400); do
  [ "$(q "$T/k.db" "select coalesce(max(resume_step), 0) from runs" 2>/dev/null)" -ge 500 ] 2>/dev/null && break
  sleep 0.05
done
kill -9 $p 2>/dev/null; wait $p 2>/dev/null
st=$(q "$T/k.db" "select status || ' at ' || resume_step from runs where id = 1")
$MB worker --db "$T/k.db" >/dev/null 2>"$T/r.err"
rows() { q "$1" "select group_concat(step || ':' || printf('%.17g', train_loss) || ':' || printf('%.17g', grad_norm), ' ')
                 from (select * from metrics where run_id = 1 order by step)"; }
u=$(rows "$T/u.db"); k=$(rows "$T/k.db")
ks=$(q "$T/k.db" "select status from runs where id = 1")
[ -n "$u" ] && [ "$u" = "$k" ] && [ "$ks" = done ] && pass "metrics_every_resume_same_rows(killed: $st)" ||
  fail metrics_every_resume_same_rows "killed at '$st', now $ks; $(head -c 300 "$T/r.err"); rows differ: $(diff <(tr ' ' '\n' <<<"$u") <(tr ' ' '\n' <<<"$k") | head -5)"

# --- c. a bad value: one line
$MB run --db "$T/c.db" $TINY --steps 3 metrics_every=0 >"$T/c.out" 2>"$T/c.err"; rc=$?
[ $rc -ne 0 ] && [ "$(wc -l <"$T/c.err")" = 1 ] && grep -q metrics_every "$T/c.err" && [ ! -e "$T/c.db" ] &&
  pass metrics_every_refuses_zero || fail metrics_every_refuses_zero "rc=$rc $(cat "$T/c.err")"
