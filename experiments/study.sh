#!/usr/bin/env bash
# experiments/study.sh — one study run in a store of its own, a few hours at
# a time, across sessions and machines (the zoology and recall studies: tens
# of CPU-hours of one-thread jobs that outlive any one sitting).
#
#   experiments/study.sh STUDY [key=value ...]  queue it (once), then run
#       its queue: $WORKERS workers (default 1), each one job and one thread
#       at nice 19, until the queue is empty; a snapshot every
#       $SNAPSHOT_MINUTES (default 30) and one at the end
#   experiments/study.sh STUDY --save           snapshot the store now
#   experiments/study.sh STUDY --status         its jobs by status, the ones
#       running, the CPU-hours so far and those left (priced by the CPU
#       seconds of finished jobs)
#   experiments/study.sh STUDY --report FILE    its report (`mixbench report
#       --md`) into FILE, its figures in figures/NAME/ beside FILE
#
# STUDY is a built-in study's name (zoology, recall: `mixbench sweep` lists
# them) or a study file (FILE.yaml); NAME is that name, or the file's name
# without .yaml, and names its sweep in the store.  The store is $STUDY_DB
# (default NAME.db here), its snapshot $STUDY_SNAP (default
# experiments/NAME/NAME.db.xz): a `.backup` of the store with the metrics
# thinned to every 25th step, compressed (xz -9), small enough to commit.
# When the store is missing and the snapshot is there, the store comes back
# from it, so the study goes on on a fresh machine.  Checkpoints are not in
# the snapshot: a job that was running when it was taken belongs to a
# process that is gone, and the first worker queues it again (db/owners.c)
# to train from its last checkpoint when that is on this machine, else from
# step 0; so does a job whose worker a session's end killed.
# Run from the repository root.
set -eu
usage() { echo "usage: experiments/study.sh STUDY [key=value ...] | STUDY --save | STUDY --status | STUDY --report FILE" >&2; exit 2; }
[ $# -ge 1 ] || usage
STUDY=$1
shift
NAME=$(basename "$STUDY" .yaml)
case "$NAME" in *[!A-Za-z0-9_.-]* | "") echo "study.sh: '$STUDY' is not a study's name" >&2; exit 2 ;; esac
DB=${STUDY_DB:-$NAME.db}
SNAP=${STUDY_SNAP:-experiments/$NAME/$NAME.db.xz}
MB=${MIXBENCH:-./mixbench}
export MIXBENCH_DATA=${MIXBENCH_DATA:-$(cd .. && pwd)/shared/data}
q() { sqlite3 -cmd ".timeout 10000" "$DB" "$@"; }

snapshot() {
  mkdir -p "$(dirname "$SNAP")"
  local tmp
  tmp=$(mktemp "${TMPDIR:-/tmp}/study-snapshot.XXXXXX")
  q ".backup '$tmp'"
  sqlite3 "$tmp" "delete from metrics where step % 25 != 0; vacuum;"
  xz -9 -T1 -c "$tmp" >"$SNAP.tmp" && mv "$SNAP.tmp" "$SNAP"
  rm -f "$tmp"
  echo "study.sh: snapshot $SNAP ($(du -h "$SNAP" | cut -f1); $(q "select count(*) from runs where status = 'done'") jobs done) at $(date -u +%H:%M)"
}

if [ ! -f "$DB" ] && [ -f "$SNAP" ]; then
  xz -dc "$SNAP" >"$DB"
  echo "study.sh: the store $DB came back from $SNAP"
fi

case "${1:-}" in
  --save)
    [ $# -eq 1 ] || usage
    [ -f "$DB" ] || { echo "study.sh: no store $DB and no snapshot $SNAP" >&2; exit 1; }
    snapshot
    exit 0 ;;
  --status)
    [ $# -eq 1 ] || usage
    [ -f "$DB" ] || { echo "study.sh: no store $DB and no snapshot $SNAP" >&2; exit 1; }
    q "select 'jobs: ' || group_concat(status || ' ' || n, ', ') || printf(' (of %d)', sum(n)) from
         (select status, count(*) n from runs where deleted_at is null group by status order by status)"
    q "select printf('running: job %d, %s d=%s, step %d of %d', id, arch, d, steps_done, total_steps)
         from runs where status = 'running' order by id"
    q "select printf('%.1f CPU-hours of training in the finished jobs', coalesce(sum(coalesce(train_cpu_seconds,
                     wall_seconds * max(coalesce(threads, 1), 1))), 0) / 3600)
         from runs where status = 'done' and deleted_at is null"
    # what is left, in CPU-hours: each job not finished at the mean CPU seconds of the finished
    # jobs of its arch, d and n_ctx (else of all of them), times the share of its steps still to go
    q "with fin as (select arch, d, n_ctx, avg(train_cpu_seconds) c from runs
                     where status = 'done' and train_cpu_seconds > 0 and deleted_at is null group by 1, 2, 3),
            todo as (select arch, d, n_ctx, max(n - steps_done, 0) * 1.0 / n part from
                      (select *, max(coalesce(nullif(total_steps, 0), json_extract(config_json, '\$.steps'), 1), 1) n from runs
                        where status in ('queued', 'running', 'paused') and deleted_at is null))
       select printf('left: ~%.1f CPU-hours on one thread (%d of %d jobs priced by finished jobs of their arch, d and n_ctx; the rest at the mean of all)',
                     sum(coalesce(f.c, (select avg(train_cpu_seconds) from runs where status = 'done' and train_cpu_seconds > 0)) * part) / 3600,
                     count(f.c), count(*))
         from todo t left join fin f using (arch, d, n_ctx)
       having count(*) > 0 and (select count(*) from runs where status = 'done' and train_cpu_seconds > 0) > 0"
    exit 0 ;;
  --report)
    [ $# -eq 2 ] || usage
    [ -f "$DB" ] || { echo "study.sh: no store $DB and no snapshot $SNAP" >&2; exit 1; }
    dir=$(dirname "$2")
    mkdir -p "$dir"
    rm -rf "${dir:?}/figures/$NAME"
    tmp=$(mktemp "$dir/.report.XXXXXX")
    "$MB" report "$NAME" --db "$DB" --md "$tmp" --figures "figures/$NAME" >/dev/null || { rm -f "$tmp"; exit 1; }
    {
      echo "# The $NAME study"
      echo
      echo "Written by \`experiments/study.sh $STUDY --report $2\` on $(date -u +%Y-%m-%d\ %H:%M) UTC from its"
      echo "store (committed as \`$SNAP\`; the section below is \`mixbench report --md\`'s):"
      q "select printf('%d of %d jobs finished, %.1f CPU-hours of training.', sum(status = 'done'), count(*),
                coalesce(sum(case when status = 'done' then coalesce(train_cpu_seconds,
                  wall_seconds * max(coalesce(threads, 1), 1)) end), 0) / 3600) from runs where deleted_at is null"
      if [ "$(q "select count(*) from runs where status in ('queued', 'running', 'paused') and deleted_at is null")" != 0 ]; then
        echo
        echo "**Not finished**: the points, tables and verdicts below are of the runs finished so far (a point"
        echo "or claim without them says so); this file is written again when the study ends."
      fi
      echo
      sed '1{/^# /{N;/\n$/d}}' "$tmp"   # the report's own title and the blank line after it
    } >"$2.tmp"
    rm -f "$tmp"
    mv "$2.tmp" "$2"
    echo "study.sh: wrote $2"
    exit 0 ;;
  --*) usage ;;
esac

# (sqlite3 on a missing file would create it: a refused queue would leave an empty store behind)
if [ ! -s "$DB" ] || [ "$(q "select count(*) from sweeps where name = '$NAME' and deleted_at is null" 2>/dev/null || echo 0)" = 0 ]; then
  # mixbench says in one line why it refuses a study
  queued=$("$MB" sweep "$STUDY" "$@" --db "$DB") || exit 1
  echo "$queued" | grep -E '^(sweep|estimated|queued)' || true
elif [ $# -gt 0 ]; then
  echo "study.sh: $NAME is queued in $DB already; its keys are the ones it was queued with" >&2
  exit 2
fi
( while sleep $(( ${SNAPSHOT_MINUTES:-30} * 60 )); do snapshot; done ) &
saver=$!
# the saver and the sleep it waits in
stop_saver() { pkill -P "$saver" 2>/dev/null; kill "$saver" 2>/dev/null; }
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait "${pids[@]}" 2>/dev/null; stop_saver' INT TERM
for i in $(seq "${WORKERS:-1}"); do
  nice -n 19 "$MB" worker --db "$DB" --jobs 1 --threads 1 >>"$DB.worker$i.log" 2>&1 &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
stop_saver || true
snapshot
exit $status
