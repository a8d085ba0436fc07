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

#include "db/queue_read.h"
#include "engine/common.h"
#include "engine/data/data.h"
#include "engine/io/json.h"
#include "engine/mixer.h"
#include "engine/task.h"
#include "engine/text.h"
#include "experiments/format.h"

double estimate_train_flops_per_token(const Config *c)
{
    const MixerOps *mixer = mixer_find(c->arch);
    const TaskOps *task = task_find(c->task);
    if (!mixer || !task) return NAN;
    /* the vocabulary: the config's, a diagnostic corpus's vocab= (read
       from its spec), else 10000 (a word-level corpus's order) */
    int data_vocab = c->vocab > 0 ? 0 : data_builtin_vocab(c->data);
    double d = c->d, V = c->vocab > 0 ? c->vocab : data_vocab > 0 ? data_vocab : 10000;
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

int speed_book_load(Store *s, SpeedBook *b, char *err)
{
    assert(s && b && err);
    b->runs = NULL;
    b->n = 0;
    RunSpeed *rows;
    int n;
    if (queue_read_run_speeds(s, &rows, &n, err)) return -1;
    b->runs = calloc((size_t)(n ? n : 1), sizeof *b->runs);
    if (!b->runs) {
        queue_speeds_free(rows, n);
        return err_set(err, "estimate: out of memory");
    }
    for (int i = 0; i < n; i++) {
        MeasuredSpeed *m = &b->runs[b->n];
        char jerr[ERR_LEN];
        JsonValue *obj = json_parse(rows[i].config_json, strlen(rows[i].config_json), jerr);
        config_defaults(&m->config);
        int bad = !obj || config_from_json(&m->config, obj, 1, jerr);
        json_free(obj);
        double per_token = estimate_train_flops_per_token(&m->config);
        if (bad || !isfinite(per_token)) continue;   /* a config of an older version: not comparable */
        m->id = rows[i].id;
        m->tokens_per_s = rows[i].tokens_per_s;
        m->flops_per_token = per_token;
        b->n++;
    }
    queue_speeds_free(rows, n);
    return 0;
}

void speed_book_free(SpeedBook *b)
{
    free(b->runs);
    b->runs = NULL;
    b->n = 0;
}

static int threads_of(const Config *c) { return c->threads > 0 ? c->threads : 1; }

/* The same arch, task, threads and precision: runs whose speed says
   something of the other's. */
static int same_setting(const Config *a, const Config *b)
{
    return !strcmp(a->arch, b->arch) && !strcmp(a->task, b->task) && threads_of(a) == threads_of(b) &&
           a->precision == b->precision;
}

static int same_shape(const Config *a, const Config *b)
{
    return same_setting(a, b) && a->d == b->d && a->layers == b->layers && a->heads == b->heads &&
           a->n_ctx == b->n_ctx && a->batch == b->batch;
}

/* m is one more run of src. */
static void source_add(SpeedSource *src, const MeasuredSpeed *m)
{
    if (src->n_runs < ESTIMATE_MAX_SOURCES) src->ids[src->n_runs] = m->id;
    src->n_runs++;
}

/* The mean tokens/s of the book's runs of c's shape, else of the similar
   shape nearest c in FLOPs a token (per_token, c's) scaled to c's: *src
   names them; 0 when none. */
static double measured_speed(const SpeedBook *book, const Config *c, double per_token, SpeedSource *src)
{
    const MeasuredSpeed *nearest = NULL;
    double best = log(ESTIMATE_SIMILAR_FLOPS) + 1e-9;
    for (int pass = 0; pass < 2; pass++) {
        const Config *want = pass == 0 ? c : nearest ? &nearest->config : NULL;
        double sum = 0;
        for (int i = 0; want && book && i < book->n; i++) {
            const MeasuredSpeed *m = &book->runs[i];
            if (!same_shape(&m->config, want)) continue;
            sum += pass == 0 ? m->tokens_per_s : m->tokens_per_s * m->flops_per_token / per_token;
            source_add(src, m);
        }
        for (int i = 0; pass == 0 && book && i < book->n; i++) {
            const MeasuredSpeed *m = &book->runs[i];
            double far = fabs(log(m->flops_per_token / per_token));
            if (same_setting(&m->config, c) && far < best) best = far, nearest = m;
        }
        if (src->n_runs) {
            src->basis = pass == 0 ? SPEED_MEASURED : SPEED_SCALED;
            if (pass == 1)
                snprintf(src->shape, sizeof src->shape, "d=%d layers=%d heads=%d n_ctx=%d batch=%d", want->d,
                         want->layers, want->heads, want->n_ctx, want->batch);
            return sum / src->n_runs;
        }
    }
    return 0;
}

double estimate_tokens_per_s(const SpeedBook *book, const Config *c, double gflops, SpeedSource *src)
{
    assert(c && src);
    memset(src, 0, sizeof *src);
    src->basis = SPEED_ASSUMED;
    /* a job's vocab is its data's, known once it loads: a run of the same
       data and tokenizer knows it */
    Config known = *c;
    for (int i = 0; known.vocab <= 0 && book && i < book->n; i++) {
        const Config *m = &book->runs[i].config;
        if (!strcmp(m->data, c->data) && !strcmp(m->tokenizer, c->tokenizer)) known.vocab = m->vocab;
    }
    double per_token = estimate_train_flops_per_token(&known);
    if (!isfinite(per_token) || !(per_token > 0)) return NAN;
    double tps = measured_speed(book, c, per_token, src);
    return src->basis != SPEED_ASSUMED ? tps : gflops * 1e9 * threads_of(c) / per_token;
}

/* The job's estimate joins its architecture's line. */
static void note_arch(SweepEstimate *e, const Config *c, double tps, const SpeedSource *src, int *jobs)
{
    int a = 0;
    while (a < e->n_archs && strcmp(e->arch[a].arch, c->arch)) a++;
    if (a == e->n_archs) {
        if (a == ESTIMATE_MAX_ARCHS) return;
        e->n_archs++;
        snprintf(e->arch[a].arch, sizeof e->arch[a].arch, "%s", c->arch);
        e->arch[a].src = *src;
    }
    e->arch[a].tokens_per_s += tps;
    const SpeedSource *was = &e->arch[a].src;
    if (src->basis > was->basis || (src->basis == was->basis && src->n_runs > was->n_runs)) e->arch[a].src = *src;
    jobs[a]++;
}

SweepEstimate sweep_estimate(const Sweep *sw, int parallel, const SpeedBook *book)
{
    assert(sw);
    SweepEstimate e = {0};
    const char *env = getenv("MIXBENCH_GFLOPS");
    double rate;
    e.rate_from_env = env && text_to_double(env, &rate) == 0 && rate > 0;
    e.gflops = e.rate_from_env ? rate : ESTIMATE_DEFAULT_GFLOPS;
    double total_seconds = 0;
    int jobs[ESTIMATE_MAX_ARCHS] = {0};
    for (int j = 0; j < sw->n_jobs; j++) {
        const Config *c = &sw->jobs[j].config;
        double per_token = estimate_train_flops_per_token(c);
        if (!isfinite(per_token)) continue;
        SpeedSource src;
        double tps = estimate_tokens_per_s(book, c, e.gflops, &src);
        if (!(tps > 0)) continue;
        note_arch(&e, c, tps, &src, jobs);
        double tokens = c->tokens > 0 ? (double)c->tokens : (double)c->steps * c->batch * c->n_ctx;
        double train = per_token * tokens, eval = per_token / 3.0 * estimate_eval_tokens(c);
        /* eval_every=auto: at most a tenth of the training more */
        if (c->eval_every == -1) eval += EVAL_AUTO_SHARE * train;
        e.train_flops += train;
        e.eval_flops += eval;
        double flops_per_s = tps * per_token;   /* the job's own rate, evaluation included */
        total_seconds += (c->tokens <= 0 && c->seconds > 0 ? c->seconds : tokens / tps) + eval / flops_per_s;
    }
    for (int a = 0; a < e.n_archs; a++) e.arch[a].tokens_per_s /= jobs[a] ? jobs[a] : 1;
    e.seconds = total_seconds / (parallel > 0 ? parallel : 1);
    return e;
}

/* "run 4" or "runs 4, 5, 6, 7 and 3 more" into out[cap]. */
static void run_ids_text(const SpeedSource *src, char *out, size_t cap)
{
    size_t len = (size_t)snprintf(out, cap, "run%s ", src->n_runs == 1 ? "" : "s");
    int shown = src->n_runs < ESTIMATE_MAX_SOURCES ? src->n_runs : ESTIMATE_MAX_SOURCES;
    for (int i = 0; i < shown && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%lld", i ? ", " : "", (long long)src->ids[i]);
    if (src->n_runs > shown && len < cap) snprintf(out + len, cap - len, " and %d more", src->n_runs - shown);
}

void estimate_describe(const SweepEstimate *e, char *out, size_t cap)
{
    assert(e && out && cap > 0);
    size_t len = 0;
    out[0] = 0;
    for (int a = 0; a < e->n_archs && len < cap; a++) {
        const SpeedSource *src = &e->arch[a].src;
        char rate[32], ids[96], why[256];
        fmt_rate(e->arch[a].tokens_per_s, rate, sizeof rate);
        run_ids_text(src, ids, sizeof ids);
        if (src->basis == SPEED_MEASURED)
            snprintf(why, sizeof why, "measured by %s (this shape)", ids);
        else if (src->basis == SPEED_SCALED)
            snprintf(why, sizeof why, "from %s (%s, scaled by FLOPs a token)", ids, src->shape);
        else
            snprintf(why, sizeof why, "the built-in model's (%.0f GFLOP/s a thread%s; no similar run)", e->gflops,
                     e->rate_from_env ? ", MIXBENCH_GFLOPS" : "");
        len += (size_t)snprintf(out + len, cap - len, "%s%s %s tok/s %s", a ? ", " : "", e->arch[a].arch, rate, why);
    }
}
