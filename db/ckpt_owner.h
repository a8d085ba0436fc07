/*
 * ckpt_owner.h — checkpoints that belong to their store (schema version 6).
 *
 * Every store has an id (store_info.store_id, drawn when it is created) and
 * its own checkpoint folder, NAME.ckpt/ beside NAME.db, so two stores in one
 * folder never write the same file.  A job writes the store id, run id and
 * step into each checkpoint's metadata (engine/checkpoint.h CKPT_META_*);
 * the store records a file only when its metadata names this store, run and
 * step, and keeps its size and config hash in the checkpoints row.  Before
 * anything loads a checkpoint the store named (resume, the Generate screen,
 * `eval --run`, `generate --run`, `extend`, an MPI hand-out), the file is
 * checked against both: a file from another store or run, a replaced or
 * truncated one, is refused in one line naming both owners, and nothing is
 * changed.  Rows written before version 6 carry no size: their files are
 * checked by the model keys the run row holds (arch, task and the sizes).
 *
 * Not for: writing checkpoints (engine/checkpoint.h, experiments/job.c).
 */
#ifndef MIXBENCH_CKPT_OWNER_H
#define MIXBENCH_CKPT_OWNER_H

#include <stddef.h>
#include <stdint.h>

#include "db/store.h"

#define STORE_ID_LEN 40   /* the id's text and its NUL, with room to spare */

/* The store's id (16 hex digits). */
int store_identity(Store *s, char *id, size_t cap, char *err);
/* The last part of the store's file name ("runs.db"). */
const char *store_file_name(const Store *s);

/* The checkpoint folder of the store at db_path, absolute (the store is read
   from other working directories too): "DIR/NAME.ckpt" for "DIR/NAME.db",
   "DIR/FILE.ckpt" for any other file name.  Not created here. */
void store_ckpt_dir_for(const char *db_path, char *out, size_t cap);

/* Records the checkpoint at path, written for run_id at step: a resumable
   one (resumable 1: the run resumes from it from now on, as
   store_job_set_resume) or a final one (store_checkpoint_add).  The file's
   metadata must name this store, run_id and step; its size and config hash
   join the row, in the same transaction. */
int store_checkpoint_record(Store *s, int64_t run_id, int64_t step, const char *path, int resumable,
                            char *err);

/* 0 when the file at path is the checkpoint the store recorded for run_id:
   its row exists, the size matches, and the metadata names this store, the
   run and the row's step (and the row's config hash); else -1 with one line
   naming both owners, e.g. "checkpoint X belongs to store 3f..a1 (a.db) run
   1 step 10, this is store 9c..02 (b.db) run 1 step 20"; or
   STORE_CKPT_MISSING when there is no file at path any more (a store moved
   to another machine without its checkpoints): nobody else's file, just
   none. */
#define STORE_CKPT_MISSING (-2)
int store_checkpoint_verify(Store *s, int64_t run_id, const char *path, char *err);

/* The run's latest checkpoint (highest step), verified as above, into
   path[cap] and *step.  A run without one is an error naming its status. */
int store_run_checkpoint(Store *s, int64_t run_id, char *path, size_t cap, int64_t *step, char *err);

/* Records where a job can resume from: resume_ckpt, resume_step and the
   checkpoints row, in one transaction
   (joining the caller's when one is open). */
int store_job_set_resume(Store *s, int64_t run_id, int64_t step, const char *ckpt_path, char *err);

#endif
