/*
 * migrations_v11.c — schema version 11 (issue 43): what a run used of
 * its own, its peak memory and its training CPU seconds.  Kept apart from
 * db/migrations.c only for size; db/migrations.h lists it with the others
 * and db/store.c runs it like any other.
 *
 *   runs.peak_run_mb  the resident high-water mark of the run's process from
 *                     the run's start less the resident set just before it
 *                     (experiments/job_memory.h), NULL where another job ran
 *                     in the same process meanwhile (a worker's jobs are
 *                     threads of one process) or the run ended before
 *                     version 11.  runs.peak_mem_mb stays the process's
 *                     ru_maxrss when the run ended; Linux reads it from the
 *                     same high-water mark, so since version 11 it counts
 *                     from the last reset (the start of the last job that
 *                     began alone in the process), not from the process's
 *                     start.
 *   runs.train_cpu_seconds  the process's CPU seconds over the run's training
 *                     steps, with the same condition (and NULL for a run
 *                     resumed from a checkpoint): tokens per CPU-second is
 *                     what a core of its own would train per second, on a
 *                     machine others share.
 *
 * The views that list a run's numbers (results_all, results,
 * sweep_results) are made again with the two columns beside peak_mem_mb;
 * their text is version 7's otherwise.
 */
#include "db/migrations.h"

const char STORE_MIGRATION_11[] =
    "ALTER TABLE runs ADD COLUMN peak_run_mb REAL  /*\n"
    "    the run's own peak resident memory, MB (10^6 bytes): the process's high-water mark (VmHWM,\n"
    "    reset when the run began) less its resident set then; NULL where another job shared the\n"
    "    process while it ran (`mixbench worker --jobs 1` gives every run its own figure)\n"
    "*/;\n"
    "ALTER TABLE runs ADD COLUMN train_cpu_seconds REAL  /*\n"
    "    the process's CPU seconds (every thread) over the run's training steps, evaluations aside;\n"
    "    NULL where another job shared the process or the run resumed from a checkpoint.\n"
    "    tokens_seen / train_cpu_seconds is what a core of its own trains per second, whatever\n"
    "    else the machine runs (tokens_per_s: per second of the wall clock)\n"
    "*/;\n"
    "\n"
    "DROP VIEW sweep_results;\n"
    "DROP VIEW results;\n"
    "DROP VIEW results_all;\n"
    "\n"
    "-- Every run with its final numbers, the trash included (deleted_at set):\n"
    "-- the columns of results (version 6), peak_run_mb and train_cpu_seconds (version 11) and\n"
    "-- tags, note, starred,\n"
    "-- deleted_at.  Query results instead unless the trash matters.\n"
    "CREATE VIEW results_all AS\n"
    "SELECT r.id, r.name, r.arch, r.task, r.data, r.tokenizer, r.status,\n"
    "       r.d, r.layers, r.heads, r.n_ctx, r.vocab, r.seed, r.threads,\n"
    "       r.n_params, r.n_params_nonembedding,\n"
    "       r.total_steps, r.steps_done, r.tokens_seen,\n"
    "       m.train_loss_smooth AS train_loss,\n"
    "       m.train_loss AS train_loss_raw,\n"
    "       (SELECT min(e.loss) FROM evals e\n"
    "         WHERE e.run_id = r.id AND e.split = 'valid') AS best_valid_loss,\n"
    "       v.loss AS valid_loss,\n"
    "       v.loss_all AS valid_loss_all,\n"
    "       v.accuracy AS valid_accuracy,\n"
    "       t.loss AS test_loss,\n"
    "       t.loss_all AS test_loss_all,\n"
    "       t.perplexity AS test_perplexity,\n"
    "       t.accuracy AS test_accuracy,\n"
    "       t.bits_per_byte AS test_bits_per_byte,\n"
    "       coalesce(r.tokens_per_s, m.tokens_per_s) AS tokens_per_s,\n"
    "       r.infer_samples_per_s,\n"
    "       coalesce(r.wall_seconds, m.wall) AS wall_seconds,\n"
    "       r.peak_mem_mb,\n"
    "       r.peak_run_mb,                   -- the run's own peak (version 11), NULL: not measured\n"
    "       r.train_cpu_seconds,             -- its training CPU seconds (version 11), NULL: not measured\n"
    "       u.unigram_nats,\n"
    "       u.unigram_nats - coalesce((SELECT min(e.loss) FROM evals e\n"
    "         WHERE e.run_id = r.id AND e.split = 'valid'), m.train_loss_smooth) AS unigram_gap,\n"
    "       CASE WHEN r.status IN ('queued', 'running', 'paused') OR u.unigram_nats IS NULL THEN 0\n"
    "            WHEN u.unigram_nats - coalesce((SELECT min(e.loss) FROM evals e\n"
    "                   WHERE e.run_id = r.id AND e.split = 'valid'), m.train_loss_smooth) < 0.1\n"
    "            THEN 1 ELSE 0 END AS not_learning,\n"
    "       r.created_at, r.started_at, r.finished_at, r.error,\n"
    "       r.role,                          -- 'lr-search': a trial of lr=tune (not in sweep_results)\n"
    "       coalesce((SELECT group_concat(tag, ' ') FROM\n"
    "                  (SELECT tag FROM run_tags WHERE run_id = r.id ORDER BY tag)), '') AS tags,\n"
    "       r.note,                          -- free text, NULL: none\n"
    "       r.starred,                       -- 1: protected from rm\n"
    "       r.deleted_at                     -- NULL unless in the trash\n"
    "  FROM runs r\n"
    "  LEFT JOIN metrics m ON m.run_id = r.id\n"
    "       AND m.step = (SELECT max(step) FROM metrics WHERE run_id = r.id)\n"
    "  LEFT JOIN evals v ON v.run_id = r.id AND v.split = 'valid'\n"
    "       AND v.step = (SELECT max(step) FROM evals WHERE run_id = r.id AND split = 'valid')\n"
    "  LEFT JOIN evals t ON t.run_id = r.id AND t.split = 'test'\n"
    "       AND t.step = (SELECT max(step) FROM evals WHERE run_id = r.id AND split = 'test')\n"
    "  LEFT JOIN datasets u ON u.data = r.data AND u.tokenizer = r.tokenizer AND u.vocab = r.vocab;\n"
    "\n"
    "-- One row per run with its final numbers: `SELECT * FROM results`; the\n"
    "-- trash left out.  train_loss is the smoothed loss of the last metric row;\n"
    "-- valid_* and test_* come from the last evaluation of that split;\n"
    "-- unigram_gap is the dataset's unigram entropy minus the run's best loss\n"
    "-- (best valid loss, else the last smoothed train loss); not_learning is 1\n"
    "-- for a run that ended less than 0.1 nat below the unigram level; tags\n"
    "-- are space-separated: `WHERE ' ' || tags || ' ' LIKE '% good %'`.\n"
    "CREATE VIEW results AS\n"
    "SELECT * FROM results_all WHERE deleted_at IS NULL;\n"
    "\n"
    "-- One row per job of a sweep with its point and final numbers (the columns\n"
    "-- of results): `SELECT json_extract(coords, '$.layers') AS layers, test_loss\n"
    "-- FROM sweep_results WHERE sweep_id = 3`.\n"
    "CREATE VIEW sweep_results AS\n"
    "SELECT s.id AS sweep_id, s.name AS sweep,\n"
    "       x.id AS run_id, x.status,\n"
    "       r.coords_json AS coords,         -- json_extract(coords, '$.KEY'): the job's KEY\n"
    "       x.name, x.arch, x.task, x.data, x.seed,\n"
    "       x.n_params, x.n_params_nonembedding,\n"
    "       x.total_steps, x.steps_done, x.tokens_seen,\n"
    "       x.train_loss, x.best_valid_loss, x.valid_loss, x.valid_loss_all, x.valid_accuracy,\n"
    "       x.test_loss, x.test_loss_all, x.test_perplexity, x.test_accuracy, x.test_bits_per_byte,\n"
    "       x.tokens_per_s, x.infer_samples_per_s, x.wall_seconds, x.peak_mem_mb, x.peak_run_mb,\n"
    "       x.train_cpu_seconds,\n"
    "       x.unigram_nats, x.unigram_gap, x.not_learning,\n"
    "       x.started_at, x.finished_at, x.error,\n"
    "       x.tags, x.note, x.starred,\n"
    "       s.preset                         -- what the sweep was queued from\n"
    "  FROM sweeps s\n"
    "  JOIN runs r ON r.sweep_id = s.id\n"
    "  JOIN results x ON x.id = r.id\n"
    " WHERE r.role IS NULL                   -- lr=tune's trials are in results, role 'lr-search'\n"
    "   AND s.deleted_at IS NULL;\n";
