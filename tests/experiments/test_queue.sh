#!/usr/bin/env bash
# tests/experiments/test_queue.sh — the experiment engine end to end through the CLI:
# sweeps expand and refuse bad specs, a two-worker queue runs a sweep to
# completion with sweep_results matching its jobs, jobs run side by side
# reach the numbers they reach alone, pause / resume / cancel work on queued
# and running jobs, a queue survives a restart, and a worker killed with
# SIGKILL again and again leaves a consistent store and loadable checkpoints,
# and its jobs finish with the numbers of an undisturbed run.
set -u
. "$(dirname "$0")/../harness.sh"

TINY="data=builtin:stories d=32 heads=2 n_ctx=16 batch=8 log_every=1000 warmup=5 layers=1"
GRIDTINY="data=builtin:stories d=32 n_ctx=16 batch=8 log_every=1000 warmup=5"

# --- expansion and refusal (a sweep is queued whole or not at all)
out=$($MB sweep --dry-run --db "$T/none.db" layers=1,2 heads=1,2 arch=attention,mixer steps=5 $GRIDTINY 2>&1)
echo "$out" | grep -q "8 jobs" && pass sweep_dry_run_count || fail sweep_dry_run_count "$out"
[ ! -e "$T/none.db" ] && pass dry_run_creates_nothing || fail dry_run_creates_nothing "store created"
out=$($MB sweep --dry-run "(layers,heads)=(1,1),(1,2),(2,2)" arch=attention steps=5 $GRIDTINY 2>&1)
echo "$out" | grep -q "3 jobs" && pass sweep_zipped || fail sweep_zipped "$out"
for bad in "lyers=1,2" "layers=" "(layers,heads)=(1,1),(2)" "layers=two" "arch=fft task=clm"; do
  $MB sweep --db "$T/bad.db" $bad steps=5 $TINY >"$T/out" 2>"$T/err"; rc=$?
  n=$( [ -e "$T/bad.db" ] && q "$T/bad.db" "select count(*) from runs" || echo 0)
  if [ $rc -ne 0 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && [ "$n" = 0 ]; then pass "bad_spec[$bad]"
  else fail "bad_spec[$bad]" "rc=$rc queued=$n err=$(cat "$T/err")"; fi
done

# a storage error half-way through queueing (a trigger refuses the third
# job) queues nothing: one error line, no sweep, no job; without the
# trigger the same sweep queues whole
A=$T/atomic.db
$MB sweep --db "$A" seed=1 steps=5 $TINY >/dev/null 2>&1
q "$A" "create trigger refuse_third before insert on runs when (select count(*) from runs) >= 3
        begin select raise(abort, 'injected failure'); end"
$MB sweep --db "$A" seed=1,2,3,4 steps=5 $TINY >"$T/out" 2>"$T/err"; rc=$?
s=$(q "$A" "select (select count(*) from sweeps) || ' ' || (select count(*) from runs)")
[ $rc -ne 0 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "injected failure" "$T/err" && [ "$s" = "1 1" ] &&
  pass sweep_all_or_nothing || fail sweep_all_or_nothing "rc=$rc sweeps/runs=$s err=$(cat "$T/err")"
q "$A" "drop trigger refuse_third"
$MB sweep --db "$A" seed=1,2,3,4 steps=5 $TINY >/dev/null 2>&1
s=$(q "$A" "select (select count(*) from sweeps) || ' ' || (select count(*) from runs)")
[ "$s" = "2 5" ] && pass sweep_queues_whole || fail sweep_queues_whole "sweeps/runs=$s"

# --- a sweep through two workers; side by side = alone
DB=$T/q.db
$MB sweep --db "$DB" arch=attention,mixer steps=40 seed=3 $TINY >/dev/null 2>&1
n=$(q "$DB" "select count(*) from runs where status='queued'")
[ "$n" = 2 ] && pass sweep_queued || fail sweep_queued "queued=$n"
$MB queue --db "$DB" | grep -q attention && pass queue_lists || fail queue_lists "queue output"
$MB worker --db "$DB" --jobs 2 --threads 2 >"$T/w.out" 2>&1
done_n=$(q "$DB" "select count(*) from runs where status='done'")
sr=$(q "$DB" "select count(*) from sweep_results")
[ "$done_n" = 2 ] && [ "$sr" = 2 ] && pass sweep_runs_to_completion || fail sweep_runs_to_completion "done=$done_n sweep_results=$sr $(cat "$T/w.out")"
for arch in attention mixer; do
  together=$(q "$DB" "select printf('%.17g', test_loss) from results where arch='$arch'")
  $MB run --db "$T/alone.db" --quiet --arch $arch --steps 40 seed=3 threads=1 $TINY >/dev/null 2>&1
  alone=$(q "$T/alone.db" "select printf('%.17g', test_loss) from results where arch='$arch'")
  [ -n "$alone" ] && [ "$together" = "$alone" ] && pass "side_by_side_equals_alone[$arch]" \
    || fail "side_by_side_equals_alone[$arch]" "together=$together alone=$alone"
done

# --- control: queued jobs
DB=$T/c.db
$MB sweep --db "$DB" seed=1,2,3 steps=30 $TINY >/dev/null 2>&1
$MB pause 1 --db "$DB" >/dev/null && $MB cancel 2 --db "$DB" >/dev/null
s=$(q "$DB" "select group_concat(status) from (select status from runs order by id)")
[ "$s" = "paused,cancelled,queued" ] && pass pause_cancel_queued || fail pause_cancel_queued "$s"
$MB pause 99 --db "$DB" >/dev/null 2>"$T/err"; [ $? -ne 0 ] && [ "$(wc -l <"$T/err")" = 1 ] && pass pause_unknown_run || fail pause_unknown_run "$(cat "$T/err")"
# a queue survives a restart of everything: nothing runs until a worker comes
s2=$(q "$DB" "select group_concat(status) from (select status from runs order by id)")
[ "$s2" = "$s" ] && pass queue_survives || fail queue_survives "$s2"
$MB resume 1 --db "$DB" >/dev/null
$MB worker --db "$DB" --jobs 1 >/dev/null 2>&1
s=$(q "$DB" "select group_concat(status) from (select status from runs order by id)")
[ "$s" = "done,cancelled,done" ] && pass resume_then_worker || fail resume_then_worker "$s"
$MB cancel 1 --db "$DB" >/dev/null 2>"$T/err"; [ $? -ne 0 ] && grep -q "done" "$T/err" && pass cancel_done_refused || fail cancel_done_refused "$(cat "$T/err")"

# --- control: a running job pauses with a checkpoint, resumes to the same numbers
DB=$T/p.db
LONG="steps=4000 ckpt_every=50 seed=5 threads=1 $TINY"
pause_midway "$DB" $LONG
st=$(q "$DB" "select status from runs where id=1"); ck=$(q "$DB" "select resume_ckpt from runs where id=1")
[ "$st" = paused ] && [ -s "$ck" ] && pass pause_running || fail pause_running "status=$st ckpt=$ck $(tail -2 "$T/pw.out")"
$MB resume 1 --db "$DB" >/dev/null && $MB worker --db "$DB" --jobs 1 >/dev/null 2>&1
$MB run --db "$T/ref.db" --quiet --arch attention $LONG >/dev/null 2>&1
a=$(q "$DB" "select printf('%.17g', test_loss) from results where id=1"); b=$(q "$T/ref.db" "select printf('%.17g', test_loss) from results")
[ -n "$a" ] && [ "$a" = "$b" ] && pass pause_resume_same_numbers || fail pause_resume_same_numbers "paused+resumed $a, undisturbed $b"

# --- kill -9 at random points, many times
DB=$T/k.db
SPEC="arch=attention,mixer steps=3000 ckpt_every=100 seed=7 threads=1 $TINY"
$MB sweep --db "$DB" $SPEC >/dev/null 2>&1
$MB sweep --db "$T/undisturbed.db" $SPEC >/dev/null 2>&1
$MB worker --db "$T/undisturbed.db" --jobs 2 >/dev/null 2>&1
kills=0; lost=0; badck=0; prev_metrics=0
for round in $(seq 15); do
  $MB worker --db "$DB" --jobs 2 >/dev/null 2>&1 &
  wpid=$!
  sleep "0.$((RANDOM % 9 + 1))"
  if kill -0 $wpid 2>/dev/null; then kill -9 $wpid; kills=$((kills + 1)); fi
  wait $wpid 2>/dev/null
  [ "$(q "$DB" 'pragma integrity_check')" = ok ] || lost=$((lost + 1000))
  m=$(q "$DB" "select count(*) from metrics")
  [ "$m" -ge "$prev_metrics" ] || lost=$((lost + 1)); prev_metrics=$m
  for ck in $(q "$DB" "select path from checkpoints"); do
    $MB eval --ckpt "$ck" --data builtin:stories --split valid >/dev/null 2>&1 || badck=$((badck + 1))
  done
  [ "$(q "$DB" "select count(*) from runs where status in ('queued','running','interrupted')")" = 0 ] && break
done
$MB worker --db "$DB" --jobs 2 >/dev/null 2>&1
[ $lost -eq 0 ] && pass kill9_store_consistent || fail kill9_store_consistent "integrity/metric losses: $lost after $kills kills"
[ $badck -eq 0 ] && pass kill9_checkpoints_load || fail kill9_checkpoints_load "$badck checkpoints did not load"
a=$(q "$DB" "select group_concat(printf('%.17g', test_loss)) from (select test_loss from results order by arch)")
b=$(q "$T/undisturbed.db" "select group_concat(printf('%.17g', test_loss)) from (select test_loss from results order by arch)")
[ -n "$b" ] && [ "$a" = "$b" ] && [ $kills -ge 3 ] && pass "kill9_same_final_numbers($kills kills)" || fail kill9_same_final_numbers "killed: $a undisturbed: $b ($kills kills)"

# --- export
$MB export --db "$T/q.db" --csv >"$T/r.csv" 2>&1 && [ "$(wc -l <"$T/r.csv")" = 3 ] && head -1 "$T/r.csv" | grep -q cfg_layers \
  && pass export_csv || fail export_csv "$(head -2 "$T/r.csv")"
$MB export --db "$T/q.db" --json --sweep 1 >"$T/r.json" 2>&1 \
  && [ "$(sqlite3 :memory: "select json_array_length(readfile('$T/r.json'))")" = 2 ] \
  && pass export_json || fail export_json "$(head -c 300 "$T/r.json")"
# the JSON keeps SQLite's types: numbers as numbers, NULL as null, text as strings
python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))
r = rows[0]
assert isinstance(r["test_loss"], float) and isinstance(r["id"], int) and isinstance(r["steps_done"], int), r
assert isinstance(r["arch"], str) and r["name"] is None and r["valid_loss_all"] is None, r
curve = json.load(open(sys.argv[2]))[0]
assert isinstance(curve["train_loss"], float) and isinstance(curve["step"], int), curve
' "$T/r.json" <($MB export --db "$T/q.db" --json --curves) 2>"$T/err" \
  && pass export_json_types || fail export_json_types "$(tail -1 "$T/err")"
