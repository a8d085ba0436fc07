#!/usr/bin/env bash
# tests/experiments/test_precision_check.sh — experiments/precision_check.sh on a tiny
# override of the dispatcher-vs-msa preset (builtin:stories, 2 seeds, a few
# thousand tokens): one table row per point with a verdict, the f32 column
# equal to the mean and sample deviation computed independently from the
# store, the bf16 numbers taken from the bf16 sweep, a rerun queues nothing
# again, bad arguments are refused, and one seed gets no verdict.  Not for: whether bf16 matches f32
# on the real presets (docs/speed.md has that run).  SKIPs without bf16.
set -u
. "$(dirname "$0")/../harness.sh"
PC="experiments/precision_check.sh --mixbench $MB --db $T/pc.db"
ARG="dispatcher-vs-msa data=builtin:stories min_count=1 tokens=3000 repeats=2 eval_tokens=4096"

if ! $MB run --arch attention precision=bf16 steps=1 d=16 n_ctx=8 batch=2 --db "$T/probe.db" --quiet >"$T/probe" 2>&1; then
  echo "SKIP precision_check: $(head -1 "$T/probe")"
  exit 0
fi

if $PC "$ARG" >"$T/out" 2>"$T/err"; then pass precision_check_runs; else fail precision_check_runs "$(tail -2 "$T/err")"; fi
rows=$(grep -cE '^\| arch=(attention|dispatcher) \| 2 \| .* \| (within noise|\*\*DIFFERS\*\*) \|$' "$T/out")
[ "$rows" = 2 ] && pass precision_check_rows || fail precision_check_rows "$(cat "$T/out")"

# the f32 column of attention, recomputed: mean and sample standard deviation
want=$(python3 - "$T/pc.db" <<'PY'
import sqlite3, statistics, sys
db = sqlite3.connect(sys.argv[1])
def col(prec):
    sweep = db.execute("select id from sweeps where spec like ? order by id desc limit 1", ("%precision=" + prec + "%",)).fetchone()[0]
    xs = [r[0] for r in db.execute("select t.test_loss from runs join results t using (id) "
                                   "where sweep_id = ? and runs.arch = 'attention'", (sweep,))]
    return "%.4f +- %.4f" % (statistics.mean(xs), statistics.stdev(xs))
print("| arch=attention | 2 | %s | %s |" % (col("f32"), col("bf16")))
PY
)
grep -qF "$want" "$T/out" && pass precision_check_numbers || fail precision_check_numbers "want '$want' in $(grep attention "$T/out")"

n=$(q "$T/pc.db" "select count(*) from sweeps")
$PC "$ARG" >"$T/out2" 2>&1
[ "$n" = 2 ] && [ "$(q "$T/pc.db" "select count(*) from sweeps")" = 2 ] && pass precision_check_no_requeue ||
  fail precision_check_no_requeue "sweeps $n then $(q "$T/pc.db" "select count(*) from sweeps")"

out=$(experiments/precision_check.sh --bogus 2>&1); rc=$?
[ $rc = 2 ] && [ "$(echo "$out" | wc -l)" = 1 ] && pass precision_check_bad_option || fail precision_check_bad_option "rc=$rc $out"
out=$(experiments/precision_check.sh --mixbench $MB --db "$T/x.db" no-such-preset 2>&1); rc=$?
[ $rc != 0 ] && echo "$out" | grep -q "no-such-preset" && pass precision_check_bad_preset || fail precision_check_bad_preset "rc=$rc $out"

# one seed per point: no spread, and the verdict says so rather than DIFFERS
experiments/precision_check.sh --mixbench $MB --db "$T/one.db" "${ARG/repeats=2/repeats=1}" >"$T/one" 2>"$T/one.err"
rows=$(grep -cE '^\| arch=(attention|dispatcher) \| 1 \| .* \| one seed: no spread to judge by \|$' "$T/one")
[ "$rows" = 2 ] && pass precision_check_one_seed || fail precision_check_one_seed "$(cat "$T/one" "$T/one.err")"
