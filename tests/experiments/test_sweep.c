/*
 * test_sweep.c — sweep specs and presets (experiments/sweep.c,
 * experiments/presets.c): grid expansion (count, order, exact coords and
 * axes JSON), zipped axes alone and mixed with a grid, repeats over seeds,
 * variants, one quoted string vs many arguments, budget keys as axes, every
 * preset (each job a valid config, job counts as experiments/README.md
 * says, three seeds, the PairConnect loss convention), the papers' figures
 * (every row of shared/papers/figures.csv in presets.c, at a job's point),
 * PRESET@paper and the time estimate (the twelve presets fit the
 * reproduction's 90 minutes), --data replacing a preset's data, and the
 * one-line error of each bad spec, which queues nothing.
 */
#include "engine/common.h"
#include "engine/data/data.h"
#include "engine/io/json.h"
#include "experiments/estimate.h"
#include "experiments/format.h"
#include "experiments/points.h"
#include "experiments/sweep.h"
#include "tests/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Parses the words of a NULL-terminated list against the default config. */
static int parse_words(const char *const *words, Sweep *s, char *err)
{
    int argc = 0;
    while (words[argc]) argc++;
    Config base;
    config_defaults(&base);
    return sweep_parse(argc, (char **)words, &base, s, err);
}

static int parse1(const char *spec, Sweep *s, char *err)
{
    const char *words[] = {spec, NULL};
    return parse_words(words, s, err);
}

static void check_coords(const Sweep *s, int job, const char *want)
{
    CHECK(job < s->n_jobs, "job %d of %d", job, s->n_jobs);
    if (job < s->n_jobs)
        CHECK(strcmp(s->jobs[job].coords, want) == 0, "job %d coords %s, want %s", job, s->jobs[job].coords, want);
}

static void test_grid(void)
{
    char err[ERR_LEN] = "";
    Sweep s;
    int rc = parse1("layers=1,2,4 heads=1,2 arch=attention steps=50", &s, err);
    CHECK(rc == 0, "%s", err);
    if (rc) return;
    CHECK(s.n_jobs == 6, "%d jobs", s.n_jobs);
    CHECK(strcmp(s.name, "grid") == 0, "name %s", s.name);
    CHECK(strcmp(s.axes, "[\"layers\", \"heads\"]") == 0, "axes %s", s.axes);
    CHECK(strcmp(s.spec, "layers=1,2,4 heads=1,2 arch=attention steps=50") == 0, "spec %s", s.spec);
    check_coords(&s, 0, "{\"layers\": \"1\", \"heads\": \"1\"}");
    check_coords(&s, 1, "{\"layers\": \"1\", \"heads\": \"2\"}");
    check_coords(&s, 2, "{\"layers\": \"2\", \"heads\": \"1\"}");
    check_coords(&s, 5, "{\"layers\": \"4\", \"heads\": \"2\"}");
    int want_layers[] = {1, 1, 2, 2, 4, 4}, want_heads[] = {1, 2, 1, 2, 1, 2};
    for (int j = 0; j < s.n_jobs; j++) {
        const Config *c = &s.jobs[j].config;
        CHECK(c->layers == want_layers[j] && c->heads == want_heads[j], "job %d: layers %d heads %d", j, c->layers,
              c->heads);
        CHECK(c->steps == 50 && strcmp(c->arch, "attention") == 0, "job %d fixed keys", j);
        CHECK(c->d == 128 && c->vocab == 0, "job %d keeps defaults (vocab 0 for the dataset)", j);
    }
    sweep_free(&s);
    CHECK(s.jobs == NULL && s.n_jobs == 0, "sweep_free clears");

    /* no axis: one job, empty coords */
    rc = parse1("steps=10 d=64", &s, err);
    CHECK(rc == 0 && s.n_jobs == 1, "%s", err);
    if (rc == 0) {
        CHECK(strcmp(s.axes, "[]") == 0, "axes %s", s.axes);
        check_coords(&s, 0, "{}");
        CHECK(s.jobs[0].config.d == 64, "d");
        sweep_free(&s);
    }
}

static void test_zip(void)
{
    char err[ERR_LEN] = "";
    Sweep s;
    int rc = parse1("(layers,heads)=(1,1),(1,2),(2,2),(2,4),(4,4),(6,4) d=64", &s, err);
    CHECK(rc == 0, "%s", err);
    if (rc) return;
    CHECK(s.n_jobs == 6, "%d jobs", s.n_jobs);
    CHECK(strcmp(s.axes, "[\"layers\", \"heads\"]") == 0, "axes %s", s.axes);
    check_coords(&s, 0, "{\"layers\": \"1\", \"heads\": \"1\"}");
    check_coords(&s, 3, "{\"layers\": \"2\", \"heads\": \"4\"}");
    check_coords(&s, 5, "{\"layers\": \"6\", \"heads\": \"4\"}");
    CHECK(s.jobs[5].config.layers == 6 && s.jobs[5].config.heads == 4 && s.jobs[5].config.d == 64, "job 5");
    sweep_free(&s);

    /* a zip with one tuple is fixed keys, not an axis */
    rc = parse1("(layers,heads)=(3,2) arch=mixer,attention", &s, err);
    CHECK(rc == 0 && s.n_jobs == 2, "%s", err);
    if (rc == 0) {
        CHECK(strcmp(s.axes, "[\"arch\"]") == 0, "axes %s", s.axes);
        CHECK(s.jobs[1].config.layers == 3 && s.jobs[1].config.heads == 2, "fixed zip applied");
        sweep_free(&s);
    }
}

static void test_zip_and_grid(void)
{
    char err[ERR_LEN] = "";
    Sweep s;
    int rc = parse1("arch=pairconnect,attention (layers,heads)=(1,1),(2,4) task=mlm,clm steps=20", &s, err);
    CHECK(rc == 0, "%s", err);
    if (rc) return;
    CHECK(s.n_jobs == 8, "%d jobs", s.n_jobs);
    CHECK(strcmp(s.axes, "[\"arch\", \"layers\", \"heads\", \"task\"]") == 0, "axes %s", s.axes);
    check_coords(&s, 0, "{\"arch\": \"pairconnect\", \"layers\": \"1\", \"heads\": \"1\", \"task\": \"mlm\"}");
    check_coords(&s, 1, "{\"arch\": \"pairconnect\", \"layers\": \"1\", \"heads\": \"1\", \"task\": \"clm\"}");
    check_coords(&s, 2, "{\"arch\": \"pairconnect\", \"layers\": \"2\", \"heads\": \"4\", \"task\": \"mlm\"}");
    check_coords(&s, 7, "{\"arch\": \"attention\", \"layers\": \"2\", \"heads\": \"4\", \"task\": \"clm\"}");
    const Config *c = &s.jobs[6].config;
    CHECK(!strcmp(c->arch, "attention") && c->layers == 2 && c->heads == 4 && !strcmp(c->task, "mlm"), "job 6");
    sweep_free(&s);
}

static void test_repeats(void)
{
    char err[ERR_LEN] = "";
    Sweep s;
    Config base;
    config_defaults(&base);
    base.seed = 7;
    const char *words[] = {"layers=1,2", "repeats=3"};
    int rc = sweep_parse(2, (char **)words, &base, &s, err);
    CHECK(rc == 0, "%s", err);
    if (rc) return;
    CHECK(s.n_jobs == 6, "%d jobs", s.n_jobs);
    CHECK(strcmp(s.axes, "[\"layers\", \"seed\"]") == 0, "axes %s", s.axes);
    check_coords(&s, 0, "{\"layers\": \"1\", \"seed\": \"7\"}");
    check_coords(&s, 2, "{\"layers\": \"1\", \"seed\": \"9\"}");
    check_coords(&s, 3, "{\"layers\": \"2\", \"seed\": \"7\"}");
    for (int j = 0; j < 6; j++) CHECK(s.jobs[j].config.seed == 7 + j % 3, "job %d seed %lld", j, (long long)s.jobs[j].config.seed);
    sweep_free(&s);

    /* a fixed seed in the spec is the first seed; repeats alone is an axis */
    rc = parse1("seed=100 repeats=2", &s, err);
    CHECK(rc == 0 && s.n_jobs == 2, "%s", err);
    if (rc == 0) {
        CHECK(strcmp(s.axes, "[\"seed\"]") == 0, "axes %s", s.axes);
        check_coords(&s, 1, "{\"seed\": \"101\"}");
        sweep_free(&s);
    }
    /* repeats=1 adds nothing */
    rc = parse1("layers=1,2 repeats=1", &s, err);
    CHECK(rc == 0 && s.n_jobs == 2 && strcmp(s.axes, "[\"layers\"]") == 0, "%s %s", err, rc ? "" : s.axes);
    if (rc == 0) sweep_free(&s);
}

static void test_variant(void)
{
    char err[ERR_LEN] = "";
    Sweep s;
    int rc = parse1("variant=linear-mixer layers=1,2", &s, err);
    CHECK(rc == 0 && s.n_jobs == 2, "%s", err);
    if (rc == 0) {
        for (int j = 0; j < 2; j++) {
            const Config *c = &s.jobs[j].config;
            CHECK(!strcmp(c->arch, "mixer") && c->act == ACT_NONE && c->norm == NORM_NONE, "job %d variant keys", j);
        }
        CHECK(strcmp(s.axes, "[\"layers\"]") == 0, "variant is not an axis: %s", s.axes);
        sweep_free(&s);
    }
    /* the variant comes before the keys, wherever it is written */
    rc = parse1("arch=dispatcher,attention norm=pre variant=dispatcher-block", &s, err);
    CHECK(rc == 0 && s.n_jobs == 2, "%s", err);
    if (rc == 0) {
        const Config *c = &s.jobs[1].config;
        CHECK(!strcmp(c->arch, "attention") && c->norm == NORM_PRE && c->act == ACT_RELU &&
                  c->pos == POS_SINUSOIDAL,
              "keys override the variant: arch %s norm %d act %d pos %d", c->arch, c->norm, c->act, c->pos);
        sweep_free(&s);
    }
}

static int same_sweep(const Sweep *a, const Sweep *b)
{
    if (a->n_jobs != b->n_jobs || strcmp(a->axes, b->axes) || strcmp(a->spec, b->spec)) return 0;
    for (int j = 0; j < a->n_jobs; j++)
        if (strcmp(a->jobs[j].coords, b->jobs[j].coords) ||
            memcmp(&a->jobs[j].config, &b->jobs[j].config, sizeof(Config)))
            return 0;
    return 1;
}

static void test_one_string_vs_words(void)
{
    char err[ERR_LEN] = "";
    Sweep one, many, spaced;
    const char *words[] = {"layers=1,2,4", "(d,n_ctx)=(64,32),", "(128,64)", "arch=mixer,attention", "repeats=2",
                           "steps=30", NULL};
    const char *spaced_words[] = {" layers = 1, 2, 4 ", "(d, n_ctx)=(64, 32), (128, 64)\tarch=mixer, attention",
                                  "repeats=2 steps=30", NULL};
    int rc1 = parse1("layers=1,2,4 (d,n_ctx)=(64,32),(128,64) arch=mixer,attention repeats=2 steps=30", &one, err);
    CHECK(rc1 == 0, "%s", err);
    int rc2 = parse_words(words, &many, err);
    CHECK(rc2 == 0, "%s", err);
    int rc3 = parse_words(spaced_words, &spaced, err);
    CHECK(rc3 == 0, "%s", err);
    if (rc1 == 0) CHECK(one.n_jobs == 24, "%d jobs", one.n_jobs);
    if (rc1 == 0 && rc2 == 0) CHECK(same_sweep(&one, &many), "one string and many arguments differ");
    if (rc1 == 0 && rc3 == 0) CHECK(same_sweep(&one, &spaced), "whitespace around , = ( ) is not ignored");
    if (rc1 == 0) sweep_free(&one);
    if (rc2 == 0) sweep_free(&many);
    if (rc3 == 0) sweep_free(&spaced);
}

static void test_budget_axes(void)
{
    char err[ERR_LEN] = "";
    Sweep s;
    int rc = parse1("steps=100,200 tokens=0,64000 seconds=0,2.5", &s, err);
    CHECK(rc == 0 && s.n_jobs == 8, "%s", err);
    if (rc) return;
    CHECK(strcmp(s.axes, "[\"steps\", \"tokens\", \"seconds\"]") == 0, "axes %s", s.axes);
    check_coords(&s, 3, "{\"steps\": \"100\", \"tokens\": \"64000\", \"seconds\": \"2.5\"}");
    const Config *c = &s.jobs[7].config;
    CHECK(c->steps == 200 && c->tokens == 64000 && c->seconds == 2.5, "job 7 budget");
    c = &s.jobs[4].config;
    CHECK(c->steps == 200 && c->tokens == 0 && c->seconds == 0, "job 4 budget");
    sweep_free(&s);
    /* a point with no budget at all is refused */
    rc = parse1("steps=0,10", &s, err);
    CHECK(rc == -1 && strstr(err, "job 1") && strstr(err, "no budget"), "%s", err);
}

static void test_base_config(void)
{
    char err[ERR_LEN] = "";
    Config base;
    config_defaults(&base);
    config_set(&base, "data", "builtin:markov", err);
    base.vocab = 0;
    Sweep s;
    const char *words[] = {"d=32,64"};
    int rc = sweep_parse(1, (char **)words, &base, &s, err);
    CHECK(rc == 0 && s.n_jobs == 2, "%s", err);
    if (rc == 0) {
        CHECK(!strcmp(s.jobs[1].config.data, "builtin:markov") && s.jobs[1].config.vocab == 0, "base keys kept");
        sweep_free(&s);
    }
    /* the spec overrides the base */
    rc = parse1("data=builtin:copy d=32,64", &s, err);
    CHECK(rc == 0 && !strcmp(s.jobs[0].config.data, "builtin:copy"), "%s", err);
    if (rc == 0) sweep_free(&s);
}

static void test_data_variable(void)
{
    char err[ERR_LEN] = "";
    Sweep s;
    setenv("MIXBENCH_DATA", "/corpora", 1);
    int rc = parse1("pairconnect-grid", &s, err);
    CHECK(rc == 0 && s.n_jobs == 72, "%s", err);
    if (rc == 0) {
        CHECK(!strcmp(s.jobs[0].config.data, "/corpora/ptb"), "data %s", s.jobs[0].config.data);
        CHECK(!strcmp(s.jobs[71].config.data, "/corpora/wikitext-2") && s.jobs[71].config.min_count == 10, "data %s",
              s.jobs[71].config.data);
        check_coords(&s, 0,
                     "{\"data\": \"/corpora/ptb\", \"min_count\": \"1\", \"layers\": \"1\", \"heads\": \"1\", "
                     "\"arch\": \"pairconnect\", \"seed\": \"1\"}");
        CHECK(strstr(s.spec, "(data,min_count)=(/corpora/ptb,1),(/corpora/wikitext-2,10)") != NULL, "spec %s", s.spec);
        CHECK(strcmp(s.name, "pairconnect-grid") == 0, "name %s", s.name);
        sweep_free(&s);
    }
    unsetenv("MIXBENCH_DATA");
    rc = parse1("pairconnect-grid", &s, err);
    CHECK(rc == 0 && !strcmp(s.jobs[0].config.data, "../shared/data/ptb"), "%s", err);
    if (rc == 0) sweep_free(&s);
}

/* The job count of a preset as experiments/README.md's presets table gives
   it (the number in the "jobs" column of the row naming it), or -1. */
static int readme_jobs(const char *readme, const char *name)
{
    char needle[96];
    snprintf(needle, sizeof needle, "| `%s` |", name);
    const char *row = strstr(readme, needle);
    if (!row) return -1;
    const char *end = strchr(row, '\n');
    /* columns: name | source | what | jobs | time */
    const char *p = row;
    for (int bars = 0; bars < 3 && p && p < end; bars++) p = strchr(p + 1, '|');
    if (!p || p >= end) return -1;
    return atoi(p + 1);
}

/* coords without its "seed" entry (the point a paper figure names) */
static void without_seed(const char *coords, char *out, size_t cap)
{
    snprintf(out, cap, "%s", coords);
    char *seed = strstr(out, ", \"seed\": \"");
    if (!seed) return;
    char *end = strchr(seed + 12, '"');
    if (end) memmove(seed, end + 1, strlen(end + 1) + 1);
}

static void test_presets(void)
{
    static const struct {
        const char *name;
        int jobs;
    } WANT[] = {
        {"dispatcher-vs-msa", 6}, {"pairconnect-grid", 72}, {"pairconnect-hash", 30}, {"pairconnect-speed", 18},
        {"mixer-vs-transformer", 18}, {"autoencoder", 9}, {"bidirectional", 12}, {"completion", 6},
        {"linear-mixer", 9}, {"fft-mlm", 6}, {"prefix-models", 9}, {"zoology", 135}, {"recall", 495},
        {"long-context", 102},
    };
    int n_want = (int)(sizeof WANT / sizeof WANT[0]);
    CHECK(preset_count() == n_want, "%d presets", preset_count());
    char *readme = NULL;
    FILE *f = fopen("experiments/README.md", "rb");
    if (f) {
        readme = calloc(1, 1 << 16);
        if (readme) fread(readme, 1, (1 << 16) - 1, f);
        fclose(f);
    }
    CHECK(readme != NULL, "experiments/README.md not found (run from the repository root)");
    for (int i = 0; i < n_want; i++) {
        const Preset *p = preset_find(WANT[i].name);
        CHECK(p != NULL, "preset %s missing", WANT[i].name);
        if (!p) continue;
        CHECK(p->source && *p->source && p->what && *p->what && p->spec && *p->spec, "%s fields", p->name);
        char err[ERR_LEN] = "";
        Sweep s;
        int rc = parse1(p->name, &s, err);
        CHECK(rc == 0, "%s: %s", p->name, err);
        if (rc) continue;
        CHECK(s.n_jobs == WANT[i].jobs, "%s: %d jobs, want %d", p->name, s.n_jobs, WANT[i].jobs);
        CHECK(strcmp(s.name, p->name) == 0, "name %s", s.name);
        char count[32];
        snprintf(count, sizeof count, "%d jobs", s.n_jobs);
        CHECK(strstr(p->what, count) != NULL, "%s: 'what' does not say %s", p->name, count);
        if (readme)
            CHECK(readme_jobs(readme, p->name) == s.n_jobs, "%s: experiments/README.md says %d jobs, parse gives %d",
                  p->name, readme_jobs(readme, p->name), s.n_jobs);
        for (int j = 0; j < s.n_jobs; j++) {
            Config c = s.jobs[j].config;
            if (c.vocab == 0) c.vocab = 1000;
            CHECK(config_validate(&c, err) == 0, "%s job %d %s: %s", p->name, j, s.jobs[j].coords, err);
            for (int k = 0; k < j; k++)
                CHECK(strcmp(s.jobs[k].coords, s.jobs[j].coords) != 0, "%s: jobs %d and %d share coords", p->name, k, j);
        }
        /* every paper figure belongs to a job of the preset: its coords
           (data expanded as in the spec) are the job's without seed */
        for (int k = 0; k < p->n_paper; k++) {
            const PaperFigure *pf = &p->paper[k];
            char *want = sweep_expand_data_var(pf->coords);
            int found = 0;
            for (int j = 0; want && j < s.n_jobs; j++) {
                char bare[512];
                without_seed(s.jobs[j].coords, bare, sizeof bare);
                found |= !strcmp(bare, want);
            }
            CHECK(found, "%s: paper figure coords %s match no job", p->name, want ? want : pf->coords);
            free(want);
            CHECK(pf->metric && *pf->metric && pf->note && *pf->note && paper_setting_text(pf->setting), "%s: figure %d fields",
                  p->name, k);
        }
        /* seeds: three on every preset */
        CHECK(strstr(s.axes, "\"seed\"") != NULL, "%s: axes %s", p->name, s.axes);
        /* the PairConnect presets train on the paper's loss convention */
        if (!strncmp(p->name, "pairconnect", 11))
            for (int j = 0; j < s.n_jobs; j++)
                CHECK(s.jobs[j].config.mlm_loss == MLM_LOSS_ALL, "%s job %d mlm_loss", p->name, j);
        sweep_free(&s);
    }
    free(readme);
    CHECK(preset_find("no-such-preset") == NULL && preset_at(-1) == NULL && preset_at(n_want) == NULL, "lookups");

    /* a preset's keys can be overridden after its name; its axes cannot
       (recall's steps are one: each cell's budget) */
    char err[ERR_LEN] = "";
    Sweep s;
    int rc = parse1("zoology steps=100", &s, err);
    CHECK(rc == 0 && s.n_jobs == 135 && s.jobs[0].config.steps == 100, "%s", err);
    if (rc == 0) sweep_free(&s);
    CHECK(parse1("recall steps=100", &s, err) != 0 && strstr(err, "duplicate axis key 'steps'"), "%s", err);
    const char *words[] = {"completion", "layers=2", NULL};
    rc = parse_words(words, &s, err);
    CHECK(rc == 0 && s.n_jobs == 6 && s.jobs[5].config.layers == 2, "%s", err);
    if (rc == 0) sweep_free(&s);
    /* the user's repeats replaces the preset's */
    rc = parse1("autoencoder repeats=1", &s, err);
    CHECK(rc == 0 && s.n_jobs == 3 && !strcmp(s.axes, "[\"arch\", \"d\"]") &&
              !strcmp(s.jobs[0].coords, "{\"arch\": \"mixer\", \"d\": \"128\"}"),
          "%s (%d jobs, axes %s)", err, s.n_jobs, rc ? "" : s.axes);
    if (rc == 0) sweep_free(&s);
    rc = parse1("autoencoder repeats=2", &s, err);
    CHECK(rc == 0 && s.n_jobs == 6, "%s", err);
    if (rc == 0) sweep_free(&s);
    rc = parse1("recall n_ctx=32", &s, err);
    CHECK(rc == -1 && strstr(err, "duplicate axis key 'n_ctx'"), "%s", err);
}

/* The recall study (Zoology Figure 2): its 495 jobs are MQAR at (n, pairs)
   = (64, 4) (128, 8) (256, 16) (the last two trained on a mixture from 4
   pairs) and copy and selective copy at n=64, at d = 32, 64, 128, for the
   11 causal architectures, 3 seeds; every job two layers, init=fan_in
   emb_std=1, on data that scores only answers (its headline is the answer
   accuracy), Zoology's 100k training examples; lr fixed at 1e-3 (no
   lr=tune), a job stopped once solved (stop_accuracy); the estimate more
   than a day and less than a month at the default rate. */
static void test_recall_preset(void)
{
    char err[ERR_LEN] = "";
    Sweep s;
    if (parse1("recall", &s, err)) {
        CHECK(0, "%s", err);
        return;
    }
    CHECK(s.n_jobs == 495 && !strcmp(s.axes, "[\"n_ctx\", \"data\", \"steps\", \"d\", \"arch\", \"seed\"]"),
          "%d jobs, axes %s", s.n_jobs, s.axes);
    static const struct {
        int n_ctx;
        const char *data;
    } POINTS[] = {{64, "builtin:mqar:pairs=4:scatter=1:vocab=256:examples=100000"},
                  {128, "builtin:mqar:pairs=8:train_pairs=4:scatter=1:vocab=256:examples=100000"},
                  {256, "builtin:mqar:pairs=16:train_pairs=4:scatter=1:vocab=256:examples=100000"},
                  {64, "builtin:copy:examples=100000"},
                  {64, "builtin:selective-copy:examples=100000"}};
    int seen[5][3] = {{0}}, archs = 0;
    for (int j = 0; j < s.n_jobs; j++) {
        const Config *c = &s.jobs[j].config;
        int p = 0, w = c->d == 32 ? 0 : c->d == 64 ? 1 : c->d == 128 ? 2 : -1;
        while (p < 5 && (POINTS[p].n_ctx != c->n_ctx || strcmp(POINTS[p].data, c->data))) p++;
        CHECK(p < 5 && w >= 0, "job %d: n_ctx %d data %s d %d", j, c->n_ctx, c->data, c->d);
        if (p < 5 && w >= 0) seen[p][w]++;
        CHECK(c->layers == 2 && c->init == WEIGHT_INIT_FAN_IN && c->emb_std == 1.0 && !strcmp(c->task, "clm") &&
                  data_scores_answers(c->data),
              "job %d: layers %d init %d emb_std %g task %s", j, c->layers, c->init, c->emb_std, c->task);
        static const char *const CAUSAL[] = {"attention", "dispatcher", "pairconnect", "mixer", "cumsum", "conv",
                                             "linattn",   "gla",        "mamba",       "hyena", "swa"};
        if (j < 33 && j % 3 == 0) archs += !strcmp(c->arch, CAUSAL[j / 3]);
        /* the budget of its cell: 12000 steps at (256, 16), 8000 elsewhere */
        CHECK(fabs(c->lr - 1e-3) < 1e-12 && c->steps == (p == 2 ? 12000 : 8000), "job %d: lr %g, %ld steps", j, c->lr,
              (long)c->steps);
        /* and stops once solved, well above the claim's bar of 0.99 */
        CHECK(c->stop_accuracy == 0.999 && c->eval_every == -1, "job %d: stop_accuracy %g eval_every %d", j,
              c->stop_accuracy, c->eval_every);
    }
    for (int p = 0; p < 5; p++)
        for (int w = 0; w < 3; w++)
            CHECK(seen[p][w] == 33, "point %d width %d: %d jobs, want 11 archs x 3 seeds", p, w, seen[p][w]);
    CHECK(archs == 11, "%d of the 11 causal architectures in order", archs);
    CHECK(!s.plan.lr_tune, "lr=tune %d: the rate is fixed", s.plan.lr_tune);
    SweepEstimate e = sweep_estimate(&s, 2, NULL);
    CHECK(e.seconds > 86400 && e.seconds < 30 * 86400, "estimated at %.0f s", e.seconds);
    sweep_free(&s);
}

/* spec must fail with a message containing each fragment, and queue nothing */
static void expect_error(const char *spec, const char *frag1, const char *frag2)
{
    char err[ERR_LEN] = "";
    Sweep s;
    memset(&s, 0x5a, sizeof s);
    int rc = parse1(spec, &s, err);
    CHECK(rc == -1, "'%s' parsed", spec);
    if (rc == 0) {
        sweep_free(&s);
        return;
    }
    CHECK(s.jobs == NULL && s.n_jobs == 0, "'%s' left jobs", spec);
    CHECK(strstr(err, frag1) != NULL, "'%s': '%s' lacks '%s'", spec, err, frag1);
    if (frag2) CHECK(strstr(err, frag2) != NULL, "'%s': '%s' lacks '%s'", spec, err, frag2);
    CHECK(strchr(err, '\n') == NULL, "'%s': message is not one line", spec);
}

static void test_errors(void)
{
    /* unknown key, with and without a near name */
    expect_error("layer=1,2", "unknown key 'layer'", "did you mean 'layers'");
    expect_error("haeds=2", "unknown key 'haeds'", "'heads'");
    expect_error("steps=10 wibble=3", "unknown key 'wibble'", NULL);
    expect_error("(layers,wibble)=(1,2),(3,4)", "unknown key 'wibble'", NULL);
    expect_error("repeat=2", "unknown key 'repeat'", "'repeats'");
    /* empty axis */
    expect_error("layers=", "layers= has no value", NULL);
    expect_error("layers=1,,2", "layers=1,,2 has an empty value", NULL);
    expect_error("layers=1,2,", "empty value", NULL);
    expect_error("(layers,heads)=", "no value", NULL);
    /* mismatched zip lengths, naming the tuple */
    expect_error("(layers,heads)=(1,1),(2),(4,4)", "tuple 2 (2)", "1 value for 2 keys");
    expect_error("(layers,heads)=(1,1,1)", "tuple 1 (1,1,1)", "3 values for 2 keys");
    expect_error("(layers,heads)=(1,1),(2,)", "tuple 2", "empty value");
    expect_error("(layers,heads)=(1,1)(2,2)", "separated by ','", NULL);
    /* wrong type or range: config.c's message naming the key */
    expect_error("layers=1,x", "layers=x", "not a whole number");
    expect_error("lr=0.1,fast", "lr=fast", "not a number");
    expect_error("(d,act)=(64,gelu),(64,swish)", "act=swish", "gelu|relu|none");
    expect_error("tie=maybe", "tie=maybe", "true or false");
    expect_error("layers=0", "layers=0", "out of range");
    /* duplicate axis key */
    expect_error("layers=1,2 d=64 layers=3,4", "duplicate axis key 'layers'", NULL);
    expect_error("layers=1,2 (layers,heads)=(1,1),(2,2)", "duplicate axis key 'layers'", NULL);
    expect_error("(layers,layers)=(1,1),(2,2)", "duplicate axis key 'layers'", NULL);
    expect_error("layers=1,2 layers=3", "duplicate axis key 'layers'", NULL);
    expect_error("seed=1,2 repeats=2", "seed", "repeats");
    /* invalid arch/task pairs, naming the point */
    expect_error("arch=attention,fft task=clm", "job 2 of 2", "{\"arch\": \"fft\"}");
    expect_error("arch=mixer,pairconnect task=complete,clm", "job 3 of 4", "excludes pairconnect");
    expect_error("arch=attention,nosuch", "job 2", "unknown architecture 'nosuch'");
    expect_error("d=64,100 heads=8", "job 2", "not divisible");
    /* more than 10000 jobs */
    expect_error("d=1,2,3,4,5,6,7,8,9,10,11 layers=1,2,3,4,5,6,7,8,9,10 heads=1,2,3,4,5,6,7,8,9,10 "
                 "n_ctx=1,2,3,4,5,6,7,8,9,10",
                 "11000 jobs", "limit of 10000");
    expect_error("layers=1,2 repeats=6000", "12000 jobs", NULL);
    /* the rest of the grammar */
    expect_error("repeats=0", "repeats=0", NULL);
    expect_error("repeats=2 repeats=3", "repeats is given twice", NULL);
    expect_error("repeats=2,3", "one value", NULL);
    expect_error("variant=nope", "unknown variant 'nope'", NULL);
    expect_error("(arch,variant)=(mixer,fnet)", "variant cannot be zipped", NULL);
    expect_error("recal", "unknown preset 'recal'", "did you mean 'recall'");
    expect_error("zzzz", "neither key=value nor a preset", "recall");
    expect_error("steps=10 recall", "must come first", NULL);
    expect_error("steps=10 layers", "'layers' is not key=value", NULL);
    expect_error("=5", "empty key", NULL);
    expect_error("   ", "empty spec", NULL);
}

/* shared/papers/figures.csv: beside the corpora ($MIXBENCH_DATA/../papers),
   else ../shared/papers; NULL when neither is there. */
static const char *figures_csv(void)
{
    static char path[1024];
    const char *data = getenv("MIXBENCH_DATA");
    if (data && *data) {
        snprintf(path, sizeof path, "%s/../papers/figures.csv", data);
        if (access(path, R_OK) == 0) return path;
    }
    snprintf(path, sizeof path, "../shared/papers/figures.csv");
    return access(path, R_OK) == 0 ? path : NULL;
}

/* Every row of figures.csv is one PaperFigure of its preset with exactly
   its value, metric, source and setting, at coordinates that its point
   words select (data by base name); and the presets hold no other figure. */
static void test_figures_csv(void)
{
    FILE *f = fopen(figures_csv(), "r");
    CHECK(f != NULL, "cannot open %s", figures_csv());
    if (!f) return;
    char line[1024];
    int rows = 0, total = 0;
    int used[16][64] = {{0}};
    CHECK(fgets(line, sizeof line, f) && !strncmp(line, "preset,point,metric,value,source,paper_setting", 46),
          "header %s", line);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0]) continue;
        char *field[6];
        int nf = 0;
        for (char *p = line; nf < 6; nf++) {
            field[nf] = p;
            char *comma = strchr(p, ',');
            if (!comma) {
                nf++;
                break;
            }
            *comma = 0;
            p = comma + 1;
        }
        CHECK(nf == 6, "row %d has %d fields", rows + 1, nf);
        if (nf != 6) continue;
        rows++;
        const Preset *p = preset_find(field[0]);
        CHECK(p != NULL, "row %d: no preset %s", rows, field[0]);
        if (!p) continue;
        int pi = 0;   /* its index (each preset is its own study: not one array) */
        while (preset_at(pi) != p) pi++;
        char *end;
        double value = strtod(field[3], &end);
        int found = 0;
        for (int k = 0; k < p->n_paper && !found; k++) {
            const PaperFigure *pf = &p->paper[k];
            if (used[pi][k] || pf->value != value || strcmp(pf->metric, field[2]) || strcmp(pf->note, field[4]) ||
                strcmp(pf->setting, field[5]))
                continue;
            /* the CSV's point words name the figure's coordinates */
            JsonValue *obj = json_parse(pf->coords, strlen(pf->coords), line);
            if (!obj) continue;
            CoordPair pairs[RESULT_MAX_COORDS];
            int n = 0;
            for (int c = 0; c < obj->count && n < RESULT_MAX_COORDS; c++, n++) {
                snprintf(pairs[n].key, sizeof pairs[n].key, "%s", obj->keys[c]);
                snprintf(pairs[n].value, sizeof pairs[n].value, "%s", obj->items[c].string);
            }
            json_free(obj);
            if (coords_select(pairs, n, field[1])) found = used[pi][k] = 1;
        }
        CHECK(found, "row %d (%s %s %s %s %s) is not in studies/", rows, field[0], field[1], field[2], field[3], field[5]);
    }
    fclose(f);
    for (int i = 0; i < preset_count(); i++) total += preset_at(i)->n_paper;
    CHECK(rows == 78 && total == rows, "%d CSV rows, %d figures in studies/", rows, total);
}

/* PRESET@paper: the paper's own size, its estimate shown before queueing;
   the twelve scaled presets fit the reproduction's 90 minutes on 2 cores. */
static void test_paper_variants(void)
{
    char err[ERR_LEN] = "";
    Sweep s;
    int rc = parse1("autoencoder@paper", &s, err);
    CHECK(rc == 0 && s.n_jobs == 15 && !strcmp(s.name, "autoencoder@paper"), "%s", err);
    if (rc == 0) {
        /* S3 d=512 8+8, S4 d=1024 4+4, S5 the mixer at d=1024 8+8 */
        const Config *c = &s.jobs[14].config;
        CHECK(!strcmp(c->arch, "mixer") && c->d == 1024 && c->layers == 8, "job 15: %s d=%d L=%d", c->arch, c->d,
              c->layers);
        CHECK(s.jobs[0].config.d == 512 && s.jobs[0].config.layers == 8, "job 1");
        SweepEstimate e = sweep_estimate(&s, 2, NULL);
        CHECK(e.seconds > 86400, "autoencoder@paper estimated at %.0f s", e.seconds);
        sweep_free(&s);
    }
    rc = parse1("pairconnect-grid@paper", &s, err);
    CHECK(rc == 0 && s.n_jobs == 72, "%s", err);
    if (rc == 0) {
        const Config *c = &s.jobs[0].config;
        CHECK(c->d == 256 && fabs(c->lr - 1e-5) < 1e-12 && c->mlm_loss == MLM_LOSS_ALL && c->min_count == 1,
              "d %d lr %g", c->d, c->lr);
        sweep_free(&s);
    }
    rc = parse1("prefix-models@paper", &s, err);
    CHECK(rc == 0 && s.n_jobs == 9 && s.jobs[0].config.layers == 12 && s.jobs[0].config.d == 768 &&
              s.jobs[0].config.tokens == 1000000000LL && s.jobs[0].config.batch == 64,
          "%s", err);
    if (rc == 0) sweep_free(&s);
    for (int i = 0; i < preset_count(); i++) {
        const Preset *p = preset_at(i);
        char name[96];
        snprintf(name, sizeof name, "%s@paper", p->name);
        rc = parse1(name, &s, err);
        if (!p->paper_spec) {
            CHECK(rc == -1 && strstr(err, "has no paper setting"), "%s: %s", name, err);
            continue;
        }
        CHECK(rc == 0, "%s: %s", name, err);
        if (rc == 0) sweep_free(&s);
    }
    /* the scaled presets: at most 85 of the reproduction's 90 minutes at
       the default rate (eval splits read from the corpora when present);
       recall and zoology, the recall studies, are sized by their own bar
       (test_recall_preset), long-context by its hour on one core
       (tests/experiments/test_long_context.sh) */
    double total = 0;
    for (int i = 0; i < preset_count(); i++) {
        if (!strcmp(preset_at(i)->name, "recall") || !strcmp(preset_at(i)->name, "zoology") ||
            !strcmp(preset_at(i)->name, "long-context"))
            continue;
        rc = parse1(preset_at(i)->name, &s, err);
        if (rc) continue;
        total += sweep_estimate(&s, 2, NULL).seconds;
        sweep_free(&s);
    }
    CHECK(total > 20 * 60 && total < 85 * 60, "the eleven presets take %.1f min", total / 60);
    char when[32];
    fmt_duration(5400, when, sizeof when);
    CHECK(!strcmp(when, "1h30m"), "%s", when);
    /* the FLOP rule without a model: the bench's formula for attention */
    Config c;
    config_defaults(&c);
    c.d = 256, c.layers = 2, c.heads = 2, c.n_ctx = 64, c.vocab = 10002;
    snprintf(c.task, sizeof c.task, "clm");
    double want = 6.0 * (2 * (4.0 * 256 * 256 + 2.0 * 256 * 1024) + 256.0 * 10002) + 2 * 12.0 * 64 * 256;
    CHECK(fabs(estimate_train_flops_per_token(&c) - want) < 1, "%g vs %g", estimate_train_flops_per_token(&c), want);
    /* without a vocab key, a diagnostic corpus's vocab= (or its default) is
       the head's width, read from the spec; other data count 10000 */
    static const struct {
        const char *data;
        int vocab;
    } heads[] = {{"builtin:mqar:pairs=4:vocab=256:examples=100000", 256},
                 {"builtin:mqar", 128},
                 {"builtin:copy", 32},
                 {"builtin:selective-copy:length=4", 20},
                 {"builtin:copy:vocab=40", 40},
                 {"builtin:mqar:vocab=3", 0},
                 {"builtin:mqar:colour=red", 0},
                 {"builtin:stories", 0},
                 {"../shared/data/ptb", 0}};
    c.vocab = 0;
    for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++) {
        snprintf(c.data, sizeof c.data, "%s", heads[i].data);
        CHECK(data_builtin_vocab(c.data) == heads[i].vocab, "%s: %d", c.data, data_builtin_vocab(c.data));
        double V = heads[i].vocab ? heads[i].vocab : 10000;
        double want_v = want - 6.0 * 256 * (10002 - V);
        CHECK(fabs(estimate_train_flops_per_token(&c) - want_v) < 1, "%s: %g vs %g", c.data,
              estimate_train_flops_per_token(&c), want_v);
    }
}

/* --data replaces a preset's own dataset; a preset whose data is an axis
   refuses it in one line. */
static void test_data_override(void)
{
    char err[ERR_LEN] = "";
    Sweep s;
    Config base;
    config_defaults(&base);
    char *words[] = {"autoencoder", "tokens=1000"};
    int rc = sweep_parse_data(2, words, &base, "builtin:stories", &s, err);
    CHECK(rc == 0 && s.n_jobs == 9, "%s", err);
    if (rc == 0) {
        for (int j = 0; j < s.n_jobs; j++)
            CHECK(!strcmp(s.jobs[j].config.data, "builtin:stories") && s.jobs[j].config.tokens == 1000, "job %d: %s", j,
                  s.jobs[j].config.data);
        CHECK(strstr(s.spec, "data=builtin:stories tokens=1000") != NULL, "spec %s", s.spec);
        sweep_free(&s);
    }
    rc = sweep_parse(1, words, &base, &s, err);
    CHECK(rc == 0 && strstr(s.jobs[0].config.data, "tinystories-sample"), "%s", err);
    if (rc == 0) sweep_free(&s);
    rc = sweep_parse_data(1, words, &base, NULL, &s, err);
    CHECK(rc == 0 && strstr(s.jobs[0].config.data, "tinystories-sample"), "%s", err);
    if (rc == 0) sweep_free(&s);
    char *grid[] = {"pairconnect-grid"};
    rc = sweep_parse_data(1, grid, &base, "builtin:stories", &s, err);
    CHECK(rc == -1 && strstr(err, "MIXBENCH_DATA") && !strchr(err, '\n'), "%s", err);
    char *plain[] = {"arch=mixer,attention"};
    Config b2 = base;
    snprintf(b2.data, sizeof b2.data, "builtin:markov");
    rc = sweep_parse_data(1, plain, &b2, "builtin:markov", &s, err);
    CHECK(rc == 0 && !strcmp(s.jobs[1].config.data, "builtin:markov"), "%s", err);
    if (rc == 0) sweep_free(&s);
}

/* A preset's own dataset, as the New sweep form shows it: one corpus
   (expanded), the corpora of a data axis, or none. */
static void test_preset_data(void)
{
    char data[1024];
    CHECK(preset_data(preset_find("completion"), data, sizeof data) == 1 &&
              strstr(data, "tinystories-sample/tinystories_sample.txt") && !strchr(data, '$'),
          "completion: %s", data);
    CHECK(preset_data(preset_find("pairconnect-grid"), data, sizeof data) == 0 && strstr(data, "data"),
          "pairconnect-grid: %s", data);
    for (int i = 0; i < preset_count(); i++) {
        int kind = preset_data(preset_at(i), data, sizeof data);
        CHECK(kind >= -1 && kind <= 1 && (kind < 0 || data[0]), "%s: %d %s", preset_at(i)->name, kind, data);
    }
}

/* Which keys change a run: another architecture's, an unused schedule's or
   task's, and the budgets a larger one overrides do not. */
static void test_key_applies(void)
{
    Config c;
    config_defaults(&c);
    char err[ERR_LEN];
    CHECK(config_key_applies(&c, "steps") && !config_key_applies(&c, "tokens") && !config_key_applies(&c, "seconds"),
          "steps budget");
    CHECK(!config_key_applies(&c, "hash_size") && !config_key_applies(&c, "fft_mode") &&
              !config_key_applies(&c, "cooldown") && !config_key_applies(&c, "mlm_loss") && config_key_applies(&c, "d"),
          "attention clm cosine");
    CHECK(config_set(&c, "tokens", "20000", err) == 0 && !config_key_applies(&c, "steps") &&
              config_key_applies(&c, "tokens"), "tokens overrides steps");
    CHECK(config_set(&c, "arch", "pairconnect", err) == 0 && config_set(&c, "task", "mlm", err) == 0 &&
              config_set(&c, "decay", "wsd", err) == 0 && config_key_applies(&c, "hash_size") &&
              config_key_applies(&c, "table_optim") && config_key_applies(&c, "mlm_loss") &&
              config_key_applies(&c, "cooldown") && !config_key_applies(&c, "fft_mode"),
          "pairconnect mlm wsd");
    CHECK(config_key_applies(&c, "not_a_key"), "unknown keys are not hidden");
}

/* A measured speed of run id at c. */
static MeasuredSpeed measured(int64_t id, Config c, double tokens_per_s)
{
    return (MeasuredSpeed){id, c, tokens_per_s, estimate_train_flops_per_token(&c)};
}

/* Estimates from measured speeds: the same shape's tokens/s, else the
   similar runs' (same arch, task, threads, precision) nearest in FLOPs a
   token scaled by FLOPs, else the built-in model's; and the text that
   names the runs. */
static void test_measured_estimate(void)
{
    unsetenv("MIXBENCH_GFLOPS");
    char err[ERR_LEN] = "";
    Config mixer;
    config_defaults(&mixer);
    snprintf(mixer.arch, sizeof mixer.arch, "mixer");
    mixer.d = 16, mixer.layers = 1, mixer.heads = 2, mixer.n_ctx = 16, mixer.vocab = 200, mixer.threads = 1;
    Config big = mixer, other_task = mixer, four_threads = mixer, wide = mixer;
    big.d = 512, big.layers = 8;
    snprintf(other_task.task, sizeof other_task.task, "mlm");
    four_threads.threads = 4;
    wide.d = 24;
    MeasuredSpeed runs[] = {measured(3, mixer, 60000), measured(5, mixer, 70000), measured(6, big, 900),
                            measured(7, other_task, 1000), measured(8, four_threads, 1000)};
    SpeedBook book = {runs, 5};
    SpeedSource src;
    double tps = estimate_tokens_per_s(&book, &mixer, 40, &src);
    CHECK(src.basis == SPEED_MEASURED && src.n_runs == 2 && src.ids[0] == 3 && src.ids[1] == 5 &&
              fabs(tps - 65000) < 1e-6, "same shape: %g from %d (%d)", tps, src.n_runs, src.basis);
    /* d=24: the nearest similar shape in FLOPs is d=16 (not the d=256 run,
       nor the other task's or thread count's), scaled by FLOPs a token */
    tps = estimate_tokens_per_s(&book, &wide, 40, &src);
    double want = 65000 * estimate_train_flops_per_token(&mixer) / estimate_train_flops_per_token(&wide);
    CHECK(src.basis == SPEED_SCALED && src.n_runs == 2 && src.ids[0] == 3 && fabs(tps / want - 1) < 1e-9 &&
              !strcmp(src.shape, "d=16 layers=1 heads=2 n_ctx=16 batch=16"),
          "scaled: %g vs %g from %d runs (%d) at %s", tps, want, src.n_runs, src.basis, src.shape);
    /* more than ESTIMATE_SIMILAR_FLOPS from every similar run: the built-in model */
    Config far = mixer;
    far.d = 128, far.layers = 2;
    tps = estimate_tokens_per_s(&book, &far, 40, &src);
    CHECK(src.basis == SPEED_ASSUMED && src.n_runs == 0 &&
              fabs(tps * estimate_train_flops_per_token(&far) / 40e9 - 1) < 1e-9, "too far: %g (%d)", tps, src.basis);
    Config other = mixer;
    snprintf(other.arch, sizeof other.arch, "cumsum");
    tps = estimate_tokens_per_s(&book, &other, 40, &src);
    CHECK(src.basis == SPEED_ASSUMED && src.n_runs == 0 &&
              fabs(tps * estimate_train_flops_per_token(&other) / 40e9 - 1) < 1e-9, "assumed: %g", tps);
    /* a sweep of the three: its text names each basis and the runs */
    char *words[] = {"arch=mixer,cumsum", "d=16,24", "layers=1", "heads=2", "n_ctx=16", "vocab=200", "threads=1",
                     "steps=100"};
    Sweep s;
    Config base;
    config_defaults(&base);
    int rc = sweep_parse(8, words, &base, &s, err);
    CHECK(rc == 0 && s.n_jobs == 4, "%s", err);
    if (rc) return;
    SweepEstimate e = sweep_estimate(&s, 1, &book);
    char text[1024];
    estimate_describe(&e, text, sizeof text);
    CHECK(e.n_archs == 2 && strstr(text, "mixer ") &&
              strstr(text, " tok/s from runs 3, 5 (d=16 layers=1 heads=2 n_ctx=16 batch=16, scaled by FLOPs a token)") &&
              strstr(text, "cumsum ") &&
              strstr(text, " tok/s the built-in model's (40 GFLOP/s a thread; no similar run)"),
          "%s", text);
    sweep_free(&s);
    char *one[] = {"arch=mixer", "d=16", "layers=1", "heads=2", "n_ctx=16", "vocab=200", "threads=1", "steps=100"};
    rc = sweep_parse(8, one, &base, &s, err);
    CHECK(rc == 0, "%s", err);
    if (rc) return;
    e = sweep_estimate(&s, 1, &book);
    estimate_describe(&e, text, sizeof text);
    CHECK(strstr(text, "mixer 65.0k tok/s measured by runs 3, 5 (this shape)"), "%s", text);
    double mixer_seconds = 100.0 * s.jobs[0].config.batch * 16 / 65000;
    CHECK(e.seconds > mixer_seconds, "%g s vs the mixer's %g s of training", e.seconds, mixer_seconds);
    SweepEstimate none = sweep_estimate(&s, 1, NULL);
    CHECK(none.arch[0].src.basis == SPEED_ASSUMED, "no book: assumed");
    sweep_free(&s);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    RUN(test_grid);
    RUN(test_zip);
    RUN(test_zip_and_grid);
    RUN(test_repeats);
    RUN(test_variant);
    RUN(test_one_string_vs_words);
    RUN(test_budget_axes);
    RUN(test_base_config);
    RUN(test_data_variable);
    RUN(test_presets);
    RUN(test_recall_preset);
    RUN(test_errors);
    RUN(test_paper_variants);
    RUN(test_data_override);
    RUN(test_preset_data);
    RUN(test_key_applies);
    RUN(test_measured_estimate);
    RUN_IF(figures_csv() != NULL, "shared/papers/figures.csv is not beside the corpora or at ../shared/papers",
           test_figures_csv);
    CHECK_EXIT();
}
