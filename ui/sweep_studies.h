/*
 * sweep_studies.h — the studies the New sweep form offers (ui/sweep_state.h
 * SweepChoice): the built-in ones, the study files in ./studies as
 * `mixbench study list` lists them (experiments/study_files.h), and the
 * paths typed in its list; each with its job count, a file that does not
 * read with the one-line error `mixbench study check` gives.  A file is
 * read here without being registered; the spec names it by its path, so
 * parsing and queueing it go the way `mixbench sweep PATH key=value` goes
 * (experiments/sweep.c preset_from_file, experiments/sweep_queue.c).
 *
 * Not for: reading study files (experiments/study.c), the fields
 * (ui/sweep_form.c), drawing (ui/sweep_draw.c).
 */
#ifndef MIXBENCH_UI_SWEEP_STUDIES_H
#define MIXBENCH_UI_SWEEP_STUDIES_H

#include "ui/sweep_state.h"

/* Reads the studies offered (again): the built-in ones, ./studies, the
   paths typed before (each file read anew); the study chosen stays chosen
   (a file by its path). */
void sweep_studies_load(SweepScreen *s);
void sweep_studies_free(SweepScreen *s);
/* The choice of the study file at path (one of ./studies, or a path typed
   before; added when new), the file read again; -1 when the list is full. */
int sweep_study_at_path(SweepScreen *s, const char *path);
/* The choice made; NULL: a grid. */
const SweepChoice *sweep_choice(const SweepScreen *s);
/* The chosen study's preset; NULL for a grid or a file that does not read. */
const Preset *sweep_preset(const SweepScreen *s);
/* What the spec starts with for choice c: a built-in study's name, a
   file's path. */
const char *sweep_choice_word(const SweepChoice *c);

#endif
