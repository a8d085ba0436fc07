#!/usr/bin/env bash
# tests/experiments/test_mpi_worker.sh — `mpirun -np N mixbench worker`, the sweep over
# MPI ranks (experiments/mpi_sweep.c), end to end through the CLI: a 6-job
# sweep over 3 ranks completes with every record and checkpoint on rank 0's
# side and an intact store; it reaches the numbers of a plain local worker
# bit for bit; a training rank killed with SIGKILL ends the launch, and the
# next launch resumes every job to the same numbers with no metric step
# missing; SIGUSR1 on mpirun stops the sweep with its jobs checkpointed and
# queued again; and bad starts (no store, a store in a missing folder, ranks
# running different binaries, --jobs) are refused by rank 0 in one line,
# every rank non-zero, the store unchanged.  Skipped without mpirun.
set -u
. "$(dirname "$0")/../harness.sh"
mpi_setup test_mpi_worker

TINY="data=builtin:stories d=32 heads=2 n_ctx=16 batch=8 log_every=1000 warmup=5 layers=1"
SPEC="arch=attention,mixer seed=1,2,3 steps=300 ckpt_every=40 $TINY"
# valid and test loss of every job, every bit, in run order
finals() { q "$1" "select group_concat(printf('%.17g %.17g', valid_loss, test_loss), ' | ')
                   from (select valid_loss, test_loss from results order by id)"; }

# --- a. a 6-job sweep over 3 ranks (rank 0 serves, 2 train)
mkdir "$T/a"
DB=$T/a/s.db
$MB sweep --db "$DB" $SPEC >/dev/null 2>&1
cp "$DB" "$T/queued.db"
$MPIRUN --tag-output -np 3 "$MB" worker --db "$DB" --threads 1 >"$T/a.out" 2>&1; rc=$?
s=$(q "$DB" "select group_concat(status) from (select status from runs order by id)")
[ $rc -eq 0 ] && [ "$s" = "done,done,done,done,done,done" ] && pass mpi_sweep_completes \
  || fail mpi_sweep_completes "rc=$rc statuses=$s $(tail -3 "$T/a.out")"
n_done=$(grep -c '^\[1,0\]<stdout>:run [0-9]* done$' "$T/a.out")
others=$(grep -c '^\[1,[12]\]' "$T/a.out")
grep -q '^\[1,0\]<stdout>:worker: 6 jobs ended; the queue is empty' "$T/a.out" && [ "$n_done" = 6 ] && [ "$others" = 0 ] \
  && pass mpi_sweep_rank0_prints || fail mpi_sweep_rank0_prints "done lines=$n_done lines of ranks>0=$others $(head -c 600 "$T/a.out")"
m=$(q "$DB" "select count(*) from runs where (select count(distinct step) from metrics where run_id=runs.id) = 300
              and (select count(*) from evals where run_id=runs.id and split='test') = 1
              and (select count(*) from evals where run_id=runs.id and split='valid' and step=300) = 1
              and infer_samples_per_s > 0 and threads = 1")
[ "$m" = 6 ] && pass mpi_sweep_records || fail mpi_sweep_records "$m of 6 runs have every metric, eval and inference row"
# one final checkpoint a run, in rank 0's folder beside the store; the
# periodic ones were forgotten and deleted as the jobs went on
ck=$(q "$DB" "select group_concat(path, ' ') from checkpoints")
n_ck=$(q "$DB" "select count(*) from checkpoints where path like '%/a/s.ckpt/run%.safetensors' and step=300")
missing=0; for f in $ck; do [ -s "$f" ] || missing=$((missing + 1)); done
left=$(ls "$T/a/s.ckpt" | wc -l)
[ "$n_ck" = 6 ] && [ $missing -eq 0 ] && [ "$left" = 6 ] && pass mpi_sweep_checkpoints_on_rank0 \
  || fail mpi_sweep_checkpoints_on_rank0 "rows=$n_ck missing=$missing files=$left: $ck"
$MB eval --ckpt "$T/a/s.ckpt/run4.safetensors" --data builtin:stories --split valid >/dev/null 2>&1 \
  && pass mpi_sweep_checkpoint_loads || fail mpi_sweep_checkpoint_loads "run4.safetensors"
[ "$(q "$DB" 'pragma integrity_check')" = ok ] && pass mpi_sweep_integrity || fail mpi_sweep_integrity "not ok"
scratch=$(ls -d "$T"/tmp/mixbench-rank* 2>/dev/null | wc -l)
[ "$scratch" = 0 ] && pass mpi_sweep_scratch_removed || fail mpi_sweep_scratch_removed "$(ls "$T/tmp")"

# --- b. the same queue through a plain local worker: the same numbers
mkdir "$T/b"
cp "$T/queued.db" "$T/b/s.db"
$MB worker --db "$T/b/s.db" --threads 1 --jobs 1 >/dev/null 2>&1
ref=$(finals "$T/b/s.db"); got=$(finals "$DB")
[ -n "$ref" ] && [ "$got" = "$ref" ] && pass mpi_sweep_equals_local_worker \
  || fail mpi_sweep_equals_local_worker "mpi: $got local: $ref"

# --- c. a training rank killed with SIGKILL once both training ranks' jobs
# have a resumable checkpoint recorded (with only one, it may be the other
# rank's job, which can finish before Open MPI ends that rank); the next
# launch finishes every job to the same numbers
mkdir "$T/c"
DB=$T/c/s.db
cp "$T/queued.db" "$DB"
$MPIRUN -np 3 "$MB" worker --db "$DB" --threads 1 >"$T/c1.out" 2>&1 &
mp=$!
# the launch's ranks: their environment names their rank
rank_pid() {
  for p in $(pgrep -f "worker --db $DB"); do
    tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1" && echo "$p"
  done
}
for i in $(seq 300); do
  [ "$(q "$DB" "select count(*) from runs where status='running' and resume_step > 0")" -gt 1 ] 2>/dev/null && break
  sleep 0.05
done
r0=$(rank_pid 0); r1=$(rank_pid 1)
resumable=$(q "$DB" "select count(*) from runs where status='running' and resume_step > 0")
[ -n "$r1" ] && kill -9 "$r1"
wait $mp; rc=$?
# the ranks left behind are ended by Open MPI; the next launch's recovery
# must see rank 0's process gone (not a zombie waiting to be reaped)
for i in $(seq 100); do [ -e "/proc/$r0" ] || break; sleep 0.1; done
interrupted=$(q "$DB" "select count(*) from runs where status in ('running','interrupted') and resume_step > 0
                        and resume_ckpt like '%/c/s.ckpt/%'")
ck_ok=0; for f in $(q "$DB" "select resume_ckpt from runs where status in ('running','interrupted') and resume_step > 0"); do
  [ -s "$f" ] && ck_ok=$((ck_ok + 1)); done
[ -n "$r1" ] && [ $rc -ne 0 ] && [ "$resumable" -ge 1 ] && [ "$interrupted" -ge 1 ] && [ "$ck_ok" = "$interrupted" ] \
  && [ "$(q "$DB" 'pragma integrity_check')" = ok ] && pass "mpi_rank_killed_launch_ends(rc=$rc, $interrupted resumable)" \
  || fail mpi_rank_killed_launch_ends "rank1=$r1 rc=$rc resumable=$resumable interrupted=$interrupted files=$ck_ok"
$MPIRUN -np 3 "$MB" worker --db "$DB" --threads 1 >"$T/c2.out" 2>&1; rc=$?
s=$(q "$DB" "select group_concat(status) from (select status from runs order by id)")
[ $rc -eq 0 ] && [ "$s" = "done,done,done,done,done,done" ] && pass mpi_relaunch_finishes \
  || fail mpi_relaunch_finishes "rc=$rc statuses=$s $(tail -3 "$T/c2.out")"
gaps=$(q "$DB" "select count(*) from runs where (select count(distinct step) || ' ' || min(step) || ' ' || max(step)
                                                   from metrics where run_id=runs.id) != '300 1 300'")
[ "$gaps" = 0 ] && pass mpi_relaunch_no_metric_lost || fail mpi_relaunch_no_metric_lost "$gaps runs miss metric steps"
got=$(finals "$DB")
[ -n "$ref" ] && [ "$got" = "$ref" ] && pass mpi_relaunch_same_numbers \
  || fail mpi_relaunch_same_numbers "killed+relaunched: $got local: $ref"

# --- stopped by SIGUSR1 on mpirun (forwarded to every rank, which mpirun
# leaves running): the running jobs ship a checkpoint and are queued again,
# the next launch finishes them to the same numbers
mkdir "$T/u"
DB=$T/u/s.db
cp "$T/queued.db" "$DB"
$MPIRUN -np 3 "$MB" worker --db "$DB" --threads 1 >"$T/u1.out" 2>&1 &
mp=$!
for i in $(seq 300); do
  [ "$(q "$DB" "select count(*) from runs where status='running' and steps_done > 50")" -gt 0 ] 2>/dev/null && break
  sleep 0.05
done
kill -USR1 $mp
wait $mp; rc=$?
st=$(q "$DB" "select count(*) from runs where status='queued' and resume_step > 0")
bad=$(q "$DB" "select count(*) from runs where status in ('running','interrupted')")
[ $rc -ne 0 ] && [ "$st" -ge 1 ] && [ "$bad" = 0 ] && grep -q "stopped: running jobs checkpointed and queued again" "$T/u1.out" \
  && pass "mpi_usr1_checkpoints_and_queues($st)" || fail mpi_usr1_checkpoints_and_queues "rc=$rc queued with checkpoint=$st running=$bad $(tail -2 "$T/u1.out")"
$MPIRUN -np 3 "$MB" worker --db "$DB" --threads 1 >/dev/null 2>&1
got=$(finals "$DB")
[ -n "$ref" ] && [ "$got" = "$ref" ] && pass mpi_usr1_resume_same_numbers \
  || fail mpi_usr1_resume_same_numbers "stopped+relaunched: $got local: $ref"

# --- d. refusals: one line from rank 0, every rank non-zero, the store unchanged
refused() {   # name, store, mpirun arguments...
  local name=$1 store=$2; shift 2
  local before after
  before=$( [ -e "$store" ] && sqlite3 "$store" .dump | md5sum || echo none)
  "$@" >"$T/d.out" 2>"$T/d.err"; local rc=$?
  after=$( [ -e "$store" ] && sqlite3 "$store" .dump | md5sum || echo none)
  local lines; lines=$(cat "$T/d.out" "$T/d.err" | wc -l)
  if [ $rc -ne 0 ] && [ "$lines" = 1 ] && grep -q '^mixbench: worker: ' "$T/d.err" && [ "$before" = "$after" ]; then
    pass "mpi_refuses[$name]"
  else
    fail "mpi_refuses[$name]" "rc=$rc lines=$lines store changed: $([ "$before" = "$after" ] && echo no || echo yes) $(cat "$T/d.out" "$T/d.err" | head -c 400)"
  fi
}
mkdir "$T/d"
cp "$T/queued.db" "$T/d/s.db"
refused no_store "$T/d/none.db" $MPIRUN -np 3 "$MB" worker --db "$T/d/none.db" --threads 1
refused missing_folder "$T/d/no/such/s.db" $MPIRUN -np 3 "$MB" worker --db "$T/d/no/such/s.db"
refused jobs "$T/d/s.db" $MPIRUN -np 3 "$MB" worker --db "$T/d/s.db" --jobs 2
cp "$MB" "$T/other-mixbench" && printf x >>"$T/other-mixbench"
refused different_binaries "$T/d/s.db" $MPIRUN -np 1 "$MB" worker --db "$T/d/s.db" : -np 2 "$T/other-mixbench" worker --db "$T/d/s.db"
grep -q "rank 1 runs a different mixbench binary" "$T/d.err" && pass mpi_refusal_names_rank \
  || fail mpi_refusal_names_rank "$(cat "$T/d.err")"
[ ! -e "$T/d/none.db" ] && [ ! -e "$T/d/none.ckpt" ] && pass mpi_refusal_creates_nothing \
  || fail mpi_refusal_creates_nothing "$(ls "$T/d")"
