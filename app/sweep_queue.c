/*
 * sweep_queue.c — sweep_enqueue of sweep_queue.h.
 */
#include "app/sweep_queue.h"

#include "db/jobs.h"
#include "engine/common.h"
#include "engine/io/json.h"

/* One transaction: a sweep is queued whole or not at all. */
int sweep_enqueue(Store *st, const Sweep *sw, int priority, int64_t *sweep_id, char *err)
{
    if (store_begin(st, "queue sweep", err)) return -1;
    int rc = store_sweep_create(st, sw->name, sw->spec, sw->axes, sweep_id, err);
    const Preset *preset = preset_find(sw->name);
    for (int i = 0; !rc && preset && i < preset->n_paper; i++)
        rc = store_paper_figure_add(st, preset->name, preset->paper[i].coords, preset->paper[i].metric,
                                    preset->paper[i].value, preset->paper[i].note, NULL, NULL, err);
    for (int i = 0; !rc && i < sw->n_jobs; i++) {
        const Config *c = &sw->jobs[i].config;
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
