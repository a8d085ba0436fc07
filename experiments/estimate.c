/*
 * estimate.c — the time estimate of estimate.h.  The per-token FLOPs follow
 * model_train_flops_per_token (engine/model.c) term by term, from the
 * mixer's parameter declarations and the task's stacks, so a 100M-parameter
 * @paper job is estimated without allocating it.
 */
#include "experiments/estimate.h"

#include <assert.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/mixer.h"
#include "engine/task.h"
#include "engine/text.h"

double estimate_train_flops_per_token(const Config *c)
{
    const MixerOps *mixer = mixer_find(c->arch);
    const TaskOps *task = task_find(c->task);
    if (!mixer || !task) return NAN;
    double d = c->d, V = c->vocab > 0 ? c->vocab : 10000;
    Config resolved = *c;
    if (resolved.d_pair == 0) resolved.d_pair = c->d;
    StackSpec specs[MODEL_MAX_STACKS];
    int n_stacks = task->stacks(&resolved, mixer, specs);
    ParamDecl decl[MIX_MAX_PARAMS];
    int n_decl = mixer->declare(&resolved, decl);
    double mixer_dense = 0;
    for (int k = 0; k < n_decl; k++)
        if (decl[k].dense) mixer_dense += (double)decl[k].shape[0] * (decl[k].ndim > 1 ? decl[k].shape[1] : 1);
    double ffn = 2.0 * d * d * c->ffn_mult;
    double f = 6.0 * d * V;      /* the head (a tied head counted once) */
    for (int s = 0; s < n_stacks; s++)
        f += c->layers * (6.0 * (mixer_dense + ffn) + mixer->extra_flops_per_token(&resolved, specs[s].causal));
    return f;
}

static double file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (double)st.st_size : 0;
}

double estimate_eval_tokens(const Config *c)
{
    if (!strncmp(c->data, "builtin:", 8)) return 0;
    double bytes = 0;
    struct stat st;
    if (stat(c->data, &st) != 0) return 0;
    if (S_ISDIR(st.st_mode)) {
        DIR *dir = opendir(c->data);
        struct dirent *e;
        while (dir && (e = readdir(dir)) != NULL) {
            if (!strstr(e->d_name, "valid") && !strstr(e->d_name, "test")) continue;
            char path[1400];
            snprintf(path, sizeof path, "%s/%s", c->data, e->d_name);
            bytes += file_size(path);
        }
        if (dir) closedir(dir);
    } else {
        bytes = 0.10 * (double)st.st_size;      /* 5% valid + 5% test */
    }
    double per_token = !strcmp(c->tokenizer, "char") ? 1.0 : !strcmp(c->tokenizer, "bpe") ? 3.5 : 5.3;
    double split = bytes / per_token / 2.0;      /* valid and test alike */
    if (c->eval_tokens > 0 && split > (double)c->eval_tokens) split = (double)c->eval_tokens;
    return 2.0 * split;
}

int estimate_eval_every(int64_t total_steps, double tokens_per_step, double eval_tokens)
{
    if (total_steps < 2) return 0;
    double n = EVAL_AUTO_COUNT;
    if (eval_tokens > 0) {
        double affordable = floor(3.0 * EVAL_AUTO_SHARE * (double)total_steps * tokens_per_step / eval_tokens);
        if (affordable < n) n = affordable;
    }
    if (n < 1) return 0;
    int64_t every = (int64_t)ceil((double)total_steps / n);
    return every >= total_steps ? 0 : (int)every;
}

SweepEstimate sweep_estimate(const Sweep *sw, int parallel)
{
    assert(sw);
    SweepEstimate e = {0};
    const char *env = getenv("MIXBENCH_GFLOPS");
    double rate;
    e.rate_from_env = env && text_to_double(env, &rate) == 0 && rate > 0;
    e.gflops = e.rate_from_env ? rate : ESTIMATE_DEFAULT_GFLOPS;
    double total_seconds = 0;
    for (int j = 0; j < sw->n_jobs; j++) {
        const Config *c = &sw->jobs[j].config;
        double per_token = estimate_train_flops_per_token(c);
        if (!isfinite(per_token)) continue;
        int threads = c->threads > 0 ? c->threads : 1;
        double rate = e.gflops * 1e9 * threads;
        double tokens = c->tokens > 0 ? (double)c->tokens : (double)c->steps * c->batch * c->n_ctx;
        double train = per_token * tokens, eval = per_token / 3.0 * estimate_eval_tokens(c);
        /* eval_every=auto: at most a tenth of the training more */
        if (c->eval_every == -1) eval += EVAL_AUTO_SHARE * train;
        e.train_flops += train;
        e.eval_flops += eval;
        total_seconds += (c->tokens <= 0 && c->seconds > 0 ? c->seconds : train / rate) + eval / rate;
    }
    e.seconds = total_seconds / (parallel > 0 ? parallel : 1);
    return e;
}
