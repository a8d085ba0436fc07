/*
 * study_files.h — the study files of a folder, as `mixbench study list`
 * and the workbench's New sweep form offer them (./studies): each file
 * ending in .yaml or .yml read and checked (study_load), sorted by file
 * name, the built-in studies' own files left out; a file that does not
 * read keeps its one-line error (file, line and column).
 *
 * Not for: reading one study (experiments/study.h), the studies this
 * process knows (experiments/presets.c).
 */
#ifndef MIXBENCH_STUDY_FILES_H
#define MIXBENCH_STUDY_FILES_H

#include "engine/common.h"
#include "experiments/study.h"

enum { STUDY_FILES_MAX = 512, STUDY_PATH_LEN = 1100 };

typedef struct {
    char path[STUDY_PATH_LEN];   /* "studies/my-question.yaml" */
    Study *study;                /* the file read and checked; NULL: it does not read */
    char error[ERR_LEN];         /* why it does not read, as `study check` says it */
    int differs_builtin;         /* its name is a built-in study's, with other text */
} StudyFile;

/* The study files of dir (at most STUDY_FILES_MAX), sorted by name, but
   the built-in studies' own files: *out malloc'd (study_files_free; NULL
   when *n is 0).  A folder that is not there has none.  -1 with err only
   when out of memory. */
int study_files_list(const char *dir, StudyFile **out, int *n, char *err);
void study_files_free(StudyFile *files, int n);

#endif
