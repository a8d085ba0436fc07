/*
 * sweep_state.h — what the files of the New sweep screen share: its fields
 * (F_PRESET .. F_QUEUE), the tasks it offers, and its state (SweepScreen:
 * the fields' values and what is derived from them on every change).
 *
 *   ui/sweep_studies.c   the studies offered: built in, ./studies, typed
 *   ui/sweep_estimate.c  the estimate: the store's speeds, the Time line
 *   ui/sweep_form.c      the fields: which apply, the spec they compose and
 *                        its check, the form the store remembers
 *   ui/sweep_draw.c      drawing the form and the preset list
 *   ui/screen_sweep.c    the screen: life cycle and keys
 *
 * each including the ones above it.
 *
 * Not for: any other screen.
 */
#ifndef MIXBENCH_UI_SWEEP_STATE_H
#define MIXBENCH_UI_SWEEP_STATE_H

#include "engine/common.h"
#include "experiments/estimate.h"
#include "experiments/study_files.h"
#include "experiments/sweep_check.h"
#include "ui/ui.h"

/* Columns the Conclusive checkbox takes; the cap of CPU hours follows on
   its row (an 80x24 terminal shows the whole form and its estimate). */
#define UNTIL_WIDTH 35

enum {
    F_PRESET, F_ARCH, F_TASK, F_DATA, F_AXES, F_BUDGET, F_EXTRA, F_PRIORITY, F_SEARCH, F_UNTIL, F_HOURS, F_QUEUE,
    N_FIELDS
};
enum { MAX_MIXERS = 16, MAX_CHOICES = 96, LABEL_WIDTH = 11, N_TASKS = 5 };

/* The preset list's first entries: (none) builds a grid, the next takes a
   study file's path typed there; the studies offered follow. */
enum { LIST_GRID = 0, LIST_PATH = 1, LIST_FIRST_STUDY = 2 };

/* The tasks the Task field cycles through (ui/sweep_form.c). */
extern const char *const TASKS[N_TASKS];

/* A study the form offers (ui/sweep_studies.c): a built-in one, or a
   study file (one of ./studies, or a path typed in the list). */
typedef struct {
    const Preset *builtin;       /* a built-in study, else NULL: a file */
    char path[STUDY_PATH_LEN];   /* a file's path, the word `mixbench sweep PATH` takes */
    int typed;                   /* typed in the list, not one of ./studies */
    Study *study;                /* the file read and checked; NULL when it does not read */
    char error[ERR_LEN];         /* why it does not read: file:line:column: what */
    int jobs;                    /* its job count; -1 when its grid does not parse */
} SweepChoice;

typedef struct {
    int field;                   /* the focused field */
    int editing;                 /* a text field is being edited */
    int preset;                  /* -1: build a grid, else choices[preset] */
    SweepChoice choices[MAX_CHOICES];      /* the studies offered (ui/sweep_studies.h) */
    int n_choices;
    int list_open, list_sel, list_scroll;  /* the preset list; list_sel an entry (LIST_*) */
    int path_editing;            /* the list's path entry is typed in */
    UiTextField path;            /* what is typed there */
    int n_mixers;
    const char *mixers[MAX_MIXERS];
    int arch_on[MAX_MIXERS];
    int arch_cursor;
    int task;
    int until;                   /* --until-conclusive (a preset's sweep) */
    UiTextField text[N_FIELDS];  /* used for F_DATA .. F_PRIORITY and F_HOURS */
    char grid_data[UI_FIELD_CAP];   /* the dataset typed for a grid, back when the preset is (none) */
    char saved_form[4 * UI_FIELD_CAP];   /* the form as the store last remembered it */
    /* derived from the fields on every change */
    char spec[2048];
    int n_jobs;                  /* 0 when the spec does not parse */
    char error[ERR_LEN];         /* why it does not parse */
    char warning[ERR_LEN];       /* e.g. a dataset path that does not exist */
    double estimate_seconds;
    char estimate_basis[1024];    /* each architecture's tokens/s and where it comes from */
    char estimate_prune[160];    /* what --prune makes of it ("" without) */
    char estimate_tune[160];     /* what lr=tune's searches add ("" without) */
    /* what the jobs would find when they start (sweep_check): their data
       loads and their memory; checked again only when spec or data change,
       and not while a field is edited (loading data takes a moment) */
    SweepCheck check;
    int checked;                 /* check holds this spec's result */
    char checked_key[2600];      /* spec + data it was made for */
    char data_error[ERR_LEN];    /* the data cannot be loaded: why */
    SpeedBook book;              /* the store's measured training speeds (experiments/estimate.h) */
    double speeds_at;
} SweepScreen;

#endif
