/*
 * sweeps_read.h — typed reads of sweeps for the workbench's Grid and
 * AE/Bidir screens: the latest sweeps (of some presets, or all) and a
 * sweep's axes; axes come apart in SQL (json_each), so no caller parses
 * JSON.
 *
 * Not for: a sweep's jobs and their numbers, or the paper figures
 * (db/results.h: ResultRun, FigureRow, SweepRow, which this file reuses),
 * or writing (db/jobs.h).
 */
#ifndef MIXBENCH_SWEEPS_READ_H
#define MIXBENCH_SWEEPS_READ_H

#include <stdint.h>

#include "db/results.h"
#include "db/status.h"
#include "db/store.h"

enum { SWEEP_MAX_AXES = 16, SWEEP_MAX_NAMES = 16 };

/* The latest `limit` sweeps (highest ids) not in the trash, oldest first.
   names[n_names] keeps the sweeps queued from one of those presets
   (SweepRow.preset; at most SWEEP_MAX_NAMES); n_names 0: every sweep.
   *out is malloc'd (free() it; NULL when *n is 0). */
int sweeps_read_latest(Store *s, const char *const *names, int n_names, int limit, SweepRow **out, int *n,
                       char *err);
/* As sweeps_read_latest, keeping also the sweeps with a job of one of
   tasks[n_tasks] (at most SWEEP_MAX_NAMES): a study of one's own that
   trains those tasks.  n_names and n_tasks both 0: every sweep. */
int sweeps_read_latest_tasks(Store *s, const char *const *names, int n_names, const char *const *tasks,
                             int n_tasks, int limit, SweepRow **out, int *n, char *err);
/* The AE/Bidir sweeps (the screen, `mixbench plot ae`): the Masked Mixers
   II presets' (autoencoder, bidirectional, completion) and any other with
   a job of their tasks (autoencode, bidir, complete). */
int sweeps_read_latest_ae(Store *s, int limit, SweepRow **out, int *n, char *err);

/* A sweep's axis keys in order (the strings of sweeps.axes_json); an
   unknown sweep has none. */
typedef struct {
    int n;
    char key[SWEEP_MAX_AXES][64];
} SweepAxes;

int sweeps_read_axes(Store *s, int64_t sweep_id, SweepAxes *out, char *err);

/* One job of a sweep: its runs row and its results row. */
/* The distinct study files (sweeps.study, schema 10) of the store's sweeps,
   oldest sweep first: *texts (n of them) malloc'd, each text too (free
   them with sweeps_studies_free). */
int sweeps_read_studies(Store *s, char ***texts, int *n, char *err);
void sweeps_studies_free(char **texts, int n);
/* The first sweep queued from study name (SweepRow.preset name or
   name@paper, in the trash or not) whose stored study has other text than
   text, into *sweep_id; 0 when there is none. */
int sweeps_read_study_differs(Store *s, const char *name, const char *text, int64_t *sweep_id, char *err);

#endif
