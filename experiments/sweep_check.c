/*
 * sweep_check.c — sweep_check of sweep_check.h: a small cache of the
 * datasets a sweep names (each loaded once, only its vocabulary, token
 * counts and size kept, then freed), each job checked against its entry.
 */
#include "experiments/sweep_check.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/data/data.h"
#include "engine/memory.h"
#include "engine/pool.h"
#include "engine/task.h"

/* What the loader gives for one (data, tokenizer, vocab, min_count, n_ctx). */
typedef struct {
    char key[1200];
    int vocab;
    size_t len[SPLIT_COUNT];
    double bytes;
} DataEntry;

/* The loader's inputs: n_ctx only shapes the built-in diagnostic corpora. */
static void data_key(const Config *c, char *key, size_t cap)
{
    int builtin = !strncmp(c->data, "builtin:", 8);
    snprintf(key, cap, "%s|%s|%d|%d|%d", c->data, c->tokenizer, c->vocab, c->min_count, builtin ? c->n_ctx : 0);
}

static int load_entry(const Config *job, DataEntry *e, char *err)
{
    Config c = *job;
    Dataset ds;
    memset(&ds, 0, sizeof ds);
    int rc = dataset_load_config(&c, NULL, &ds, err);
    if (!rc) {
        e->vocab = c.vocab;
        for (int k = 0; k < SPLIT_COUNT; k++) e->len[k] = ds.split[k].len;
        e->bytes = dataset_bytes(&ds);
    }
    dataset_free(&ds);
    return rc;
}

int sweep_check(const Sweep *sw, SweepCheck *out, char *err)
{
    assert(sw && err);
    memset(out, 0, sizeof *out);
    out->jobs = calloc((size_t)(sw->n_jobs ? sw->n_jobs : 1), sizeof *out->jobs);
    DataEntry *cache = calloc((size_t)(sw->n_jobs ? sw->n_jobs : 1), sizeof *cache);
    if (!out->jobs || !cache) {
        free(cache);
        sweep_check_free(out);
        return err_set(err, "out of memory");
    }
    out->n_jobs = sw->n_jobs;
    out->available = memory_available(&out->source);
    int n_cache = 0, rc = 0;
    for (int j = 0; !rc && j < sw->n_jobs; j++) {
        const Config *c = &sw->jobs[j].config;
        char key[1200];
        data_key(c, key, sizeof key);
        DataEntry *e = NULL;
        for (int k = 0; k < n_cache && !e; k++)
            if (!strcmp(cache[k].key, key)) e = &cache[k];
        if (!e) {
            e = &cache[n_cache];
            snprintf(e->key, sizeof e->key, "%s", key);
            char why[ERR_LEN];
            if (load_entry(c, e, why)) {
                rc = err_set(err, "%s (job %d: data=%.200s)", why, j + 1, c->data);
                break;
            }
            n_cache++;
        }
        Config resolved = *c;
        resolved.vocab = e->vocab;
        const TaskOps *task = task_find(c->task);
        int window = task ? task->window_len(&resolved) : c->n_ctx;
        /* training needs a window of train, the evaluations one of valid and test */
        static const char *const SPLITS[SPLIT_COUNT] = {"train", "valid", "test"};
        for (int k = 0; !rc && k < SPLIT_COUNT; k++)
            if (e->len[k] < (size_t)window)
                rc = err_set(err, "the %s split of %.200s has %zu tokens, fewer than one window of %d (job %d: "
                                  "n_ctx=%d)", SPLITS[k], c->data, e->len[k], window, j + 1, c->n_ctx);
        if (rc) break;
        char why[ERR_LEN];
        if (config_validate(&resolved, why)) {
            rc = err_set(err, "job %d: %s", j + 1, why);
            break;
        }
        MemoryNeed need;
        int threads = c->threads > 0 ? c->threads : pool_cores();
        if (job_memory_bytes(&resolved, threads, e->bytes, 0, &need, why)) {
            rc = err_set(err, "job %d: %s", j + 1, why);
            break;
        }
        SweepJobCheck *jc = &out->jobs[j];
        jc->need = need.total;
        jc->vocab = e->vocab;
        jc->fits = !(need.total > out->available);
        out->n_unfit += !jc->fits;
        if (need.total > out->largest) out->largest = need.total;
    }
    free(cache);
    if (rc) sweep_check_free(out);
    return rc;
}

void sweep_check_free(SweepCheck *c)
{
    free(c->jobs);
    memset(c, 0, sizeof *c);
}
