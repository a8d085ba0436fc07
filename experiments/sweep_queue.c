/*
 * sweep_queue.c — sweep_enqueue of sweep_queue.h: the sweep row, its
 * preset's paper figures (with the paper's setting, data paths expanded as
 * in the spec, so a figure's coords equal its jobs' coords without seed),
 * its study file's text and the jobs, in one transaction.
 */
#include "experiments/sweep_queue.h"

#include <assert.h>
#include <stdlib.h>

#include "db/jobs.h"
#include "db/organise.h"
#include "db/sweeps_read.h"
#include "engine/common.h"
#include "engine/io/json.h"
#include "experiments/prune.h"
#include "experiments/stats.h"

/* A study file whose name a sweep of this store was queued from with
   other text (the file edited since) is refused: the store knows a study
   by its name, so both sweeps would be judged by one text (the older). */
static int one_text(Store *st, const Preset *study, char *err)
{
    int64_t other;
    if (study->builtin || !study->study_text) return 0;   /* a built-in study is judged by this binary's */
    if (sweeps_read_study_differs(st, study->name, study->study_text, &other, err)) return -1;
    if (other)
        return err_set(err, "%s: sweep %lld of this store was queued from a study called '%s' with other text: "
                            "give the edited study another name (its name is how its sweeps find their claims)",
                       study->file, (long long)other, study->name);
    return 0;
}

/* One transaction: a sweep is queued whole or not at all. */
int sweep_enqueue(Store *st, const Sweep *sw, int priority, int64_t *sweep_id, char *err)
{
    assert(st && sw && err);
    if (store_begin(st, "queue sweep", err)) return -1;
    const Preset *preset = preset_find(sw->name);
    int rc = preset ? one_text(st, preset, err) : 0;
    if (!rc) rc = store_sweep_create(st, sw->name, sw->spec, sw->axes, sweep_id, err);
    if (!rc && sw->label[0]) rc = store_sweep_rename(st, *sweep_id, sw->label, err);
    /* the paper's figures at the preset's points, with the paper's setting
       (an @paper sweep has other coordinates: its name finds no preset) */
    for (int i = 0; !rc && preset && i < preset->n_paper; i++) {
        const PaperFigure *f = &preset->paper[i];
        char *coords = sweep_expand_data_var(f->coords);
        if (!coords) rc = err_set(err, "queue sweep: out of memory");
        else
            rc = store_paper_figure_add(st, preset->name, coords, f->metric, f->value, f->note, f->setting,
                                        paper_setting_text(f->setting), err);
        free(coords);
    }
    /* the study file it came from, so that a report of it reads its claims (study.h) */
    if (!rc && preset && preset->study_text) rc = store_sweep_set_study(st, *sweep_id, preset->study_text, err);
    /* what it does beyond its grid; with lr=tune its jobs wait for their
       points' searches, which experiments/adaptive.c queues */
    if (!rc && (sw->plan.lr_tune || sw->plan.until_conclusive || sw->plan.random_search || sw->plan.prune ||
                sw->plan.alpha != STATS_ALPHA)) {
        StrBuf plan;
        sb_init(&plan);
        sweep_plan_json(&sw->plan, &plan);
        rc = sb_ok(&plan) ? store_sweep_set_plan(st, *sweep_id, plan.data, err) : err_set(err, "out of memory");
        sb_free(&plan);
    }
    for (int i = 0; !rc && !sw->plan.lr_tune && i < sw->n_jobs; i++) {
        /* --prune asha: every trial starts at its first rung (prune.h) */
        Config first = sw->jobs[i].config;
        prune_first_rung(&sw->plan, &first);
        const Config *c = &first;
        StrBuf cfg;
        sb_init(&cfg);
        config_to_json(c, &cfg);
        RunInfo info = {0};
        info.arch = c->arch;
        info.task = c->task;
        info.data = c->data;
        info.tokenizer = c->tokenizer;
        info.config_json = cfg.data;
        info.seed = c->seed;
        info.threads = c->threads;
        info.d = c->d;
        info.layers = c->layers;
        info.heads = c->heads;
        info.n_ctx = c->n_ctx;
        info.vocab = c->vocab;
        int64_t run_id;
        rc = store_job_enqueue(st, &info, *sweep_id, sw->jobs[i].coords, priority, &run_id, err);
        sb_free(&cfg);
    }
    return store_end(st, rc, "queue sweep", err);
}
