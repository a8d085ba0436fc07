#!/usr/bin/env bash
# tests/experiments/test_crash_loop.sh — a worker killed with SIGKILL at random instants,
# relaunched after each kill, over a two-job sweep that checkpoints every
# few steps: after every kill the store passes integrity_check and still
# holds every metric row committed before it; at the end every step of
# every job has its row, and the jobs' per-step train losses and final
# valid / test losses equal, bit for bit, those of the same sweep run by an
# undisturbed worker (same --jobs, same threads).  It prints how many kills
# it did.  MIXBENCH_CRASH_KILLS sets the number of kills: 15 in `make test`,
# `MIXBENCH_CRASH_KILLS=100 bash tests/experiments/test_crash_loop.sh` for the full one.
set -u
. "$(dirname "$0")/../harness.sh"
Q_TIMEOUT=10000
KILLS=${MIXBENCH_CRASH_KILLS:-15}

# 400 steps per kill: the sweep outlasts the kills (a job trains ~450 steps/s
# here; a round trains at most 0.4 s, ~90 steps a job on average, before it is
# killed, and replays a few steps from its checkpoint).  At 150 steps per kill
# a CI run once finished the sweep one kill early.
STEPS=$((KILLS * 400))
[ $STEPS -lt 600 ] && STEPS=600
TINY="data=builtin:stories d=32 heads=2 n_ctx=16 batch=8 log_every=100000 warmup=5 layers=1"
SPEC="arch=attention,mixer steps=$STEPS ckpt_every=7 eval_every=0 seed=11 threads=1 $TINY"
DB=$T/crash.db
REF=$T/undisturbed.db
start=$(date +%s)
$MB sweep --db "$DB" $SPEC >/dev/null 2>&1 && $MB sweep --db "$REF" $SPEC >/dev/null 2>&1 ||
  { fail crash_loop_setup "sweep refused: $($MB sweep --db "$T/x.db" $SPEC 2>&1 | tail -1)"; exit 0; }
$MB worker --db "$REF" --jobs 2 >"$T/ref.out" 2>&1 ||
  { fail crash_loop_setup "undisturbed worker: $(tail -1 "$T/ref.out")"; exit 0; }

rows() { q "$DB" "select run_id || ':' || step from metrics order by 1"; }
kills=0; rounds=0; training=0; bad_integrity=0; lost=0; first_lost=""
: >"$T/before"
while [ $kills -lt "$KILLS" ] && [ $rounds -lt $((KILLS * 3)) ]; do
  rounds=$((rounds + 1))
  done_before=$(q "$DB" "select sum(steps_done) from runs")
  $MB worker --db "$DB" --jobs 2 >>"$T/worker.out" 2>&1 &
  wpid=$!
  if [ $((rounds % 4)) = 1 ]; then
    # one kill in four at a random instant 0.01 .. 0.40 s after the launch:
    # startup, recovery of the dead worker's jobs, claims
    sleep "$(printf '0.%02d' $((RANDOM % 40 + 1)))"
  else
    # the others at a random instant 0 .. 0.40 s after the jobs trained
    # again (steps, metric flushes, checkpoints every 7 steps)
    for _ in $(seq 200); do
      [ "$(q "$DB" "select sum(steps_done) from runs")" -gt "$done_before" ] 2>/dev/null && break
      kill -0 $wpid 2>/dev/null || break
      sleep 0.05
    done
    sleep "$(printf '0.%02d' $((RANDOM % 41)))"
  fi
  if kill -0 $wpid 2>/dev/null && kill -9 $wpid 2>/dev/null; then
    kills=$((kills + 1))
    [ $((rounds % 4)) = 1 ] || training=$((training + 1))
  fi
  wait $wpid 2>/dev/null
  ic=$(q "$DB" 'pragma integrity_check')
  [ "$ic" = ok ] || { bad_integrity=$((bad_integrity + 1)); echo "  integrity after kill $kills: $ic"; }
  rows >"$T/after"
  gone=$(comm -23 "$T/before" "$T/after" | wc -l)
  if [ "$gone" -gt 0 ]; then
    lost=$((lost + gone))
    [ -n "$first_lost" ] || first_lost="after kill $kills: $(comm -23 "$T/before" "$T/after" | head -3 | tr '\n' ' ')"
  fi
  mv "$T/after" "$T/before"
  [ "$(q "$DB" "select count(*) from runs where status <> 'done'")" = 0 ] && break
done
reached=$(q "$DB" "select group_concat(steps_done) from (select steps_done from runs order by id)")
$MB worker --db "$DB" --jobs 2 >>"$T/worker.out" 2>&1
elapsed=$(( $(date +%s) - start ))
echo "  $kills kills in $rounds rounds ($training of them while jobs trained; jobs at steps $reached of $STEPS when the kills ended), ${elapsed}s"

[ $kills -ge "$KILLS" ] && pass "crash_loop_kills($kills)" ||
  fail crash_loop_kills "only $kills of $KILLS kills: the sweep ended first ($rounds rounds)"
[ $bad_integrity -eq 0 ] && pass crash_loop_integrity_every_kill ||
  fail crash_loop_integrity_every_kill "$bad_integrity kills left a store failing integrity_check"
[ $lost -eq 0 ] && pass crash_loop_no_committed_row_lost ||
  fail crash_loop_no_committed_row_lost "$lost metric rows vanished, first $first_lost"
s=$(q "$DB" "select group_concat(status) from (select status from runs order by id)")
[ "$s" = "done,done" ] && pass crash_loop_jobs_done || fail crash_loop_jobs_done "statuses $s $(tail -2 "$T/worker.out")"
per_job="select run_id || ' ' || count(*) || ' ' || min(step) || ' ' || max(step) from metrics group by run_id order by run_id"
got=$(q "$DB" "$per_job" | tr '\n' ,)
[ "$got" = "1 $STEPS 1 $STEPS,2 $STEPS 1 $STEPS," ] && pass crash_loop_every_step_has_its_row ||
  fail crash_loop_every_step_has_its_row "run rows first last: $got (want $STEPS rows 1..$STEPS each)"
finals="select arch || ' ' || printf('%.17g %.17g %.17g', valid_loss, test_loss, train_loss) from results order by arch"
a=$(q "$DB" "$finals" | tr '\n' ,); b=$(q "$REF" "$finals" | tr '\n' ,)
[ -n "$b" ] && [ "$a" = "$b" ] && pass crash_loop_same_final_numbers ||
  fail crash_loop_same_final_numbers "killed: $a undisturbed: $b"
curve="select run_id || ' ' || step || ' ' || printf('%.17g', train_loss) from metrics order by run_id, step"
q "$DB" "$curve" >"$T/curve.killed"; q "$REF" "$curve" >"$T/curve.ref"
if cmp -s "$T/curve.killed" "$T/curve.ref"; then pass crash_loop_same_train_losses
else fail crash_loop_same_train_losses "first difference: $(diff "$T/curve.killed" "$T/curve.ref" | head -3 | tr '\n' ' ')"; fi
n_ck=$(q "$DB" "select count(*) from checkpoints"); missing=0
for ck in $(q "$DB" "select path from checkpoints"); do [ -s "$ck" ] || missing=$((missing + 1)); done
[ $missing -eq 0 ] && pass crash_loop_checkpoints_exist || fail crash_loop_checkpoints_exist "$missing of $n_ck named checkpoints missing"
