/*
 * organise.h — keeping a store tidy (schema version 7): names of runs and
 * sweeps, tags and notes, stars that protect a run, and the trash.
 *
 * A run or sweep in the trash (deleted_at set) is in no view but
 * results_all and trash, so no screen, report, claim or `ls` shows it; it
 * keeps its rows and checkpoint files until purge (db/ckpt_gc.h:
 * store_purge_plan) deletes them for good.  What refuses to go to the
 * trash: a starred run ("protected"), a queued or running run (a worker
 * holds or may take it: pause or cancel it first), and a sweep with such a
 * run.  A paused or interrupted run may go: resuming it is refused while
 * it is in the trash (db/jobs.c), so nothing trains there.
 *
 * Everything that changes a run here refuses a run in the trash, with the
 * line "run N is in the trash (`mixbench restore N`)", restore excepted.
 *
 * Not for: choosing runs by a filter (experiments/run_filter.h) or the
 * workbench's settings (db/settings.h).
 */
#ifndef MIXBENCH_ORGANISE_H
#define MIXBENCH_ORGANISE_H

#include <stddef.h>
#include <stdint.h>

#include "db/store.h"

/* The limits of what a user types, each the bytes it may hold plus one
   (its terminating 0): every field is refused over it, in one line, by the
   store (store_text_check), so the command line and the workbench agree. */
#define STORE_NAME_MAX 64        /* bytes of a run's name */
#define STORE_SWEEP_NAME_MAX 64  /* bytes of a sweep's name (as `sweep --name`) */
#define STORE_TAG_MAX 32         /* bytes of a tag */
#define STORE_NOTE_MAX 1000      /* bytes of a note (a run's or a sweep's) */

/* What a user's text is for, with its limit (STORE_*_MAX). */
typedef enum { STORE_TEXT_NAME, STORE_TEXT_SWEEP_NAME, STORE_TEXT_TAG, STORE_TEXT_NOTE } StoreText;

/* The limit of kind in bytes (STORE_*_MAX - 1). */
int store_text_limit(StoreText kind);
/* 0 when `bytes` bytes fit kind; else -1 and the line "a note is at most
   999 bytes (this one has 1200)". */
int store_text_fits(StoreText kind, size_t bytes, char *err);
/* 0 when text may be stored as kind: within its limit, UTF-8, and no
   control character (a byte below 32, or 127: a terminal would act on
   it); else -1 with the one line naming the problem.  Names (of runs and
   sweeps) also may not be all digits (that is an id) nor start with
   "sweep:" (that names a sweep). */
int store_text_check(StoreText kind, const char *text, char *err);

/* The run that text names: an id (all digits), or a name that one run has
   (a name two runs have, as older stores may hold, is refused as
   ambiguous, listing their ids: use an id).  in_trash 0 looks among the
   runs not in the trash (a run id in the trash is refused naming
   restore), 1 among those in it (for restore).  An absent run: "no run X
   in FILE" (with where to look).  Every command that takes a run resolves
   it here. */
int store_run_lookup(Store *s, const char *text, int in_trash, int64_t *run_id, char *err);
/* The same for a sweep: an id or a name. */
int store_sweep_lookup(Store *s, const char *text, int in_trash, int64_t *sweep_id, char *err);
/* The line of a run in the trash into err: "run N is in the trash
   (`mixbench restore N` takes it back)"; returns -1. */
int store_err_trashed(int64_t run_id, char *err);
/* *trashed 1 when the run is in the trash (0 for a run that is not, or
   does not exist). */
int store_run_trashed(Store *s, int64_t run_id, int *trashed, char *err);

/* runs.name / sweeps.name; "" or NULL clears a run's name (a sweep's name
   cannot be empty).  A name must mean one run (one sweep): a name another
   run already has -- also one in the trash, until it is purged, restored
   and renamed -- is refused, naming that run; so is text that
   store_text_check refuses. */
int store_run_rename(Store *s, int64_t run_id, const char *name, char *err);
int store_sweep_rename(Store *s, int64_t sweep_id, const char *name, char *err);
/* 0 when a new run (kind STORE_TEXT_NAME) or sweep (STORE_TEXT_SWEEP_NAME)
   may be given name: store_text_check's rules, and no run (sweep) has it,
   in the trash or not; else -1 with the line naming the problem (`run
   --name`, `sweep --name`). */
int store_name_free(Store *s, StoreText kind, const char *name, char *err);
/* runs.note / sweeps.note; "" or NULL clears it (store_text_check). */
int store_run_note(Store *s, int64_t run_id, const char *note, char *err);
int store_sweep_note(Store *s, int64_t sweep_id, const char *note, char *err);
/* A run's whole note into out ("" when none; cap STORE_NOTE_MAX holds any
   note stored since the limit), for editing it. */
int store_run_note_read(Store *s, int64_t run_id, char *out, size_t cap, char *err);
/* Starred runs are protected from the trash. */
int store_run_star(Store *s, int64_t run_id, int starred, char *err);

/* 0 when tag is a tag: 1 to STORE_TAG_MAX - 1 bytes (store_text_check), printable, no space,
   comma, quote or '#', not starting with '!' (the filter's own characters);
   else -1 with the reason. */
int store_tag_check(const char *tag, char *err);
/* Adds (add 1) or removes (add 0) a tag; *changed 1 when the run did not
   have it (or had it) before (changed may be NULL). */
int store_run_tag(Store *s, int64_t run_id, const char *tag, int add, int *changed, char *err);

/* Puts the run into the trash: refused, with one line saying why, for a
   starred run, a queued or running one, one already there, or none. */
int store_run_trash(Store *s, int64_t run_id, char *err);
/* Takes it back out (and its sweep, when that is in the trash: a restored
   run is seen in its sweep again). */
int store_run_restore(Store *s, int64_t run_id, char *err);
/* The sweep and every run of it not yet in the trash, with one stamp;
   refused, naming the run, when one of them is starred, queued or running.
   *n_runs: how many runs went along (may be NULL). */
int store_sweep_trash(Store *s, int64_t sweep_id, int *n_runs, char *err);
/* The sweep and the runs that went with it (those with its stamp). */
int store_sweep_restore(Store *s, int64_t sweep_id, int *n_runs, char *err);

/* One row of the trash view. */
typedef struct {
    int is_sweep;
    int64_t id;
    char name[128];
    char what[96];              /* a run's "arch task", a sweep's preset */
    char status[32];            /* a run's status, a sweep's "N runs" */
    int64_t sweep_id;           /* a run's sweep (0: none) */
    char deleted_at[32];
} TrashItem;

/* What is in the trash, newest first.  *out malloc'd (NULL when *n is 0). */
int store_trash_list(Store *s, TrashItem **out, int *n, char *err);

#endif
