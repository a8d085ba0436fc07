/*
 * study_files.c — the study files of a folder (study_files.h).
 */
#include "experiments/study_files.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/sweep.h"

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The names of dir's study files, sorted (malloc'd, each name too). */
static int file_names(const char *dir, char ***names, int *n, char *err)
{
    *names = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) return 0;
    char **list = malloc(STUDY_FILES_MAX * sizeof *list);
    int count = 0, rc = list ? 0 : err_set(err, "study files: out of memory");
    struct dirent *e;
    while (!rc && count < STUDY_FILES_MAX && (e = readdir(d)))
        if (study_is_file(e->d_name) && !(list[count++] = strdup(e->d_name)))
            rc = err_set(err, "study files: out of memory"), count--;
    closedir(d);
    if (rc) {
        for (int i = 0; i < count; i++) free(list[i]);
        free(list);
        return -1;
    }
    qsort(list, (size_t)count, sizeof *list, by_name);
    *names = list;
    *n = count;
    return 0;
}

int study_files_list(const char *dir, StudyFile **out, int *n, char *err)
{
    *out = NULL;
    *n = 0;
    char **names;
    int count;
    if (file_names(dir, &names, &count, err)) return -1;
    StudyFile *files = count ? calloc((size_t)count, sizeof *files) : NULL;
    if (count && !files) {
        for (int i = 0; i < count; i++) free(names[i]);
        free(names);
        return err_set(err, "study files: out of memory");
    }
    int kept = 0;
    for (int i = 0; i < count; i++) {
        StudyFile *f = &files[kept];
        snprintf(f->path, sizeof f->path, "%s/%s", dir, names[i]);
        free(names[i]);
        f->study = study_load(f->path, f->error);
        if (!f->study) {
            kept++;
            continue;
        }
        const Preset *p = study_preset(f->study), *known = preset_find(p->name);
        if (known && known->builtin && !strcmp(known->study_text, p->study_text)) {
            study_free(f->study);   /* the built-in study's own file */
            memset(f, 0, sizeof *f);
            continue;
        }
        f->differs_builtin = known && known->builtin;
        kept++;
    }
    free(names);
    if (!kept) free(files);
    *out = kept ? files : NULL;
    *n = kept;
    return 0;
}

void study_files_free(StudyFile *files, int n)
{
    for (int i = 0; files && i < n; i++) study_free(files[i].study);
    free(files);
}
