#!/usr/bin/env bash
# tests/experiments/test_study_sh.sh — experiments/study.sh on a two-job
# study file: it queues the study once and two workers run it to the end,
# the snapshot holds every run with its metrics thinned to every 25th step,
# a second call queues nothing again, a missing store comes back from the
# snapshot (--status), --report writes the study's section with its figures,
# the long reproduction's report takes its section from the study's store,
# and bad arguments are refused in one line.  Not for: the studies
# themselves (docs/experiments.md; hours each).
# Prints "PASS name" / "FAIL name" lines for tests/run.sh.
set -u
. "$(dirname "$0")/../harness.sh"

cat > "$T/tiny.yaml" <<'EOF'
name: tiny
source: "study.sh test"
description: "two short runs on MQAR"
corpus: "builtin:mqar:pairs=2:vocab=32:examples=400"
keys:
  task: clm
  d: 16
  layers: 1
  heads: 1
  n_ctx: 16
  batch: 4
axes:
  arch: [attention, cumsum]
budget:
  steps: 60
seeds: 1
EOF
export STUDY_DB=$T/run/tiny.db STUDY_SNAP=$T/snap/tiny.db.xz MIXBENCH=$MB
mkdir -p "$T/run"
ST="experiments/study.sh $T/tiny.yaml"

if WORKERS=2 $ST > "$T/out" 2> "$T/err" &&
   [ "$(q "$STUDY_DB" "select count(*) from runs where status = 'done'")" = 2 ] &&
   [ -f "$T/run/tiny.db.worker1.log" ] && [ -f "$T/run/tiny.db.worker2.log" ]; then
  pass study_sh_runs
else
  fail study_sh_runs "$(tail -2 "$T/err" "$T/out")"
fi

xz -dc "$STUDY_SNAP" > "$T/snap.db" 2>/dev/null
live=$(q "$STUDY_DB" "select count(*) from metrics where step % 25 = 0")
if [ "$(q "$T/snap.db" "select count(*) from runs where status = 'done'")" = 2 ] &&
   [ "$(q "$T/snap.db" "select count(*) from metrics where step % 25 != 0")" = 0 ] &&
   [ "$(q "$T/snap.db" "select count(*) from metrics")" = "$live" ] && [ "$live" -gt 0 ] &&
   [ "$(q "$T/snap.db" "select count(*) from evals")" = "$(q "$STUDY_DB" "select count(*) from evals")" ]; then
  pass study_sh_snapshot_thinned
else
  fail study_sh_snapshot_thinned "live $live metrics rows at multiples of 25"
fi

# a second call: nothing left to queue or run; the study is not queued twice
$ST > "$T/out2" 2> "$T/err2"
if [ "$(q "$STUDY_DB" "select count(*) from sweeps")" = 1 ] &&
   [ "$(q "$STUDY_DB" "select count(*) from runs")" = 2 ] && ! grep -q '^sweep' "$T/out2"; then
  pass study_sh_queues_once
else
  fail study_sh_queues_once "$(cat "$T/out2" "$T/err2")"
fi

# a fresh machine: the store comes back from the snapshot
rm -f "$STUDY_DB" "$STUDY_DB"-wal "$STUDY_DB"-shm
if $ST --status > "$T/status" 2>&1 && grep -q 'came back from' "$T/status" &&
   grep -q '^jobs: done 2 (of 2)$' "$T/status"; then
  pass study_sh_restores
else
  fail study_sh_restores "$(cat "$T/status")"
fi

# what is left, priced by the finished jobs' CPU seconds: run 2 back in the
# queue with half its steps done, run 1 (another arch) at 2 CPU-hours
cp "$STUDY_DB" "$T/left.db"
q "$T/left.db" "update runs set train_cpu_seconds = 7200 where id = 1;
                update runs set status = 'queued', steps_done = 30 where id = 2"
if STUDY_DB=$T/left.db $ST --status > "$T/left" 2>&1 &&
   grep -q '^jobs: done 1, queued 1 (of 2)$' "$T/left" && grep -q '^2.0 CPU-hours of training in the finished jobs$' "$T/left" &&
   grep -q '^left: ~1.0 CPU-hours on one thread (0 of 1 jobs priced by finished jobs of their arch' "$T/left"; then
  pass study_sh_status_left
else
  fail study_sh_status_left "$(cat "$T/left")"
fi

if $ST --report "$T/doc/tiny.md" > "$T/rep" 2>&1 && grep -q '^## tiny (study.sh test)' "$T/doc/tiny.md" &&
   [ "$(head -1 "$T/doc/tiny.md")" = "# The tiny study" ] && [ "$(grep -c '^# ' "$T/doc/tiny.md")" = 1 ] &&
   grep -q '^2 of 2 jobs finished, ' "$T/doc/tiny.md" && ! grep -q 'Not finished' "$T/doc/tiny.md" &&
   grep -q '^| arch=cumsum | 1 ' "$T/doc/tiny.md" && [ -f "$T/doc/figures/tiny/tiny.svg" ] &&
   grep -q '](figures/tiny/tiny.svg)' "$T/doc/tiny.md"; then
  pass study_sh_report
else
  fail study_sh_report "$(cat "$T/rep")"
fi

# the long reproduction's report takes a study's section from its own store
# (experiments/reproduce_long.sh OWN_STORES): here the tiny study's, after
# the long store's own presets and before the discussion
mkdir -p "$T/own/tiny"
cp "$STUDY_SNAP" "$T/own/tiny/tiny.db.xz"
if OWN_STORES=tiny OWN_STORES_DIR=$T/own LONG_DB=$T/long.db LONG_MD=$T/doc/reproduction.md REPORT_ONLY=1 \
     experiments/reproduce_long.sh > "$T/long.out" 2>&1; then
  R=$T/doc/reproduction.md
  at() { grep -n "$1" "$R" | head -1 | cut -d: -f1; }
  if [ "$(grep -c '^## tiny (study.sh test)' "$R")" = 1 ] && grep -q '^2 of 2 jobs finished, ' "$R" &&
     grep -q '^The tiny section is its study.s own store' "$R" &&
     [ "$(at '^## prefix-models')" -lt "$(at '^## tiny')" ] && [ "$(at '^## tiny')" -lt "$(at '^## Discussion')" ] &&
     [ -f "$T/doc/figures/reproduction/tiny.svg" ] && [ -f "$T/doc/figures/reproduction/prefix-models.svg" ] &&
     [ "$(grep -c '^## mixbench' "$R")" = 1 ]; then
    pass study_sh_in_long_report
  else
    fail study_sh_in_long_report "$(grep -n '^## \|jobs finished' "$R" | head -20)"
  fi
else
  fail study_sh_in_long_report "$(tail -3 "$T/long.out")"
fi

refused() {  # NAME EXPECTED-PATTERN ARGS...
  local name=$1 want=$2
  shift 2
  if ! experiments/study.sh "$@" > /dev/null 2> "$T/e" && [ "$(wc -l < "$T/e")" = 1 ] && grep -q "$want" "$T/e"; then
    pass "study_sh_refused[$name]"
  else
    fail "study_sh_refused[$name]" "$(cat "$T/e")"
  fi
}
refused keys_after_queue "queued in .* already" "$T/tiny.yaml" steps=10
refused bad_name "not a study's name" "a b"
STUDY_DB=$T/none.db STUDY_SNAP=$T/none.db.xz refused no_store "no store" nosuchstudy --status
refused report_no_file "usage" "$T/tiny.yaml" --report
refused unknown_option "usage" "$T/tiny.yaml" --bogus
sed 's/^name: tiny/name: recall/' "$T/tiny.yaml" > "$T/recall.yaml"
STUDY_DB=$T/r.db STUDY_SNAP=$T/r.db.xz refused sweep_refuses "a built-in study's name" "$T/recall.yaml"
[ ! -e "$T/r.db" ] && pass study_sh_refused_leaves_no_store || fail study_sh_refused_leaves_no_store "$(ls -la "$T/r.db")"
exit "$failures"
