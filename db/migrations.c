/*
 * migrations.c — the store's schema, written as an ordered list of forward
 * migrations.  The schema is the documentation users query (`sqlite3
 * mixbench.db .schema`), so the comments inside the CREATE statements are
 * kept by SQLite and explain each column where its name does not.
 *
 * Not for: opening the file, pragmas or transactions (db/store.c runs these
 * scripts).  A released migration is never edited: a change to the schema is
 * a new script appended at the end (version 2 added sweeps and the job
 * queue that way, version 3 the seeds' claims: loss_all, inference speed,
 * unigram entropy, the papers' settings, version 4 the owner identity and
 * lease of a running job, version 5 an index for big stores, version 6 the
 * store's identity and whose each checkpoint is, version 7 tags, notes,
 * stars, sweep names, the trash and the workbench's settings, version 8
 * the status 'pruned': db/migrations_v8.c, a file of its own for size;
 * version 11 a run's own peak memory and training CPU seconds:
 * db/migrations_v11.c).
 */
#include "db/migrations.h"

/* Version 1: runs, their metrics, evaluations and checkpoints, and the two
   views that answer the common questions. */
static const char MIGRATION_1[] =
    "CREATE TABLE runs (\n"
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused, so paths naming a run stay unique\n"
    "  name TEXT,                             -- optional label\n"
    "  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),  -- ISO-8601 UTC\n"
    "  started_at TEXT,\n"
    "  finished_at TEXT,\n"
    "  status TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'paused',\n"
    "         'done', 'failed', 'diverged', 'cancelled', 'interrupted')),\n"
    "  arch TEXT NOT NULL,\n"
    "  task TEXT NOT NULL,\n"
    "  data TEXT,\n"
    "  tokenizer TEXT,\n"
    "  d INTEGER, layers INTEGER, heads INTEGER, n_ctx INTEGER, vocab INTEGER,\n"
    "  seed INTEGER,\n"
    "  threads INTEGER,\n"
    "  total_steps INTEGER NOT NULL DEFAULT 0,  -- planned steps, 0 when the budget is tokens or seconds\n"
    "  steps_done INTEGER NOT NULL DEFAULT 0,   -- kept current while the run trains\n"
    "  tokens_seen INTEGER NOT NULL DEFAULT 0,  -- training input tokens\n"
    "  wall_seconds REAL,\n"
    "  tokens_per_s REAL,                       -- training input tokens per second, whole run\n"
    "  peak_mem_mb REAL,\n"
    "  n_params INTEGER,\n"
    "  n_params_nonembedding INTEGER,\n"
    "  config_json TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(config_json)),  -- every config key\n"
    "  error TEXT                               -- why a run failed, diverged or stopped\n"
    ");\n"
    "CREATE INDEX runs_status ON runs(status);\n"
    "CREATE INDEX runs_arch_task ON runs(arch, task);\n"
    "\n"
    "CREATE TABLE metrics (\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
    "  step INTEGER NOT NULL,          -- steps done, 1 after the first step\n"
    "  tokens INTEGER,                 -- training input tokens seen so far\n"
    "  wall REAL,                      -- seconds of training so far (evaluations excluded)\n"
    "  train_loss REAL,                -- raw loss of this step, nats per target token\n"
    "  train_loss_smooth REAL,         -- exponential moving average of train_loss\n"
    "  lr REAL,\n"
    "  grad_norm REAL,                 -- global norm before clipping\n"
    "  tokens_per_s REAL,\n"
    "  PRIMARY KEY (run_id, step)\n"
    ") WITHOUT ROWID;\n"
    "\n"
    "CREATE TABLE evals (\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
    "  step INTEGER NOT NULL,\n"
    "  split TEXT NOT NULL CHECK (split IN ('train', 'valid', 'test')),\n"
    "  loss REAL,                      -- mean nats per target token over the whole split\n"
    "  perplexity REAL,                -- exp(loss)\n"
    "  accuracy REAL,                  -- top-1 over target tokens\n"
    "  bits_per_byte REAL,             -- NULL unless char data\n"
    "  n_tokens INTEGER,               -- target tokens evaluated\n"
    "  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),\n"
    "  PRIMARY KEY (run_id, step, split)\n"
    ") WITHOUT ROWID;\n"
    "\n"
    "CREATE TABLE checkpoints (\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
    "  step INTEGER NOT NULL,          -- the step whose weights the file holds\n"
    "  path TEXT NOT NULL,             -- a safetensors file; rewriting it moves its row to the new step\n"
    "  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),\n"
    "  PRIMARY KEY (run_id, path)\n"
    ") WITHOUT ROWID;\n"
    "CREATE INDEX checkpoints_step ON checkpoints(run_id, step);\n"
    "\n"
    "-- One row per run with its final numbers: `SELECT * FROM results`.\n"
    "-- train_loss is the smoothed loss of the last metric row; valid_loss and\n"
    "-- test_* come from the last evaluation of that split.\n"
    "CREATE VIEW results AS\n"
    "SELECT r.id, r.name, r.arch, r.task, r.data, r.tokenizer, r.status,\n"
    "       r.d, r.layers, r.heads, r.n_ctx, r.vocab, r.seed, r.threads,\n"
    "       r.n_params, r.n_params_nonembedding,\n"
    "       r.total_steps, r.steps_done, r.tokens_seen,\n"
    "       m.train_loss_smooth AS train_loss,\n"
    "       m.train_loss AS train_loss_raw,\n"
    "       (SELECT min(e.loss) FROM evals e\n"
    "         WHERE e.run_id = r.id AND e.split = 'valid') AS best_valid_loss,\n"
    "       v.loss AS valid_loss,\n"
    "       v.accuracy AS valid_accuracy,\n"
    "       t.loss AS test_loss,\n"
    "       t.perplexity AS test_perplexity,\n"
    "       t.accuracy AS test_accuracy,\n"
    "       t.bits_per_byte AS test_bits_per_byte,\n"
    "       coalesce(r.tokens_per_s, m.tokens_per_s) AS tokens_per_s,\n"
    "       coalesce(r.wall_seconds, m.wall) AS wall_seconds,\n"
    "       r.peak_mem_mb,\n"
    "       r.created_at, r.started_at, r.finished_at, r.error\n"
    "  FROM runs r\n"
    "  LEFT JOIN metrics m ON m.run_id = r.id\n"
    "       AND m.step = (SELECT max(step) FROM metrics WHERE run_id = r.id)\n"
    "  LEFT JOIN evals v ON v.run_id = r.id AND v.split = 'valid'\n"
    "       AND v.step = (SELECT max(step) FROM evals WHERE run_id = r.id AND split = 'valid')\n"
    "  LEFT JOIN evals t ON t.run_id = r.id AND t.split = 'test'\n"
    "       AND t.step = (SELECT max(step) FROM evals WHERE run_id = r.id AND split = 'test');\n"
    "\n"
    "-- Training curves with the validation loss where an evaluation was made\n"
    "-- at that step: `SELECT step, train_loss_smooth, valid_loss FROM curves\n"
    "-- WHERE run_id = 3`.\n"
    "CREATE VIEW curves AS\n"
    "SELECT m.run_id, m.step, m.tokens, m.wall, m.train_loss, m.train_loss_smooth,\n"
    "       m.lr, m.grad_norm, m.tokens_per_s,\n"
    "       e.loss AS valid_loss, e.accuracy AS valid_accuracy\n"
    "  FROM metrics m\n"
    "  LEFT JOIN evals e ON e.run_id = m.run_id AND e.step = m.step AND e.split = 'valid';\n";

/* Version 2: sweeps and the persistent job queue (db/jobs.h).

   A store at version 1 is upgraded in place the first time a newer mixbench
   opens it: its runs keep their ids and numbers, and become runs of no sweep
   with no job columns set (coords_json '{}', priority 0).

   sweeps         one row per sweep: name (the preset, or 'grid'), spec (the
                  grid), axes_json (the axis keys in order), created_at.
   runs           gains the job columns: sweep_id; coords_json, the job's
                  point of its sweep (a JSON object, one string per axis);
                  priority (workers claim the highest first, then the oldest
                  id); control ('pause' | 'cancel', a request the worker of a
                  running job obeys at its next check); owner_pid and
                  heartbeat_at (the worker process and its last sign of
                  life); resume_ckpt and resume_step (the checkpoint a paused
                  or interrupted job resumes from); queued_at.
   paper_figures  the figures a preset's paper reports: preset, coords_json,
                  metric, value, note; one per preset, point and metric.
   queue          (view) the jobs not finished: running ones, then the queued
                  ones in claim order (position 1 is claimed next), then the
                  paused ones, with their sweep's name and coords.
   sweep_results  (view) one row per job of a sweep: sweep_id, sweep (its
                  name), run_id, status, coords and the final numbers of the
                  results view; json_extract(coords, '$.KEY') is the job's
                  value of axis KEY.

   Three questions as queries:

     -- best test loss per architecture in sweep 3
     SELECT arch, min(test_loss) FROM sweep_results
      WHERE sweep_id = 3 AND status = 'done' GROUP BY arch;

     -- smoothed train loss once 1M training tokens were seen, per hash
     -- size of sweep 3 (SQLite returns the other columns of the row where
     -- min() is taken)
     SELECT json_extract(s.coords, '$.hash_size') AS hash_size, s.run_id,
            min(c.step) AS step, c.train_loss_smooth
       FROM sweep_results s JOIN curves c ON c.run_id = s.run_id
      WHERE s.sweep_id = 3 AND c.tokens >= 1000000
      GROUP BY s.run_id ORDER BY CAST(hash_size AS INTEGER);

     -- jobs still queued, the next one first
     SELECT position, id, sweep, coords, priority FROM queue
      WHERE status = 'queued' ORDER BY position;
*/
static const char MIGRATION_2[] =
    "CREATE TABLE sweeps (\n"
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
    "  name TEXT NOT NULL,                     -- the preset's name, or 'grid'\n"
    "  spec TEXT NOT NULL,                     -- the grid as given, or as the preset expands\n"
    "  axes_json TEXT NOT NULL DEFAULT '[]'    -- the axis keys in order: [\"layers\", \"heads\"]\n"
    "            CHECK (json_valid(axes_json) AND json_type(axes_json) = 'array'),\n"
    "  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))\n"
    ");\n"
    "\n"
    "-- The job columns of runs.  SQLite appends an added column's text, comment\n"
    "-- included, at the end of CREATE TABLE runs, so each comment is a /* */ one.\n"
    "ALTER TABLE runs ADD COLUMN sweep_id INTEGER REFERENCES sweeps(id) ON DELETE SET NULL  /*\n"
    "    the sweep that queued this job; NULL for a run of its own\n"
    "*/;\n"
    "ALTER TABLE runs ADD COLUMN coords_json TEXT NOT NULL DEFAULT '{}'\n"
    "    CHECK (json_valid(coords_json) AND json_type(coords_json) = 'object')  /*\n"
    "    the job's point of its sweep, one string per axis:\n"
    "    {\"layers\": \"2\", \"arch\": \"mixer\"}; json_extract(coords_json, '$.layers') reads one\n"
    "*/;\n"
    "ALTER TABLE runs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0  /*\n"
    "    workers claim the queued job of highest priority first, then the lowest id\n"
    "*/;\n"
    "ALTER TABLE runs ADD COLUMN control TEXT CHECK (control IN ('pause', 'cancel'))  /*\n"
    "    a request (CLI, UI) to the worker of a running job, obeyed at its next check;\n"
    "    NULL when there is none\n"
    "*/;\n"
    "ALTER TABLE runs ADD COLUMN owner_pid INTEGER  /*\n"
    "    process id of the worker running the job; a running job whose process is\n"
    "    gone is found by recovery, marked interrupted and queued again\n"
    "*/;\n"
    "ALTER TABLE runs ADD COLUMN heartbeat_at TEXT  /*\n"
    "    when that worker last said it is alive (ISO-8601 UTC)\n"
    "*/;\n"
    "ALTER TABLE runs ADD COLUMN resume_ckpt TEXT  /*\n"
    "    the checkpoint a paused or interrupted job resumes from; NULL: it starts fresh\n"
    "*/;\n"
    "ALTER TABLE runs ADD COLUMN resume_step INTEGER  /*\n"
    "    the step whose weights resume_ckpt holds\n"
    "*/;\n"
    "ALTER TABLE runs ADD COLUMN queued_at TEXT  /*\n"
    "    when the job last entered the queue (queued, resumed or recovered)\n"
    "*/;\n"
    "CREATE INDEX runs_claim ON runs(status, priority DESC, id);\n"
    "CREATE INDEX runs_sweep ON runs(sweep_id);\n"
    "\n"
    "CREATE TABLE paper_figures (\n"
    "  preset TEXT NOT NULL,                   -- the preset (experiments/) the paper backs\n"
    "  coords_json TEXT NOT NULL DEFAULT '{}'  -- the point it belongs to, as runs.coords_json\n"
    "              CHECK (json_valid(coords_json) AND json_type(coords_json) = 'object'),\n"
    "  metric TEXT NOT NULL,                   -- test_loss, test_perplexity, samples_per_s, ...\n"
    "  value REAL,\n"
    "  note TEXT,                              -- the table or figure it comes from\n"
    "  PRIMARY KEY (preset, coords_json, metric)\n"
    ") WITHOUT ROWID;\n"
    "\n"
    "-- The jobs not finished: `SELECT * FROM queue`.  Running jobs first, then the\n"
    "-- queued ones in the order workers claim them, then the paused ones.\n"
    "CREATE VIEW queue AS\n"
    "SELECT CASE WHEN r.status = 'queued'\n"
    "            THEN row_number() OVER (PARTITION BY r.status ORDER BY r.priority DESC, r.id)\n"
    "       END AS position,                 -- place in line of a queued job, 1 = claimed next\n"
    "       r.id, r.status, r.control, r.priority,\n"
    "       r.sweep_id, s.name AS sweep,\n"
    "       r.coords_json AS coords,         -- the job's point of its sweep\n"
    "       r.name, r.arch, r.task, r.data,\n"
    "       r.steps_done, r.total_steps, r.resume_step, r.resume_ckpt,\n"
    "       r.owner_pid, r.heartbeat_at, r.queued_at, r.started_at,\n"
    "       r.error                          -- why an interrupted job was queued again\n"
    "  FROM runs r\n"
    "  LEFT JOIN sweeps s ON s.id = r.sweep_id\n"
    " WHERE r.status IN ('running', 'queued', 'paused')\n"
    " ORDER BY CASE r.status WHEN 'running' THEN 0 WHEN 'queued' THEN 1 ELSE 2 END,\n"
    "          r.priority DESC, r.id;\n"
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
    "       x.train_loss, x.best_valid_loss, x.valid_loss, x.valid_accuracy,\n"
    "       x.test_loss, x.test_perplexity, x.test_accuracy, x.test_bits_per_byte,\n"
    "       x.tokens_per_s, x.wall_seconds, x.peak_mem_mb,\n"
    "       x.started_at, x.finished_at, x.error\n"
    "  FROM sweeps s\n"
    "  JOIN runs r ON r.sweep_id = s.id\n"
    "  JOIN results x ON x.id = r.id;\n";


/* Version 3: the seeds' claims (issue 9).

   evals          gains loss_all: for mlm, the mean nats over every position
                  of the split's windows (SPEC section 3, the PairConnect
                  paper's convention); NULL for every other task.
   runs           gains infer_samples_per_s: batch-1, one-thread inference
                  samples per second of the run's own model, measured when
                  the run ends (SPEC section 6, PairConnect Table 3's measure).
   datasets       one row per (data, tokenizer, vocab): the unigram entropy
                  of the training split (the loss of a model that learned
                  only token frequencies), computed once by the first run on
                  it.  A run whose best loss never gets 0.1 nat below it is
                  "not learning: unigram level".
   paper_figures  gains setting (S1..S7 of shared/papers/README.md, the
                  paper's own setting) and source; one row per preset, point,
                  metric and setting (the autoencoder's mixer has figures in
                  three settings).
   results, sweep_results  gain valid_loss_all, test_loss_all,
                  infer_samples_per_s, unigram_nats, unigram_gap (unigram
                  entropy minus the best loss: how far below the unigram
                  level the run got) and not_learning (1 for a finished run
                  whose unigram_gap is under 0.1 nat).

     -- runs that did not learn
     SELECT id, arch, task, best_valid_loss, unigram_nats FROM results
      WHERE not_learning;
*/
static const char MIGRATION_3[] =
    "ALTER TABLE evals ADD COLUMN loss_all REAL  /*\n"
    "    mlm only: mean nats over every position of the split's windows (SPEC 3); NULL otherwise\n"
    "*/;\n"
    "ALTER TABLE runs ADD COLUMN infer_samples_per_s REAL  /*\n"
    "    batch-1, one-thread inference samples per second of this run's model, measured at its end\n"
    "*/;\n"
    "\n"
    "CREATE TABLE datasets (\n"
    "  data TEXT NOT NULL,                     -- as runs.data\n"
    "  tokenizer TEXT NOT NULL,                -- as runs.tokenizer\n"
    "  vocab INTEGER NOT NULL,                 -- as runs.vocab\n"
    "  train_tokens INTEGER,                   -- tokens of the training split\n"
    "  unigram_nats REAL,                      -- entropy of the training split's token frequencies, nats\n"
    "  unigram_bits REAL,                      -- the same in bits\n"
    "  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),\n"
    "  PRIMARY KEY (data, tokenizer, vocab)\n"
    ") WITHOUT ROWID;\n"
    "\n"
    "CREATE TABLE paper_figures_v3 (\n"
    "  preset TEXT NOT NULL,                   -- the preset (experiments/) the paper backs\n"
    "  coords_json TEXT NOT NULL DEFAULT '{}'  -- the point it belongs to, as runs.coords_json\n"
    "              CHECK (json_valid(coords_json) AND json_type(coords_json) = 'object'),\n"
    "  metric TEXT NOT NULL,                   -- train_loss, test_loss, test_perplexity, samples_per_s\n"
    "  value REAL,\n"
    "  note TEXT,                              -- the table or section it comes from\n"
    "  setting TEXT NOT NULL DEFAULT '',       -- the paper's setting (S1..S7, shared/papers/README.md)\n"
    "  setting_text TEXT,                      -- that setting in words: model size, data, budget\n"
    "  PRIMARY KEY (preset, coords_json, metric, setting)\n"
    ") WITHOUT ROWID;\n"
    "INSERT INTO paper_figures_v3 (preset, coords_json, metric, value, note)\n"
    "  SELECT preset, coords_json, metric, value, note FROM paper_figures;\n"
    "DROP TABLE paper_figures;\n"
    "ALTER TABLE paper_figures_v3 RENAME TO paper_figures;\n"
    "\n"
    "DROP VIEW sweep_results;\n"
    "DROP VIEW results;\n"
    "\n"
    "-- One row per run with its final numbers: `SELECT * FROM results`.\n"
    "-- train_loss is the smoothed loss of the last metric row; valid_* and\n"
    "-- test_* come from the last evaluation of that split; unigram_gap is the\n"
    "-- dataset's unigram entropy minus the run's best loss (best valid loss,\n"
    "-- else the last smoothed train loss); not_learning is 1 for a run that\n"
    "-- ended less than 0.1 nat below the unigram level.\n"
    "CREATE VIEW results AS\n"
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
    "       u.unigram_nats,\n"
    "       u.unigram_nats - coalesce((SELECT min(e.loss) FROM evals e\n"
    "         WHERE e.run_id = r.id AND e.split = 'valid'), m.train_loss_smooth) AS unigram_gap,\n"
    "       CASE WHEN r.status IN ('queued', 'running', 'paused') OR u.unigram_nats IS NULL THEN 0\n"
    "            WHEN u.unigram_nats - coalesce((SELECT min(e.loss) FROM evals e\n"
    "                   WHERE e.run_id = r.id AND e.split = 'valid'), m.train_loss_smooth) < 0.1\n"
    "            THEN 1 ELSE 0 END AS not_learning,\n"
    "       r.created_at, r.started_at, r.finished_at, r.error\n"
    "  FROM runs r\n"
    "  LEFT JOIN metrics m ON m.run_id = r.id\n"
    "       AND m.step = (SELECT max(step) FROM metrics WHERE run_id = r.id)\n"
    "  LEFT JOIN evals v ON v.run_id = r.id AND v.split = 'valid'\n"
    "       AND v.step = (SELECT max(step) FROM evals WHERE run_id = r.id AND split = 'valid')\n"
    "  LEFT JOIN evals t ON t.run_id = r.id AND t.split = 'test'\n"
    "       AND t.step = (SELECT max(step) FROM evals WHERE run_id = r.id AND split = 'test')\n"
    "  LEFT JOIN datasets u ON u.data = r.data AND u.tokenizer = r.tokenizer AND u.vocab = r.vocab;\n"
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
    "       x.tokens_per_s, x.infer_samples_per_s, x.wall_seconds, x.peak_mem_mb,\n"
    "       x.unigram_nats, x.unigram_gap, x.not_learning,\n"
    "       x.started_at, x.finished_at, x.error\n"
    "  FROM sweeps s\n"
    "  JOIN runs r ON r.sweep_id = s.id\n"
    "  JOIN results x ON x.id = r.id;\n";


/* Version 4: who owns a running job, beyond a pid (issue 12).  A pid alone
   is reused by the kernel and means nothing on another machine sharing the
   store, so a claim also records the worker's host, the boot and pid
   namespace it runs in, its process start time, and a lease that every
   heartbeat renews (db/jobs.c: JOB_LEASE_SECONDS).  Recovery takes a job
   whose owner is on this host and boot and whose pid is gone, a zombie, or
   a different process (another start time); a job owned elsewhere is taken
   once its lease has expired.  Jobs claimed before version 4 have NULL
   here and are judged by their pid alone, as before.

     -- running jobs, their owner, and how long their lease still runs
     SELECT id, owner_host, owner_pid, lease_until FROM runs
      WHERE status = 'running';
*/
static const char MIGRATION_4[] =
    "ALTER TABLE runs ADD COLUMN owner_host TEXT  /*\n"
    "    host name of the worker running the job (gethostname)\n"
    "*/;\n"
    "ALTER TABLE runs ADD COLUMN owner_boot TEXT  /*\n"
    "    the boot (/proc/sys/kernel/random/boot_id) and pid namespace that worker runs in:\n"
    "    owner_pid and owner_start mean something only on the same host, boot and namespace\n"
    "*/;\n"
    "ALTER TABLE runs ADD COLUMN owner_start INTEGER  /*\n"
    "    start time of process owner_pid, clock ticks after boot (/proc/PID/stat field 22):\n"
    "    a live pid with another start time is a reused pid, not the owner\n"
    "*/;\n"
    "ALTER TABLE runs ADD COLUMN lease_until TEXT  /*\n"
    "    ISO-8601 UTC, renewed by every heartbeat; once past, a worker on another host\n"
    "    (or boot) may take the job back\n"
    "*/;\n";

/* Version 5: big stores (issue 12).  An index of each run's evaluations by
   split and loss: the results view's best valid loss (min(loss) of a run's
   valid evaluations) and last evaluation of a split become index seeks
   instead of a scan of every evaluation of the run; the Runs screen reads
   that view for every run twice a second (1,000 runs of 1,000 evaluations:
   260 ms of CPU a read without it, 12 ms with it). */
static const char MIGRATION_5[] =
    "-- a run's evaluations by split and loss: best valid loss by a seek\n"
    "CREATE INDEX evals_split_loss ON evals(run_id, split, loss);\n";

/* Version 6: checkpoints that belong to their store (issue 23).

   store_info     key/value facts about the store itself; 'store_id' is a
                  random 16-hex-digit id drawn when the store is created (or
                  upgraded to version 6), written into the metadata of every
                  checkpoint its runs write, with the run id and step, so
                  that a file from another store (two stores in one folder
                  shared mixbench-ckpt/run1.safetensors before) is refused
                  instead of loaded.  New checkpoints go to NAME.ckpt/ beside
                  NAME.db; rows written before keep their paths.
   checkpoints    gains bytes (the file's size when the store recorded it)
                  and config_hash (the hash of the model keys the file holds,
                  engine/checkpoint.h); NULL for rows written before.
   runs           gains resumed_step: the step a job last resumed from after
                  a restart (NULL when it never restarted), so a screen can
                  say "resumed from step 133" while the job replays.

     -- the store's id, and the checkpoints whose files it can vouch for
     SELECT value FROM store_info WHERE key = 'store_id';
     SELECT run_id, step, path, bytes FROM checkpoints WHERE bytes IS NOT NULL;
*/
static const char MIGRATION_6[] =
    "CREATE TABLE store_info (\n"
    "  key TEXT PRIMARY KEY,                   -- store_id: written into every checkpoint's metadata\n"
    "  value TEXT NOT NULL\n"
    ") WITHOUT ROWID;\n"
    "INSERT INTO store_info (key, value) VALUES ('store_id', lower(hex(randomblob(8))));\n"
    "ALTER TABLE checkpoints ADD COLUMN bytes INTEGER  /*\n"
    "    the file's size when the store recorded it; NULL for rows of stores before version 6\n"
    "*/;\n"
    "ALTER TABLE checkpoints ADD COLUMN config_hash TEXT  /*\n"
    "    hash of the model keys the file holds (its metadata's config_hash); NULL before version 6\n"
    "*/;\n"
    "ALTER TABLE runs ADD COLUMN resumed_step INTEGER  /*\n"
    "    the step the job last resumed from after a restart; NULL when it never restarted\n"
    "*/;\n"
    "ALTER TABLE runs ADD COLUMN role TEXT CHECK (role IN ('lr-search'))  /*\n"
    "    'lr-search': a trial of a sweep's lr=tune search (experiments/adaptive.h); NULL for the\n"
    "    sweep's own jobs and every other run\n"
    "*/;\n"
    "ALTER TABLE sweeps ADD COLUMN plan_json TEXT CHECK (plan_json IS NULL OR json_valid(plan_json))  /*\n"
    "    what the sweep does beyond its grid: {\"until_conclusive\": true, \"max_hours\": 12,\n"
    "    \"lr_tune\": {\"lo\": 3e-4, \"hi\": 1e-2, \"points\": 5, \"share\": 0.125}}; NULL: a plain sweep\n"
    "*/;\n"
    "ALTER TABLE sweeps ADD COLUMN round INTEGER NOT NULL DEFAULT 1  /*\n"
    "    --until-conclusive: the round the sweep is in (1: its first training)\n"
    "*/;\n"
    "ALTER TABLE sweeps ADD COLUMN concluded TEXT  /*\n"
    "    --until-conclusive: why the rounds stopped (every claim decided, the cap); NULL while going\n"
    "*/;\n"
    "\n"
    "CREATE TABLE tuned_lrs (\n"
    "  sweep_id INTEGER NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,\n"
    "  point TEXT NOT NULL,                    -- the point's coords without seed, as runs.coords_json\n"
    "  arch TEXT NOT NULL,\n"
    "  lr REAL NOT NULL,                       -- the winner of the point's lr search\n"
    "  trials INTEGER NOT NULL,                -- the lr values tried\n"
    "  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),\n"
    "  PRIMARY KEY (sweep_id, point)\n"
    ") WITHOUT ROWID;\n"
    "\n"
    "-- How each claim's verdict was reached, round by round (--until-conclusive):\n"
    "-- `SELECT round, claim, verdict, tokens_per_run, seeds, action FROM verdicts\n"
    "-- WHERE sweep_id = 3 ORDER BY claim, round`.\n"
    "CREATE TABLE verdicts (\n"
    "  sweep_id INTEGER NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,\n"
    "  round INTEGER NOT NULL,\n"
    "  claim TEXT NOT NULL,                    -- the claim in words (experiments/claims.c)\n"
    "  verdict TEXT NOT NULL,                  -- holds, does not hold, within noise, inconclusive, not run\n"
    "  numbers TEXT,                           -- the numbers behind it\n"
    "  tokens_per_run INTEGER,                 -- the most training tokens of a run it compared\n"
    "  seeds INTEGER,                          -- the fewest seeds of a point it compared\n"
    "  action TEXT,                            -- what the round did about it, or why nothing\n"
    "  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),\n"
    "  PRIMARY KEY (sweep_id, round, claim)\n"
    ") WITHOUT ROWID;\n"
    "\n"
    "DROP VIEW sweep_results;\n"
    "DROP VIEW results;\n"
    "\n"
    "-- One row per run with its final numbers: `SELECT * FROM results`.\n"
    "-- train_loss is the smoothed loss of the last metric row; valid_* and\n"
    "-- test_* come from the last evaluation of that split; unigram_gap is the\n"
    "-- dataset's unigram entropy minus the run's best loss (best valid loss,\n"
    "-- else the last smoothed train loss); not_learning is 1 for a run that\n"
    "-- ended less than 0.1 nat below the unigram level.\n"
    "CREATE VIEW results AS\n"
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
    "       u.unigram_nats,\n"
    "       u.unigram_nats - coalesce((SELECT min(e.loss) FROM evals e\n"
    "         WHERE e.run_id = r.id AND e.split = 'valid'), m.train_loss_smooth) AS unigram_gap,\n"
    "       CASE WHEN r.status IN ('queued', 'running', 'paused') OR u.unigram_nats IS NULL THEN 0\n"
    "            WHEN u.unigram_nats - coalesce((SELECT min(e.loss) FROM evals e\n"
    "                   WHERE e.run_id = r.id AND e.split = 'valid'), m.train_loss_smooth) < 0.1\n"
    "            THEN 1 ELSE 0 END AS not_learning,\n"
    "       r.created_at, r.started_at, r.finished_at, r.error,\n"
    "       r.role                           -- 'lr-search': a trial of lr=tune (not in sweep_results)\n"
    "  FROM runs r\n"
    "  LEFT JOIN metrics m ON m.run_id = r.id\n"
    "       AND m.step = (SELECT max(step) FROM metrics WHERE run_id = r.id)\n"
    "  LEFT JOIN evals v ON v.run_id = r.id AND v.split = 'valid'\n"
    "       AND v.step = (SELECT max(step) FROM evals WHERE run_id = r.id AND split = 'valid')\n"
    "  LEFT JOIN evals t ON t.run_id = r.id AND t.split = 'test'\n"
    "       AND t.step = (SELECT max(step) FROM evals WHERE run_id = r.id AND split = 'test')\n"
    "  LEFT JOIN datasets u ON u.data = r.data AND u.tokenizer = r.tokenizer AND u.vocab = r.vocab;\n"
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
    "       x.tokens_per_s, x.infer_samples_per_s, x.wall_seconds, x.peak_mem_mb,\n"
    "       x.unigram_nats, x.unigram_gap, x.not_learning,\n"
    "       x.started_at, x.finished_at, x.error\n"
    "  FROM sweeps s\n"
    "  JOIN runs r ON r.sweep_id = s.id\n"
    "  JOIN results x ON x.id = r.id\n"
    " WHERE r.role IS NULL;                  -- lr=tune's trials are in results, role 'lr-search'\n";

/* Version 7: organising runs (issue 26): tags, notes, stars, names, a trash.

   runs           gains note (free text), starred (1: protected, `mixbench rm`
                  refuses it) and deleted_at (in the trash since then; NULL:
                  not deleted).  A run in the trash is in no view but
                  results_all and trash, on no screen and in no report or
                  claim, until `mixbench restore` takes it back or `mixbench
                  purge` deletes it and its checkpoint files for good.
   sweeps         gains note, deleted_at (rm sweep:N trashes the sweep and its
                  runs with one stamp; restore sweep:N takes back those) and
                  preset: what the sweep was queued from (a preset, NAME@paper,
                  'grid' or 'demo'), which never changes, while name is the
                  label people choose (`sweep --name`, `mixbench rename`) and
                  starts as the preset.  Claims, the Grid and the report find a
                  preset's sweeps by preset.
   run_tags       one row per (run, tag); tags compare without case.
   settings       key/value memory of the workbench for this store (picks,
                  sort, filter, screen, the New sweep form): db/settings.h.
   results_all    (view) the results of every run, the trash included, with
                  tags (space-separated, sorted), note, starred and
                  deleted_at; results is results_all without the trash (its
                  deleted_at is always NULL), and sweep_results, queue and
                  curves leave the trash out too.
   trash          (view) what is in the trash: runs and sweeps, newest first.

     -- runs tagged good, with their notes
     SELECT id, arch, valid_loss, note FROM results WHERE ' ' || tags || ' ' LIKE '% good %';
     -- what purge would delete
     SELECT kind, id, name, deleted_at FROM trash;
*/
static const char MIGRATION_7[] =
    "ALTER TABLE runs ADD COLUMN note TEXT  /*\n"
    "    free text about the run (`mixbench note RUN TEXT`); NULL: none\n"
    "*/;\n"
    "ALTER TABLE runs ADD COLUMN starred INTEGER NOT NULL DEFAULT 0 CHECK (starred IN (0, 1))  /*\n"
    "    1: starred, protected: `mixbench rm` refuses it until `mixbench unstar`\n"
    "*/;\n"
    "ALTER TABLE runs ADD COLUMN deleted_at TEXT  /*\n"
    "    ISO-8601 UTC: in the trash since then (`mixbench rm`, `restore`, `purge`); NULL: not deleted\n"
    "*/;\n"
    "ALTER TABLE sweeps ADD COLUMN note TEXT  /*\n"
    "    free text about the sweep; NULL: none\n"
    "*/;\n"
    "ALTER TABLE sweeps ADD COLUMN deleted_at TEXT  /*\n"
    "    in the trash since then, with the runs it took along (the same stamp); NULL: not deleted\n"
    "*/;\n"
    "ALTER TABLE sweeps ADD COLUMN preset TEXT  /*\n"
    "    what the sweep was queued from: a preset, NAME@paper, 'grid' or 'demo'; never changes\n"
    "    (name is the label, which `mixbench rename sweep:N` changes)\n"
    "*/;\n"
    "UPDATE sweeps SET preset = name;\n"
    "CREATE INDEX runs_deleted ON runs(deleted_at);\n"
    "\n"
    "CREATE TABLE run_tags (\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
    "  tag TEXT NOT NULL COLLATE NOCASE CHECK (length(tag) > 0),  -- one word: no space or comma\n"
    "  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),\n"
    "  PRIMARY KEY (run_id, tag)\n"
    ") WITHOUT ROWID;\n"
    "CREATE INDEX run_tags_tag ON run_tags(tag);\n"
    "\n"
    "CREATE TABLE settings (\n"
    "  key TEXT PRIMARY KEY,                   -- what the workbench remembers: 'runs.sort', ...\n"
    "  value TEXT\n"
    ") WITHOUT ROWID;\n"
    "\n"
    "DROP VIEW sweep_results;\n"
    "DROP VIEW results;\n"
    "DROP VIEW queue;\n"
    "DROP VIEW curves;\n"
    "\n"
    "-- Every run with its final numbers, the trash included (deleted_at set):\n"
    "-- the columns of results (version 6) and tags, note, starred,\n"
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
    "       x.tokens_per_s, x.infer_samples_per_s, x.wall_seconds, x.peak_mem_mb,\n"
    "       x.unigram_nats, x.unigram_gap, x.not_learning,\n"
    "       x.started_at, x.finished_at, x.error,\n"
    "       x.tags, x.note, x.starred,\n"
    "       s.preset                         -- what the sweep was queued from\n"
    "  FROM sweeps s\n"
    "  JOIN runs r ON r.sweep_id = s.id\n"
    "  JOIN results x ON x.id = r.id\n"
    " WHERE r.role IS NULL                   -- lr=tune's trials are in results, role 'lr-search'\n"
    "   AND s.deleted_at IS NULL;\n"
    "\n"
    "-- The jobs not finished: `SELECT * FROM queue`.  Running jobs first, then the\n"
    "-- queued ones in the order workers claim them, then the paused ones (the\n"
    "-- trash left out).\n"
    "CREATE VIEW queue AS\n"
    "SELECT CASE WHEN r.status = 'queued'\n"
    "            THEN row_number() OVER (PARTITION BY r.status ORDER BY r.priority DESC, r.id)\n"
    "       END AS position,                 -- place in line of a queued job, 1 = claimed next\n"
    "       r.id, r.status, r.control, r.priority,\n"
    "       r.sweep_id, s.name AS sweep,\n"
    "       r.coords_json AS coords,         -- the job's point of its sweep\n"
    "       r.name, r.arch, r.task, r.data,\n"
    "       r.steps_done, r.total_steps, r.resume_step, r.resume_ckpt,\n"
    "       r.owner_pid, r.heartbeat_at, r.queued_at, r.started_at,\n"
    "       r.error                          -- why an interrupted job was queued again\n"
    "  FROM runs r\n"
    "  LEFT JOIN sweeps s ON s.id = r.sweep_id\n"
    " WHERE r.status IN ('running', 'queued', 'paused') AND r.deleted_at IS NULL\n"
    " ORDER BY CASE r.status WHEN 'running' THEN 0 WHEN 'queued' THEN 1 ELSE 2 END,\n"
    "          r.priority DESC, r.id;\n"
    "\n"
    "-- Training curves with the validation loss where an evaluation was made\n"
    "-- at that step: `SELECT step, train_loss_smooth, valid_loss FROM curves\n"
    "-- WHERE run_id = 3` (runs in the trash left out).\n"
    "CREATE VIEW curves AS\n"
    "SELECT m.run_id, m.step, m.tokens, m.wall, m.train_loss, m.train_loss_smooth,\n"
    "       m.lr, m.grad_norm, m.tokens_per_s,\n"
    "       e.loss AS valid_loss, e.accuracy AS valid_accuracy\n"
    "  FROM metrics m\n"
    "  JOIN runs r ON r.id = m.run_id AND r.deleted_at IS NULL\n"
    "  LEFT JOIN evals e ON e.run_id = m.run_id AND e.step = m.step AND e.split = 'valid';\n"
    "\n"
    "-- What is in the trash, newest first: `SELECT * FROM trash`.  A sweep's\n"
    "-- runs went with it when they share its deleted_at.\n"
    "CREATE VIEW trash AS\n"
    "SELECT * FROM (\n"
    "  SELECT 'run' AS kind, r.id, r.name, r.arch || ' ' || r.task AS what, r.status,\n"
    "         r.sweep_id, r.starred, r.note, r.deleted_at\n"
    "    FROM runs r WHERE r.deleted_at IS NOT NULL\n"
    "  UNION ALL\n"
    "  SELECT 'sweep', s.id, s.name, s.preset,\n"
    "         (SELECT count(*) FROM runs WHERE sweep_id = s.id) || ' runs',\n"
    "         s.id, 0, s.note, s.deleted_at\n"
    "    FROM sweeps s WHERE s.deleted_at IS NOT NULL)\n"
    " ORDER BY deleted_at DESC, kind DESC, id;\n";

/* Version 9: which rules judged a stored verdict, so that a report can say
   which verdicts the tests of issue 39 (docs/statistics.md) changed. */
static const char MIGRATION_9[] =
    "ALTER TABLE verdicts ADD COLUMN rules INTEGER NOT NULL DEFAULT 1 CHECK (rules IN (1, 2))  /*\n"
    "    the rules that judged it: 1, one Welch test at 95% per look (before issue 39: within\n"
    "    noise, inconclusive); 2, a test per claim kind at alpha spent over the rounds\n"
    "    (docs/statistics.md)\n"
    "*/;\n";

/* Version 10: the study file a sweep was queued from (issue 41,
   docs/studies.md), so that a report of an old sweep reads the claims it
   was run with. */
static const char MIGRATION_10[] =
    "ALTER TABLE sweeps ADD COLUMN study TEXT  /*\n"
    "    the text of the study file (YAML) the sweep was queued from; NULL for a grid, a search,\n"
    "    an @paper sweep and sweeps queued before version 10\n"
    "*/;\n";

const char *const STORE_MIGRATIONS[] = {
    MIGRATION_1,
    MIGRATION_2,
    MIGRATION_3,
    MIGRATION_4,
    MIGRATION_5,
    MIGRATION_6,
    MIGRATION_7,
    STORE_MIGRATION_8,
    MIGRATION_9,
    MIGRATION_10,
    STORE_MIGRATION_11,
};

const int STORE_MIGRATION_COUNT = (int)(sizeof STORE_MIGRATIONS / sizeof STORE_MIGRATIONS[0]);
