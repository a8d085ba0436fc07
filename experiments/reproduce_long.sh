#!/usr/bin/env bash
# experiments/reproduce_long.sh — the long reproduction (issue 24): all
# twelve presets with `--until-conclusive` and `lr=tune` (pairconnect-speed
# keeps its fixed lr: five steps of training do not depend on it), each
# with a cap of CPU hours (below; about 11 in all), run by one worker with
# one job and one thread at the lowest priority, so the other core stays
# free.  The queue lives in the store, so it continues anywhere:
#
#   experiments/reproduce_long.sh            run (queues the presets once; resumes a stopped run)
#   experiments/reproduce_long.sh --save     snapshot the store into experiments/long/long.db.xz
#   experiments/reproduce_long.sh --status   where it stands: jobs left, each sweep's round
#   REPORT_ONLY=1 experiments/reproduce_long.sh   write docs/reproduction.md from the store
#
# On a fresh machine the store comes back from the committed snapshot
# (experiments/long/long.db.xz); its checkpoints do not (they stay out of
# git), so a job that was running when the snapshot was taken trains again
# from its start, and an extension without its checkpoint does too (the
# same numbers either way).  While it runs, a snapshot is written every
# SNAPSHOT_MINUTES (default 30) for committing at milestones.
# Run from the repository root.
set -eu
DB=${LONG_DB:-long.db}
SNAP=experiments/long/long.db.xz
MD=${LONG_MD:-docs/reproduction.md}
DISCUSSION=docs/reproduction-long-discussion.md
export MIXBENCH_DATA=${MIXBENCH_DATA:-$(cd .. && pwd)/shared/data}
MB=${MIXBENCH:-./mixbench}
. "$(dirname "$0")/report_md.sh"
# preset, cap in CPU hours (training seconds x threads of every run of its sweep)
CAPS="dispatcher-vs-msa 0.6
pairconnect-grid 2.6
pairconnect-hash 1.3
pairconnect-speed 0.2
mixer-vs-transformer 1.2
autoencoder 1.4
bidirectional 0.8
completion 0.4
linear-mixer 0.5
fft-mlm 0.6
prefix-models 0.8
recall 0.7"
# what was changed by hand while it ran, and why (the discussion has the numbers)
ADJUSTED="these steps were taken by hand while it ran, each after its numbers showed why (discussion):
pairconnect-hash's cap was raised to 1.8 after round 2 (\`mixbench sweep --continue 3 --max-hours 1.8\`)
and fft-mlm's to 0.7 after round 5 (\`mixbench sweep --continue 10 --max-hours 0.7\`);
dispatcher-vs-msa was queued again with \`tune_share=0.5\`; once lr=tune ranked masked LMs trained
with mlm_loss=all by their loss_all (it had ranked them by the masked positions' loss), pairconnect-grid
and pairconnect-hash were queued again (sweeps 14, 15); once claims compared points only at equal
budgets, mixer-vs-transformer was judged again (\`mixbench sweep --continue 5\`) and autoencoder's cap
raised to 2.2 (\`mixbench sweep --continue 6 --max-hours 2.2\`); once lr=tune's first rung trained at
least 50 steps (it had ranked some searches inside the warm-up), mixer-vs-transformer, pairconnect-grid
and pairconnect-hash were queued again with caps of 1.2, 2.0 and 2.5 (sweeps 16-18; 14 and 15 were
cancelled and moved to the trash); sweep 5's last seeds, at its misranked rate, were cancelled, which
stopped its rounds.  From 16:32 on 2026-11-26 lr=tune continued every trial of a rung on the unigram
plateau (the searches of sweeps 16-18 still going then).  Once lr=tune ranked at the point's own budget
and searched past its grid's edge (sweep 16's n=512 verdict had rested on both), mixer-vs-transformer
was queued again with a cap of 1.2 (sweep 19).  A report section is its preset's newest sweep."
# a metrics row every 25 steps keeps the store small enough to commit
KEYS="metrics_every=25"
# the presets that run as studies in stores of their own (experiments/study.sh): once a
# study's snapshot experiments/NAME/NAME.db.xz is committed, its section comes from there
# and replaces this store's sweep of the preset (recall: sweep 12, of its earlier form)
OWN_STORES=${OWN_STORES:-recall}
OWN_DIR=${OWN_STORES_DIR:-experiments}

snapshot() {
  mkdir -p "$(dirname "$SNAP")"
  sqlite3 "$DB" ".backup '$DB.snap'"
  xz -9 -T1 -c "$DB.snap" >"$SNAP.tmp" && mv "$SNAP.tmp" "$SNAP"
  rm -f "$DB.snap"
  echo "reproduce_long: snapshot $SNAP ($(du -h "$SNAP" | cut -f1)) at $(date -u +%H:%M)"
}

if [ ! -f "$DB" ] && [ -f "$SNAP" ]; then
  xz -dc "$SNAP" >"$DB"
  echo "reproduce_long: the store came back from $SNAP"
fi

case "${1:-}" in
  --save) snapshot; exit 0 ;;
  --status)
    sqlite3 "$DB" "select 'jobs: ' || group_concat(status || ' ' || n, ', ') from
                    (select status, count(*) n from runs group by status)"
    sqlite3 -separator '  ' "$DB" "select s.id, s.name, 'round ' || s.round, coalesce(s.concluded, 'going'),
        printf('(%.2f of %s CPU hours)', coalesce((select sum(coalesce(wall_seconds, 0) * max(coalesce(threads, 1), 1))
        from runs where sweep_id = s.id), 0) / 3600, json_extract(s.plan_json, '\$.max_hours'))
        || case when s.deleted_at is not null then ' in the trash' else '' end from sweeps s"
    exit 0 ;;
esac

if [ -z "${REPORT_ONLY:-}" ]; then
  if [ "$(sqlite3 "$DB" "select count(*) from sweeps" 2>/dev/null || echo 0)" = 0 ]; then
    echo "$CAPS" | while read -r preset cap; do
      tune="lr=tune"
      [ "$preset" = pairconnect-speed ] && tune=""
      "$MB" sweep "$preset" $tune $KEYS --until-conclusive --max-hours "$cap" --db "$DB" |
        grep -E '^(sweep|estimated|lr=tune|until|queued)'
    done
  fi
  ( while sleep $(( ${SNAPSHOT_MINUTES:-30} * 60 )); do snapshot; done ) &
  saver=$!
  trap 'pkill -P $saver 2>/dev/null; kill $saver 2>/dev/null' EXIT
  nice -n 19 "$MB" worker --db "$DB" --jobs 1 --threads 1
  pkill -P $saver 2>/dev/null; kill $saver 2>/dev/null
  trap - EXIT
  snapshot
fi

# the report: every preset's sweep, verdicts with how they were reached
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
hours=$(sqlite3 "$DB" "select printf('%.1f', sum(coalesce(wall_seconds, 0) * max(coalesce(threads, 1), 1)) / 3600) from runs")
# the sweeps still going, when the report is written before the run ends
going=$(sqlite3 "$DB" "select group_concat(id || ' ' || name || ' (round ' || round || ')', ', ') from
                       (select * from sweeps where concluded is null and deleted_at is null and plan_json is not null
                        order by id)")
# the studies of their own stores: each restored to a temporary store, left out of this one's report
presets=$(echo "$CAPS" | cut -d' ' -f1)
own=()
tmpdir=$(mktemp -d)
trap 'rm -rf "$tmpdir"' EXIT
for study in $OWN_STORES; do
  snap=$OWN_DIR/$study/$study.db.xz
  [ -f "$snap" ] || continue
  xz -dc "$snap" >"$tmpdir/$study.db"
  own+=("$study")
  presets=$(echo "$presets" | grep -vx "$study")
done
{
  echo "# The reproduction: the seed papers' claims, decided on models that learned"
  echo
  if [ -n "$going" ]; then
    echo "**Not finished** (written $(date -u +%Y-%m-%d\ %H:%M) UTC): still going are sweeps $going."
    echo "Their sections below show the store as it stood then (a search still going says how far it"
    echo "got; a claim whose round is still training shows the verdict the loop last gave it, or, in a"
    echo "first round, the runs finished so far, said so); this file is written again from the store"
    echo "when they end."
    echo
  fi
  echo "Generated by \`experiments/reproduce_long.sh\` (the report sections by \`mixbench report --md\`;"
  echo "the discussion after them is $DISCUSSION).  The store is committed as"
  echo "\`$SNAP\`; \`REPORT_ONLY=1 experiments/reproduce_long.sh\` rewrites this file from it."
  echo "The 90-minute tier (fixed budgets and learning rates) is docs/reproduction-quick.md."
  echo
  echo "Each preset ran as \`mixbench sweep PRESET lr=tune $KEYS --until-conclusive --max-hours CAP\`"
  echo "(pairconnect-speed without lr=tune), one job and one thread at a time: caps (CPU hours, as queued)"
  echo "$(echo "$CAPS" | tr '\n' ',' | sed 's/,$//; s/,/, /g')."
  echo "Each section's \"made by\" line gives its sweep's cap as it ended; $ADJUSTED"
  echo "Machine: $cpu, $(nproc) cores; $hours CPU hours of training in all."
  for study in "${own[@]}"; do
    sdb=$tmpdir/$study.db
    echo "The $study section is its study's own store instead (\`experiments/study.sh $study\`, committed as"
    echo "\`experiments/$study/$study.db.xz\`; its preset as it is today, fixed lr, no --until-conclusive):"
    sqlite3 "$sdb" "select printf('%d of %d jobs finished, %.1f CPU hours of training%s.', sum(status = 'done'), count(*),
                     coalesce(sum(case when status = 'done' then coalesce(train_cpu_seconds,
                       wall_seconds * max(coalesce(threads, 1), 1)) end), 0) / 3600,
                     case when sum(status in ('queued', 'running', 'paused')) > 0
                          then '; not finished: its section shows the runs finished so far' else '' end)
                    from runs where deleted_at is null"
  done
  [ -z "$going" ] && echo "How it ended, and why the undecided claims stay so: \"Where it ended\", the discussion's first paragraph (after the sections)."
  echo
  # shellcheck disable=SC2086
  report_sections "$DB" "" "$MD" $presets
  for study in "${own[@]}"; do
    study_section "$tmpdir/$study.db" "$study" "$MD"
  done
  [ -f "$DISCUSSION" ] && cat "$DISCUSSION"
} >"$MD.tmp"
mv "$MD.tmp" "$MD"
echo "wrote $MD"
