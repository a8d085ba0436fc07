/*
 * sweep_studies.c — the studies the New sweep form offers
 * (ui/sweep_studies.h).
 */
#include "ui/sweep_studies.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/sweep.h"

/* The job count of a preset's grid, -1 when it does not parse: a built-in
   study by its name, a file by its grid (so nothing is registered). */
static int job_count(const char *word)
{
    Config base;
    config_defaults(&base);
    char *argv[1] = {(char *)word}, err[ERR_LEN];
    Sweep sw;
    if (sweep_parse(1, argv, &base, &sw, err)) return -1;
    int n = sw.n_jobs;
    sweep_free(&sw);
    return n;
}

static void choice_clear(SweepChoice *c)
{
    study_free(c->study);
    memset(c, 0, sizeof *c);
}

/* c a study file read from f (f's study moves to c). */
static void choice_of_file(SweepChoice *c, StudyFile *f, int typed)
{
    memset(c, 0, sizeof *c);
    snprintf(c->path, sizeof c->path, "%s", f->path);
    snprintf(c->error, sizeof c->error, "%s", f->error);
    c->typed = typed;
    c->study = f->study;
    f->study = NULL;
    c->jobs = c->study ? job_count(study_preset(c->study)->spec) : -1;
}

/* c the study file at path, read now. */
static void choice_read(SweepChoice *c, const char *path, int typed)
{
    StudyFile f;
    memset(&f, 0, sizeof f);
    snprintf(f.path, sizeof f.path, "%s", path);
    f.study = study_load(path, f.error);
    choice_of_file(c, &f, typed);
}

void sweep_studies_free(SweepScreen *s)
{
    for (int i = 0; i < s->n_choices; i++) choice_clear(&s->choices[i]);
    s->n_choices = 0;
}

void sweep_studies_load(SweepScreen *s)
{
    /* the choice made, and the paths typed, to find again */
    const SweepChoice *was = sweep_choice(s);
    const Preset *was_builtin = was ? was->builtin : NULL;
    char was_path[STUDY_PATH_LEN] = "";
    if (was && !was->builtin) snprintf(was_path, sizeof was_path, "%s", was->path);
    int n_typed = 0;
    char (*typed)[STUDY_PATH_LEN] = malloc(MAX_CHOICES * sizeof *typed);
    for (int i = 0; typed && i < s->n_choices; i++)
        if (s->choices[i].typed) snprintf(typed[n_typed++], STUDY_PATH_LEN, "%s", s->choices[i].path);
    /* the built-in studies (first) do not change: only the files are read again */
    int n_builtin = 0;
    while (n_builtin < s->n_choices && s->choices[n_builtin].builtin) n_builtin++;
    for (int i = n_builtin; i < s->n_choices; i++) choice_clear(&s->choices[i]);
    s->n_choices = n_builtin;

    for (int i = 0; !n_builtin && i < preset_count() && s->n_choices < MAX_CHOICES; i++) {
        const Preset *p = preset_at(i);
        if (!p->builtin) continue;   /* a study read at run time is offered by its file */
        SweepChoice *c = &s->choices[s->n_choices++];
        c->builtin = p;
        c->jobs = job_count(p->name);
    }
    StudyFile *files = NULL;
    int n_files = 0;
    char err[ERR_LEN];
    if (study_files_list("studies", &files, &n_files, err) == 0)
        for (int i = 0; i < n_files && s->n_choices < MAX_CHOICES; i++)
            choice_of_file(&s->choices[s->n_choices++], &files[i], 0);
    study_files_free(files, n_files);
    for (int i = 0; i < n_typed; i++) sweep_study_at_path(s, typed[i]);
    free(typed);

    if (s->preset < 0) return;
    s->preset = -1;
    for (int i = 0; i < s->n_choices && s->preset < 0; i++)
        if (was_builtin ? s->choices[i].builtin == was_builtin
                        : !s->choices[i].builtin && !strcmp(s->choices[i].path, was_path))
            s->preset = i;
    if (s->preset < 0 && was_path[0]) s->preset = sweep_study_at_path(s, was_path);   /* gone from ./studies */
}

int sweep_study_at_path(SweepScreen *s, const char *at)
{
    char path[STUDY_PATH_LEN];   /* at may be a choice's own path */
    snprintf(path, sizeof path, "%s", at);
    for (int i = 0; i < s->n_choices; i++) {
        SweepChoice *c = &s->choices[i];
        if (c->builtin || strcmp(c->path, path)) continue;
        int typed = c->typed;
        choice_clear(c);
        choice_read(c, path, typed);   /* as the file is now */
        return i;
    }
    if (s->n_choices == MAX_CHOICES) return -1;
    choice_read(&s->choices[s->n_choices], path, 1);
    return s->n_choices++;
}

const SweepChoice *sweep_choice(const SweepScreen *s)
{
    return s->preset >= 0 && s->preset < s->n_choices ? &s->choices[s->preset] : NULL;
}

const Preset *sweep_preset(const SweepScreen *s)
{
    const SweepChoice *c = sweep_choice(s);
    if (!c) return NULL;
    return c->builtin ? c->builtin : c->study ? study_preset(c->study) : NULL;
}

const char *sweep_choice_word(const SweepChoice *c)
{
    return c->builtin ? c->builtin->name : c->path;
}
