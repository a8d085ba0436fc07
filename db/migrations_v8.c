/*
 * migrations_v8.c — schema version 8 (issue 27): the status 'pruned' and
 * the request 'prune'.  Kept apart from db/migrations.c, which holds
 * versions 1 to 7, only for size; db/migrations.h lists it with them and
 * db/store.c runs it like any other.
 *
 * runs.status and runs.control are CHECK-constrained, and SQLite cannot
 * change a CHECK in place, so the runs table is built again (SQLite's own
 * procedure, https://sqlite.org/lang_altertable.html section 7): a new
 * table with every column of version 7 in the same order, now each with
 * its comment on its own line, the rows copied with their ids, the old
 * table dropped, the new one renamed, its indexes made again.  db/store.c
 * runs every migration with foreign keys off (the drop would otherwise
 * delete every run's metrics, evaluations, checkpoints and tags through
 * ON DELETE CASCADE) and checks with PRAGMA foreign_key_check before it
 * commits that the migration broke none.  The views (results_all, results, sweep_results, queue,
 * curves, trash) name runs and are kept as they are: the rename is made
 * with legacy_alter_table on, which leaves views alone (without it SQLite
 * refuses to rename while a view names the dropped table), and they read
 * the new table by its name.  The AUTOINCREMENT counter is carried over,
 * so a purged run's id is still never reused.
 *
 *   status  gains 'pruned': stopped by its sweep's pruner (--prune asha or
 *           median, and the losing rungs of lr=tune; experiments/prune.h),
 *           kept and shown, final like 'done' but left out of points,
 *           claims and verdicts; runs.error says when and why.
 *   control gains 'prune': the pruner's request to a running job, obeyed
 *           at its next check like 'pause' and 'cancel' (it ends 'pruned'
 *           after its last evaluation).
 *
 *   rungs   (new) a trial's result at each rung of --prune asha, written
 *           when it finishes the rung and before it continues (the
 *           continuation drops its evaluations after its cool-down's
 *           checkpoint, so the rung's own loss would otherwise be lost):
 *           experiments/prune.c decides from them.
 *
 *     -- a random search's trials, the pruned ones with where they stopped
 *     SELECT id, status, valid_loss, tokens_seen, error FROM results
 *      WHERE id IN (SELECT run_id FROM sweep_results WHERE sweep_id = 3);
 */
#include "db/migrations.h"

const char STORE_MIGRATION_8[] =
    "CREATE TABLE runs_v8 (\n"
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused, so paths naming a run stay unique\n"
    "  name TEXT,                             -- optional label\n"
    "  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),  -- ISO-8601 UTC\n"
    "  started_at TEXT,\n"
    "  finished_at TEXT,\n"
    "  status TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'paused',\n"
    "         'done', 'failed', 'diverged', 'cancelled', 'interrupted', 'pruned')),\n"
    "         -- pruned: stopped by its sweep's pruner (--prune, lr=tune's rungs); error says why\n"
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
    "  error TEXT,                              -- why a run failed, diverged, stopped or was pruned\n"
    "  sweep_id INTEGER REFERENCES sweeps(id) ON DELETE SET NULL,\n"
    "         -- the sweep that queued this job; NULL for a run of its own\n"
    "  coords_json TEXT NOT NULL DEFAULT '{}'\n"
    "         CHECK (json_valid(coords_json) AND json_type(coords_json) = 'object'),\n"
    "         -- the job's point of its sweep, one string per axis: {\"layers\": \"2\", \"arch\": \"mixer\"};\n"
    "         -- json_extract(coords_json, '$.layers') reads one\n"
    "  priority INTEGER NOT NULL DEFAULT 0,     -- workers claim the highest first, then the lowest id\n"
    "  control TEXT CHECK (control IN ('pause', 'cancel', 'prune')),\n"
    "         -- a request (CLI, UI, the pruner) to the worker of a running job, obeyed at its next\n"
    "         -- check; NULL when there is none\n"
    "  owner_pid INTEGER,   -- the worker process running the job; gone: recovery queues it again\n"
    "  heartbeat_at TEXT,   -- when that worker last said it is alive (ISO-8601 UTC)\n"
    "  resume_ckpt TEXT,    -- the checkpoint a paused or interrupted job resumes from; NULL: the start\n"
    "  resume_step INTEGER, -- the step whose weights resume_ckpt holds\n"
    "  queued_at TEXT,      -- when the job last entered the queue (queued, resumed or recovered)\n"
    "  infer_samples_per_s REAL,\n"
    "         -- batch-1, one-thread inference samples per second of this run's model, measured at its end\n"
    "  owner_host TEXT,     -- host name of the worker running the job (gethostname)\n"
    "  owner_boot TEXT,\n"
    "         -- the boot (/proc/sys/kernel/random/boot_id) and pid namespace that worker runs in:\n"
    "         -- owner_pid and owner_start mean something only on the same host, boot and namespace\n"
    "  owner_start INTEGER,\n"
    "         -- start time of process owner_pid, clock ticks after boot (/proc/PID/stat field 22):\n"
    "         -- a live pid with another start time is a reused pid, not the owner\n"
    "  lease_until TEXT,\n"
    "         -- ISO-8601 UTC, renewed by every heartbeat; once past, a worker on another host\n"
    "         -- (or boot) may take the job back\n"
    "  resumed_step INTEGER, -- the step the job last resumed from after a restart; NULL: never\n"
    "  role TEXT CHECK (role IN ('lr-search')),\n"
    "         -- 'lr-search': a trial of a sweep's lr=tune search (experiments/adaptive.h); NULL for\n"
    "         -- the sweep's own jobs and every other run\n"
    "  note TEXT,           -- free text about the run (`mixbench note RUN TEXT`); NULL: none\n"
    "  starred INTEGER NOT NULL DEFAULT 0 CHECK (starred IN (0, 1)),\n"
    "         -- 1: starred, protected: `mixbench rm` refuses it until `mixbench unstar`\n"
    "  deleted_at TEXT\n"
    "         -- ISO-8601 UTC: in the trash since then (`mixbench rm`, `restore`, `purge`); NULL: not\n"
    ");\n"
    "INSERT INTO runs_v8 (id, name, created_at, started_at, finished_at, status, arch, task, data,\n"
    "    tokenizer, d, layers, heads, n_ctx, vocab, seed, threads, total_steps, steps_done, tokens_seen,\n"
    "    wall_seconds, tokens_per_s, peak_mem_mb, n_params, n_params_nonembedding, config_json, error,\n"
    "    sweep_id, coords_json, priority, control, owner_pid, heartbeat_at, resume_ckpt, resume_step,\n"
    "    queued_at, infer_samples_per_s, owner_host, owner_boot, owner_start, lease_until, resumed_step,\n"
    "    role, note, starred, deleted_at)\n"
    "  SELECT id, name, created_at, started_at, finished_at, status, arch, task, data,\n"
    "    tokenizer, d, layers, heads, n_ctx, vocab, seed, threads, total_steps, steps_done, tokens_seen,\n"
    "    wall_seconds, tokens_per_s, peak_mem_mb, n_params, n_params_nonembedding, config_json, error,\n"
    "    sweep_id, coords_json, priority, control, owner_pid, heartbeat_at, resume_ckpt, resume_step,\n"
    "    queued_at, infer_samples_per_s, owner_host, owner_boot, owner_start, lease_until, resumed_step,\n"
    "    role, note, starred, deleted_at FROM runs ORDER BY id;\n"
    "-- the id counter of the old table (a purged run's id is never given again)\n"
    "DELETE FROM sqlite_sequence WHERE name = 'runs_v8';\n"
    "INSERT INTO sqlite_sequence (name, seq) SELECT 'runs_v8', seq FROM sqlite_sequence WHERE name = 'runs';\n"
    "DROP TABLE runs;\n"
    "PRAGMA legacy_alter_table = ON;\n"
    "ALTER TABLE runs_v8 RENAME TO runs;\n"
    "PRAGMA legacy_alter_table = OFF;\n"
    "CREATE INDEX runs_status ON runs(status);\n"
    "CREATE INDEX runs_arch_task ON runs(arch, task);\n"
    "CREATE INDEX runs_claim ON runs(status, priority DESC, id);\n"
    "CREATE INDEX runs_sweep ON runs(sweep_id);\n"
    "CREATE INDEX runs_deleted ON runs(deleted_at);\n"
    "CREATE TABLE rungs (\n"
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
    "  rung INTEGER NOT NULL CHECK (rung >= 0),  -- 0: the first (the smallest budget)\n"
    "  steps INTEGER NOT NULL,                   -- the run's budget at that rung, in steps\n"
    "  valid_loss REAL,                          -- its final valid loss there; NULL: it failed, diverged\n"
    "                                            -- or was cancelled (the worst of its rung)\n"
    "  PRIMARY KEY (run_id, rung)\n"
    ");\n";
