#!/usr/bin/env bash
# tests/db/make_big_store.sh — makes a big store for the speed checks of
# tests/db/test_big_store.sh: RUNS runs (in one sweep, the Grid's) and
# ROWS metric rows in all, ROWS / RUNS per run, with a valid evaluation
# every 10 steps (ROWS / 10 in all: the evaluations of a long run with
# eval_every small) and a test evaluation at the end.
#
#   bash tests/db/make_big_store.sh DB [RUNS [ROWS]]     (default 1000 x 10000000)
#
# The schema is the real one: `mixbench run` makes the file with one tiny
# run, whose row the others copy; the sqlite3 CLI then multiplies rows with
# recursive CTEs in one transaction (10 million rows take about a minute on
# one core).  MIXBENCH (the binary) defaults to ./mixbench.
set -eu
DB=${1:?usage: make_big_store.sh DB [RUNS [ROWS]]}
RUNS=${2:-1000}
ROWS=${3:-10000000}
MB=${MIXBENCH:-$PWD/mixbench}
PER=$((ROWS / RUNS))
rm -f "$DB" "$DB-wal" "$DB-shm"
$MB run --arch attention --data builtin:stories --steps 2 d=16 layers=1 heads=2 n_ctx=16 batch=4 \
  eval_every=0 --db "$DB" >/dev/null
sqlite3 "$DB" <<EOF
PRAGMA journal_mode = WAL;
PRAGMA synchronous = OFF;
PRAGMA cache_size = -200000;
BEGIN;
INSERT INTO sweeps (name, spec, axes_json) VALUES ('big', 'arch=... lr=... seed=...', '["arch","lr","seed"]');
-- runs 2..RUNS copy run 1, in the sweep, with an arch, lr and seed each
WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < $RUNS)
INSERT INTO runs (id, name, created_at, started_at, finished_at, status, arch, task, data, tokenizer,
                  d, layers, heads, n_ctx, vocab, seed, threads, total_steps, steps_done, tokens_seen,
                  wall_seconds, tokens_per_s, peak_mem_mb, n_params, n_params_nonembedding,
                  config_json, sweep_id, coords_json)
SELECT i, NULL, r.created_at, r.started_at, r.finished_at,
       CASE WHEN i % 50 = 0 THEN 'failed' ELSE 'done' END,
       CASE i % 4 WHEN 0 THEN 'attention' WHEN 1 THEN 'mixer' WHEN 2 THEN 'pairconnect' ELSE 'hyena' END,
       r.task, r.data, r.tokenizer, r.d, r.layers, r.heads, r.n_ctx, r.vocab, i, r.threads,
       $PER, $PER, $PER * 64, 100.0, 50000.0, r.peak_mem_mb, r.n_params, r.n_params_nonembedding,
       r.config_json, (SELECT max(id) FROM sweeps),
       json_object('arch', CASE i % 4 WHEN 0 THEN 'attention' WHEN 1 THEN 'mixer'
                                      WHEN 2 THEN 'pairconnect' ELSE 'hyena' END,
                   'lr', CASE (i / 4) % 5 WHEN 0 THEN '1e-4' WHEN 1 THEN '3e-4' WHEN 2 THEN '1e-3'
                                         WHEN 3 THEN '3e-3' ELSE '1e-2' END,
                   'seed', CAST(i / 20 AS TEXT))
  FROM n, runs r WHERE r.id = 1;
UPDATE runs SET total_steps = $PER, steps_done = $PER WHERE id = 1;
DELETE FROM metrics WHERE run_id = 1;
-- PER metric rows per run, a falling noisy loss
WITH RECURSIVE s(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM s WHERE k < $PER)
INSERT INTO metrics (run_id, step, tokens, wall, train_loss, train_loss_smooth, lr, grad_norm, tokens_per_s)
SELECT r.id, s.k, s.k * 64, s.k * 0.01,
       2.0 + 4.0 / (1.0 + s.k / 1000.0) + 0.1 * ((s.k * 7919 + r.id) % 100) / 100.0,
       2.0 + 4.0 / (1.0 + s.k / 1000.0) + 0.05 + r.id % 7 * 0.01,
       1e-3, 1.0, 50000.0
  FROM runs r, s ORDER BY r.id, s.k;
DELETE FROM evals WHERE run_id = 1;
WITH RECURSIVE e(k) AS (SELECT 10 UNION ALL SELECT k + 10 FROM e WHERE k + 10 <= $PER)
INSERT INTO evals (run_id, step, split, loss, perplexity, accuracy, n_tokens)
SELECT r.id, e.k, 'valid', 2.1 + 4.0 / (1.0 + e.k / 1000.0), exp(2.1 + 4.0 / (1.0 + e.k / 1000.0)), 0.3, 4096
  FROM runs r, e;
INSERT INTO evals (run_id, step, split, loss, perplexity, accuracy, n_tokens)
SELECT r.id, $PER, 'test', 2.2 + r.id % 13 * 0.01, exp(2.2 + r.id % 13 * 0.01), 0.3, 4096 FROM runs r
 WHERE true ON CONFLICT DO NOTHING;
INSERT OR IGNORE INTO evals (run_id, step, split, loss, perplexity, accuracy, n_tokens)
SELECT r.id, $PER, 'valid', 2.15 + r.id % 11 * 0.01, exp(2.15 + r.id % 11 * 0.01), 0.3, 4096 FROM runs r;
COMMIT;
PRAGMA wal_checkpoint(TRUNCATE);
EOF
