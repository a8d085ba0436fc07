/*
 * points.c — seed groups and coordinate selectors of points.h.
 */
#include "experiments/points.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/data/data.h"

static const PointMetricInfo METRICS[PM_COUNT] = {
    [PM_TEST_LOSS] = {"test_loss", "test loss", "test_loss", 0, 1},
    [PM_VALID_LOSS] = {"valid_loss", "valid loss", "valid_loss", 0, 1},
    [PM_TEST_PERPLEXITY] = {"test_perplexity", "test perplexity", "test_perplexity", 0, 1},
    [PM_TEST_ACCURACY] = {"test_accuracy", "test accuracy", "test_accuracy", 1, 1},
    [PM_TRAIN_LOSS] = {"train_loss", "train loss", "train_loss", 0, 1},
    [PM_TOKENS_PER_S] = {"tokens_per_s", "tokens/s", NULL, 1, 0},
    [PM_TEST_LOSS_ALL] = {"test_loss_all", "test loss_all", "test_loss", 0, 1},
    [PM_VALID_LOSS_ALL] = {"valid_loss_all", "valid loss_all", "valid_loss", 0, 1},
    [PM_SAMPLES_PER_S] = {"samples_per_s", "samples/s", "samples_per_s", 1, 0},
    [PM_ANSWER_ACCURACY] = {"answer_accuracy", "answer accuracy", NULL, 1, 1},
    [PM_BEST_VALID_LOSS] = {"best_valid_loss", "best valid loss", NULL, 0, 1},
    [PM_TOKENS] = {"tokens", "tokens", NULL, 1, 0},
    [PM_WALL] = {"wall", "training seconds", NULL, 0, 0},
    [PM_UNIGRAM] = {"unigram_nats", "unigram entropy", NULL, 0, 0},
    [PM_BEST_VALID_STEP] = {"best_valid_step", "step of the best valid loss", NULL, 0, 0},
    [PM_PEAK_MB] = {"peak_mb", "peak memory (MB)", NULL, 0, 0},
    [PM_TOKENS_PER_CPU_S] = {"tokens_per_cpu_s", "tokens/CPU-s", NULL, 1, 0},
};

const PointMetricInfo *point_metric_info(PointMetric m)
{
    return &METRICS[m >= 0 && m < PM_COUNT ? m : PM_TEST_LOSS];
}

const char *point_metric_name(PointMetric m)
{
    return m >= 0 && m < PM_COUNT ? METRICS[m].name : "?";
}

int point_metric_find(const char *name)
{
    for (int m = 0; m < PM_COUNT; m++)
        if (!strcmp(METRICS[m].name, name)) return m;
    return -1;
}

double result_metric(const ResultRun *r, PointMetric m)
{
    switch (m) {
    case PM_TEST_LOSS: return r->test_loss;
    case PM_VALID_LOSS: return r->valid_loss;
    case PM_TEST_PERPLEXITY: return r->test_perplexity;
    case PM_TEST_ACCURACY: return r->test_accuracy;
    case PM_TRAIN_LOSS: return r->train_loss;
    case PM_TOKENS_PER_S: return r->tokens_per_s;
    case PM_TEST_LOSS_ALL: return r->test_loss_all;
    case PM_VALID_LOSS_ALL: return r->valid_loss_all;
    case PM_SAMPLES_PER_S: return r->infer_samples_per_s;
    case PM_ANSWER_ACCURACY: return data_scores_answers(r->data) ? r->test_accuracy : NAN;
    case PM_BEST_VALID_LOSS: return r->best_valid_loss;
    case PM_TOKENS: return r->tokens;
    case PM_WALL: return r->wall;
    case PM_UNIGRAM: return r->unigram_nats;
    case PM_BEST_VALID_STEP: return r->best_valid_step;
    case PM_PEAK_MB: return r->peak_run_mb;
    case PM_TOKENS_PER_CPU_S: return r->train_cpu_seconds > 0 ? r->tokens / r->train_cpu_seconds : NAN;
    case PM_COUNT: break;
    }
    return NAN;
}

double result_budget_tokens(const ResultRun *r)
{
    if (r->state == RUN_DONE && r->total_steps > 0 && r->steps_done > 0 && r->steps_done < r->total_steps)
        return r->tokens * (double)r->total_steps / (double)r->steps_done;
    return r->tokens;
}

static const struct {
    const char *preset;
    PointMetric metric;
} PAPER_METRIC[] = {
    {"pairconnect-grid", PM_TEST_LOSS_ALL},
    {"pairconnect-hash", PM_TEST_LOSS_ALL},
    {"pairconnect-speed", PM_SAMPLES_PER_S},
    {"long-context", PM_TOKENS_PER_CPU_S},
    {"prefix-models", PM_TEST_PERPLEXITY},
};

PointMetric preset_paper_metric(const char *preset)
{
    for (size_t i = 0; preset && i < sizeof PAPER_METRIC / sizeof PAPER_METRIC[0]; i++)
        if (!strcmp(PAPER_METRIC[i].preset, preset)) return PAPER_METRIC[i].metric;
    return PM_TEST_LOSS;
}

PointMetric headline_metric(const char *preset, const ResultRun *runs, int n)
{
    for (size_t i = 0; preset && i < sizeof PAPER_METRIC / sizeof PAPER_METRIC[0]; i++)
        if (!strcmp(PAPER_METRIC[i].preset, preset)) return PAPER_METRIC[i].metric;
    for (int i = 0; i < n; i++)
        if (data_scores_answers(runs[i].data)) return PM_ANSWER_ACCURACY;
    return PM_TEST_LOSS;
}

const char *paper_metric_beside(const char *preset, PointMetric m)
{
    int all_scale = preset_paper_metric(preset) == PM_TEST_LOSS_ALL;
    if (m == PM_TEST_LOSS || m == PM_VALID_LOSS || m == PM_TRAIN_LOSS) return all_scale ? NULL : METRICS[m].paper;
    if (m == PM_TEST_LOSS_ALL || m == PM_VALID_LOSS_ALL) return all_scale ? METRICS[m].paper : NULL;
    return point_metric_info(m)->paper;
}

PointMetric metric_beside_figure(const char *name, const char *setting)
{
    int m = point_metric_find(name);
    if (m == PM_TEST_LOSS && setting && !strcmp(setting, "S1")) return PM_TEST_LOSS_ALL;
    return m < 0 ? PM_TEST_LOSS : (PointMetric)m;
}

static const char *base_name(const char *path)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/') len--;      /* "ptb/" names ptb */
    const char *slash = NULL;
    for (size_t i = 0; i + 1 < len; i++)
        if (path[i] == '/') slash = path + i;
    return slash ? slash + 1 : path;
}

/* Length of the base name of path without trailing slashes. */
static size_t base_len(const char *path)
{
    const char *b = base_name(path);
    size_t len = strlen(b);
    while (len > 1 && b[len - 1] == '/') len--;
    return len;
}

int data_same(const char *a, const char *b)
{
    if (!strcmp(a, b)) return 1;
    /* two paths name one corpus only when equal; a bare name or a
       $MIXBENCH_DATA/NAME (a preset's figure) matches by base name */
    if (strchr(a, '/') && strchr(b, '/') && a[0] != '$' && b[0] != '$') return 0;
    size_t la = base_len(a), lb = base_len(b);
    return la == lb && !strncmp(base_name(a), base_name(b), la);
}

static int value_same(const char *key, const char *a, const char *b)
{
    if (!a || !b) return a == b;
    return !strcmp(key, "data") ? data_same(a, b) : !strcmp(a, b);
}

/* Is pair i of `a` (without seed) among b's? */
static int same_coords(const CoordPair *a, int na, const CoordPair *b, int nb)
{
    int ka = 0, kb = 0;
    for (int i = 0; i < na; i++) {
        if (!strcmp(a[i].key, "seed")) continue;
        ka++;
        if (!value_same(a[i].key, a[i].value, coord_value(b, nb, a[i].key))) return 0;
    }
    for (int i = 0; i < nb; i++) kb += strcmp(b[i].key, "seed") != 0;
    return ka == kb;
}

int result_learned(const ResultRun *r, PointMetric m)
{
    /* as results.unigram_gap: the valid loss, else (no valid evaluation)
       the last train loss; loss_all: valid, else test */
    double loss = isfinite(r->best_valid_loss) ? r->best_valid_loss : r->train_loss;
    double all = isfinite(r->valid_loss_all) ? r->valid_loss_all : r->test_loss_all;
    if (!isfinite(r->unigram_nats)) return !r->not_learning;   /* no entropy stored: the store's flag */
    if (m == PM_TEST_LOSS_ALL && isfinite(all))
        return all < LEARNED_ALL_FACTOR * LEARNED_MASKED_SHARE * r->unigram_nats;
    return loss <= r->unigram_nats - LEARNED_NATS;
}

int points_group(const ResultRun *runs, int n, Point **out, int *n_points, int *owner_out)
{
    *out = NULL;
    *n_points = 0;
    if (n == 0) return 0;
    Point *pts = calloc((size_t)n, sizeof *pts);
    int *owner = malloc((size_t)n * sizeof *owner);
    double *values = malloc((size_t)n * sizeof *values);
    if (!pts || !owner || !values) {
        free(pts);
        free(owner);
        free(values);
        return -1;
    }
    int np = 0;
    for (int i = 0; i < n; i++) {
        const ResultRun *r = &runs[i];
        int p = 0;
        while (p < np && !(same_coords(r->coords, r->n_coords, pts[p].coords, pts[p].n_coords) &&
                           !strcmp(r->arch, pts[p].arch) && !strcmp(r->task, pts[p].task)))
            p++;
        if (p == np) {
            Point *pt = &pts[np++];
            for (int k = 0; k < r->n_coords; k++)
                if (strcmp(r->coords[k].key, "seed")) pt->coords[pt->n_coords++] = r->coords[k];
            snprintf(pt->arch, sizeof pt->arch, "%s", r->arch);
            snprintf(pt->task, sizeof pt->task, "%s", r->task);
        }
        owner[i] = p;
        Point *pt = &pts[p];
        pt->n_runs++;
        if (r->state == RUN_DONE) {
            pt->n_done++;
            pt->n_not_learning += r->not_learning;
            pt->n_unlearned += !result_learned(r, PM_TEST_LOSS);
            pt->n_unlearned_all += !result_learned(r, PM_TEST_LOSS_ALL);
        } else if (!run_status_final(r->state)) {
            pt->n_pending++;
            pt->running_steps += r->steps_done;
            pt->running_total += r->total_steps;
        }
    }
    for (int p = 0; p < np; p++) {
        for (int m = 0; m < PM_COUNT; m++) {
            int k = 0;
            for (int i = 0; i < n; i++)
                if (owner[i] == p && runs[i].state == RUN_DONE) values[k++] = result_metric(&runs[i], (PointMetric)m);
            pts[p].stat[m] = seed_stats(values, k);
        }
        int k = 0;
        for (int i = 0; i < n; i++)
            if (owner[i] == p && runs[i].state == RUN_DONE) values[k++] = result_budget_tokens(&runs[i]);
        SeedStats b = seed_stats(values, k);
        pts[p].budget_min = b.min;
        pts[p].budget_max = b.max;
    }
    if (owner_out) memcpy(owner_out, owner, (size_t)n * sizeof *owner);
    free(owner);
    free(values);
    *out = pts;
    *n_points = np;
    return 0;
}

/* The next space-separated word of *p into word (cap bytes), advancing *p
   past it: 1 when there is one, 0 at the end, -1 when it does not fit. */
static int next_word(const char **p, char *word, size_t cap)
{
    while (**p == ' ') (*p)++;
    size_t len = strcspn(*p, " ");
    if (!len) return 0;
    *p += len;
    if (len >= cap) return -1;
    memcpy(word, *p - len, len);
    word[len] = 0;
    return 1;
}

int coords_select(const CoordPair *pairs, int n, const char *selector)
{
    char word[300];
    int got;
    for (const char *p = selector; (got = next_word(&p, word, sizeof word)) != 0;) {
        char *eq = got > 0 ? strchr(word, '=') : NULL;
        if (!eq) return 0;
        *eq = 0;
        /* "n_ctx=32|128": any of the alternatives */
        const char *have = coord_value(pairs, n, word);
        int any = 0;
        for (char *alt = eq + 1; alt && !any;) {
            char *bar = strchr(alt, '|');
            if (bar) *bar = 0;
            any = value_same(word, alt, have);
            alt = bar ? bar + 1 : NULL;
        }
        if (!any) return 0;
    }
    return 1;
}

int point_select(const Point *p, const char *selector)
{
    CoordPair pairs[RESULT_MAX_COORDS + 2];
    int n = p->n_coords;
    memcpy(pairs, p->coords, sizeof(CoordPair) * (size_t)n);
    const char *own[2][2] = {{"arch", p->arch}, {"task", p->task}};
    for (int k = 0; k < 2; k++) {
        if (coord_value(p->coords, p->n_coords, own[k][0])) continue;
        snprintf(pairs[n].key, sizeof pairs[n].key, "%s", own[k][0]);
        snprintf(pairs[n].value, sizeof pairs[n].value, "%s", own[k][1]);
        n++;
    }
    return coords_select(pairs, n, selector);
}

int coords_agree(const CoordPair *a, int na, const CoordPair *b, int nb, const char *keys)
{
    char key[64];
    int got;
    for (const char *p = keys; (got = next_word(&p, key, sizeof key)) != 0;)
        if (got < 0 || !value_same(key, coord_value(a, na, key), coord_value(b, nb, key))) return 0;
    return 1;
}

void coords_label(const CoordPair *pairs, int n, const char *keys, char *out, int cap)
{
    int len = 0;
    out[0] = 0;
    char key[64];
    int got;
    for (const char *p = keys; len < cap && (got = next_word(&p, key, sizeof key)) != 0;) {
        const char *v = got > 0 ? coord_value(pairs, n, key) : NULL;
        if (!v) continue;
        if (!strcmp(key, "data")) {
            len += snprintf(out + len, (size_t)(cap - len), "%s%.*s", len ? " " : "", (int)base_len(v), base_name(v));
        } else {
            len += snprintf(out + len, (size_t)(cap - len), "%s%s=%s", len ? " " : "", key, v);
        }
    }
}
