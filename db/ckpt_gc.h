/*
 * ckpt_gc.h — the space a store's checkpoints take, and giving it back
 * (`mixbench gc`, the workbench's status line).
 *
 * What may go: files in the store's own folder (NAME.ckpt/, db/ckpt_owner.h)
 * that no run of the store names (no checkpoints row, no resume point), and
 * with a keep policy the older checkpoints of finished runs.  What never
 * goes: a file whose metadata names another store; a file of a running run
 * or one written in the last minute (a job records a checkpoint just after
 * writing it); a file outside NAME.ckpt/ that does not name this store
 * (folders such as mixbench-ckpt/ were shared by every store beside it
 * before schema version 6, so its files may be another store's).  Rows go
 * first, then files: a crash in between leaves an unnamed file that the
 * next gc finds.
 *
 * Not for: writing checkpoints (experiments/job.c).
 */
#ifndef MIXBENCH_CKPT_GC_H
#define MIXBENCH_CKPT_GC_H

#include <stdint.h>

#include "db/store.h"

typedef enum {
    GC_KEEP_ALL,     /* only files no run names */
    GC_KEEP_LAST,    /* and of a finished run, every checkpoint but its latest */
    GC_KEEP_BEST,    /* ... but the one at its best valid evaluation (else its latest) */
    GC_KEEP_NONE,    /* ... every checkpoint of a finished run */
} GcKeep;

/* "last", "best", "none" -> *keep; -1 for anything else. */
int gc_keep_parse(const char *text, GcKeep *keep);

typedef struct {
    char path[1024];
    int64_t run_id;          /* 0: a file no run names */
    int64_t step;
    int64_t bytes;
} GcItem;

typedef struct {
    GcItem *items;           /* malloc'd */
    int n;
    int64_t bytes;           /* all of them */
    int kept_foreign;        /* files in the folder that another store's metadata names */
    int kept_outside;        /* rows whose file lies outside the folder and names no store */
} GcPlan;

/* What gc would remove (nothing is changed). */
int store_gc_plan(Store *s, GcKeep keep, GcPlan *plan, char *err);
/* The same with the keep policy applied only to the runs only[0..n_only)
   (sorted in place; only NULL: every finished run): `gc --keep K --where
   EXPR`.  Files no run names go either way. */
int store_gc_plan_runs(Store *s, GcKeep keep, int64_t *only, int n_only, GcPlan *plan, char *err);
/* Removes plan's rows (one transaction), then its files. */
int store_gc_apply(Store *s, const GcPlan *plan, char *err);
void gc_plan_free(GcPlan *plan);

/* `mixbench purge`: the runs and sweeps in the trash (db/organise.h) go
   for good, with the checkpoint files of those runs that are the store's
   own (in its folder, or naming it in their metadata; a file that is
   neither is kept and counted in kept_outside).  The plan lists the files
   and counts the rows; nothing is changed. */
typedef struct {
    GcPlan files;
    int n_runs, n_sweeps;
    char upto[32];           /* the newest deleted_at planned: apply takes nothing newer */
} PurgePlan;

int store_purge_plan(Store *s, PurgePlan *plan, char *err);
/* Deletes the plan's rows (one transaction: metrics, evaluations,
   checkpoints rows and tags go with their runs), then its files. */
int store_purge_apply(Store *s, const PurgePlan *plan, char *err);
void purge_plan_free(PurgePlan *plan);

typedef struct {
    int64_t store_bytes;     /* the SQLite file with its -wal */
    int64_t ckpt_bytes;      /* the checkpoint folder's files and the named files outside it */
    int ckpt_files;
} StoreUsage;

int store_usage(Store *s, StoreUsage *u, char *err);

#endif
