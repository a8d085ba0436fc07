/*
 * test_study.c — study files (experiments/study.h, docs/studies.md): every
 * field parsed; a table of bad files, each refused in one line with its
 * line and column; every built-in study equal to the preset it replaced
 * (former_presets.inc: the same jobs, figures and claims); a study file
 * registered at run time is found by name and its claims join the rules.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "engine/config.h"
#include "engine/io/json.h"
#include "experiments/study.h"
#include "experiments/sweep.h"
#include "tests/check.h"

#include "tests/experiments/former_presets.inc"

static Study *parse(const char *text, char *err) { return study_parse(text, strlen(text), "t.yaml", 1, err); }

static const char FULL[] =
    "name: my-study\n"
    "source: my question\n"
    "description: mixer vs attention\n"
    "corpus: builtin:stories\n"
    "keys:\n"
    "  task: clm\n"
    "  d: 32\n"
    "axes:\n"
    "  n_ctx: [16, 32]\n"
    "  \"(arch, heads)\": [[mixer, 1], [attention, 2]]\n"
    "lr: tune\n"
    "budget:\n"
    "  steps: 20\n"
    "seeds: 2\n"
    "until_conclusive: {max_hours: 3}\n"
    "paper:\n"
    "  - {point: {arch: mixer, n_ctx: 32}, metric: test_loss, value: 1.5, source: Table 9, setting: S6}\n"
    "claims:\n"
    "  - claim: mixer below attention\n"
    "    kind: lower\n"
    "    metric: test_loss\n"
    "    a: {arch: mixer}\n"
    "    b: {arch: attention}\n"
    "    pair_on: [n_ctx]\n"
    "    settings: [S6, S6]\n"
    "    former: the mixer is better\n"
    "  - claim: within 5%\n"
    "    kind: equivalent\n"
    "    metric: test_perplexity\n"
    "    a: {arch: mixer, n_ctx: [16, 32]}\n"
    "    b: {arch: attention}\n"
    "    margin: 0.05\n"
    "  - claim: learns\n"
    "    kind: below_unigram\n"
    "    metric: test_loss\n"
    "    nats: 0.1\n"
    "at_paper_size:\n"
    "  keys: {task: clm, d: 512}\n"
    "  axes: {arch: [mixer, attention]}\n"
    "  seeds: 3\n";

static void test_every_field(void)
{
    char err[ERR_LEN];
    Study *s = parse(FULL, err);
    CHECK(s != NULL, "%s", err);
    if (!s) return;
    const Preset *p = study_preset(s);
    CHECK(!strcmp(p->name, "my-study") && !strcmp(p->source, "my question") && !strcmp(p->what, "mixer vs attention"),
          "%s", p->name);
    CHECK(!strcmp(p->spec, "data=builtin:stories task=clm d=32 n_ctx=16,32 (arch,heads)=(mixer,1),(attention,2) "
                           "lr=tune steps=20 repeats=2"),
          "%s", p->spec);
    CHECK(p->paper_spec && !strcmp(p->paper_spec, "task=clm d=512 arch=mixer,attention repeats=3"), "%s", p->paper_spec);
    CHECK(p->until_conclusive == 1 && p->max_hours == 3, "%d %g", p->until_conclusive, p->max_hours);
    CHECK(p->n_paper == 1 && !strcmp(p->paper[0].coords, "{\"arch\": \"mixer\", \"n_ctx\": \"32\"}") &&
              !strcmp(p->paper[0].metric, "test_loss") && p->paper[0].value == 1.5 &&
              !strcmp(p->paper[0].note, "Table 9") && !strcmp(p->paper[0].setting, "S6"),
          "%d", p->n_paper);
    CHECK(study_claim_count(s) == 3, "%d", study_claim_count(s));
    const ClaimRule *r = study_claim(s, 0);
    CHECK(r->kind == R_LOWER && r->metric == PM_TEST_LOSS && !strcmp(r->a, "arch=mixer") &&
              !strcmp(r->b, "arch=attention") && !strcmp(r->pair_on, "n_ctx") && !strcmp(r->setting_a, "S6") &&
              !strcmp(r->former, "the mixer is better") && !strcmp(r->preset, "my-study"),
          "%s", r->a);
    r = study_claim(s, 1);
    CHECK(r->kind == R_MATCH && r->metric == PM_TEST_PERPLEXITY && r->param == 0.05 &&
              !strcmp(r->a, "arch=mixer n_ctx=16|32") && !r->former,
          "%s %g", r->a, r->param);
    r = study_claim(s, 2);
    CHECK(r->kind == R_BELOW_UNIGRAM && r->param == 0.1 && !strcmp(r->a, "") && !r->b, "%d", r->kind);
    char words[1024];
    study_claim_words(study_claim(s, 1), words, sizeof words);
    CHECK(strstr(words, "within 5% of [arch=attention]") != NULL, "%s", words);
    study_free(s);
    /* the skeleton `study new` writes is a valid study */
    char *sk = study_skeleton("sk");
    s = parse(sk, err);
    CHECK(s != NULL, "%s", err);
    study_free(s);
    free(sk);
}

/* bad files: each refused naming file:line:column and the problem */
static void test_bad_files(void)
{
    static const char BASE[] = "name: b\ncorpus: builtin:stories\nkeys: {task: clm}\naxes:\n  arch: [mixer, attention]\n";
    static const struct {
        const char *tail;   /* appended to BASE ("" and full text when it starts with '!') */
        const char *where;  /* "t.yaml:L:C:" */
        const char *what;
    } BAD[] = {
        {"!name: [x\n", "t.yaml:2:1:", "YAML"},
        {"descripton: x\n", "t.yaml:6:1:", "did you mean 'description'"},
        {"!name: b\nkeys: {tsk: clm}\n", "t.yaml:2:8:", "did you mean 'task'"},
        {"!name: b\naxes: {arch: mixer}\n", "t.yaml:2:14:", "list [v1, v2]"},
        {"claims:\n  - {claim: c, kind: lower, metric: test_loss, a: {arch: mixr}, b: {arch: attention}}\n",
         "t.yaml:7:58:", "never produce (did you mean 'mixer'?)"},
        {"claims:\n  - {claim: c, kind: lower, metric: test_loss, a: {n_ctx: 64}, b: {arch: attention}}\n",
         "t.yaml:7:52:", "not an axis"},
        {"claims:\n  - {claim: c, kind: equivalent, metric: test_loss, a: {arch: mixer}, b: {arch: attention}, "
         "margin: 1.5}\n",
         "t.yaml:7:101:", "outside (0, 1)"},
        {"claims:\n  - {claim: c, kind: equivalent, metric: test_loss, a: {arch: mixer}, b: {arch: attention}, "
         "margin: 0}\n",
         "t.yaml:7:101:", "outside (0, 1)"},
        {"claims:\n  - {claim: c, kind: lower, metric: test_loss_all, a: {arch: mixer}, b: {arch: attention}}\n",
         "t.yaml:7:37:", "task clm has no metric test_loss_all"},
        {"claims:\n  - {claim: c, kind: lowr, metric: test_loss, a: {arch: mixer}, b: {arch: attention}}\n",
         "t.yaml:7:22:", "did you mean 'lower'"},
        {"claims:\n  - {claim: c, kind: lower, metric: tst_loss, a: {arch: mixer}, b: {arch: attention}}\n",
         "t.yaml:7:37:", "did you mean 'test_loss'"},
        {"claims:\n  - {claim: c, kind: lower, metric: test_loss, a: {arch: mixer}}\n", "t.yaml:7:5:", "give b"},
        {"claims:\n  - {claim: c, kind: lower, metric: test_loss, a: {arch: mixer}, b: {arch: attention}, cliam: x}\n",
         "t.yaml:7:88:", "did you mean 'claim'"},
        {"seeds: 0\n", "t.yaml:6:8:", "whole number"},
        {"!name: b c\naxes: {arch: [mixer, attention]}\n", "t.yaml:1:7:", "one word"},
        {"!keys: {task: clm}\n", "t.yaml:1:1:", "needs 'name:'"},
        {"!name: b\naxes: {arch: [mixer, attention]}\n---\nname: c\n", "t.yaml:4:1:", "one study per file"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        char text[2048], err[ERR_LEN] = "";
        if (BAD[i].tail[0] == '!') snprintf(text, sizeof text, "%s", BAD[i].tail + 1);
        else snprintf(text, sizeof text, "%s%s", BASE, BAD[i].tail);
        Study *s = parse(text, err);
        CHECK(s == NULL, "bad file %zu was accepted", i);
        study_free(s);
        CHECK(!strncmp(err, BAD[i].where, strlen(BAD[i].where)) && strstr(err, BAD[i].what) && !strchr(err, '\n'),
              "bad file %zu: want %s ... %s, got: %s", i, BAD[i].where, BAD[i].what, err);
    }
}

/* The jobs of a spec: each job's full config as JSON and its coords. */
static void jobs_equal(const char *name, const char *old_spec, const char *new_word)
{
    Config base;
    config_defaults(&base);
    char err[ERR_LEN];
    Sweep a, b;
    char *argv_a[1] = {(char *)old_spec}, *argv_b[1] = {(char *)new_word};
    int ra = sweep_parse(1, argv_a, &base, &a, err);
    CHECK(ra == 0, "%s former spec: %s", name, err);
    int rb = sweep_parse(1, argv_b, &base, &b, err);
    CHECK(rb == 0, "%s: %s", name, err);
    if (ra || rb) return;
    CHECK(a.n_jobs == b.n_jobs && !strcmp(a.axes, b.axes), "%s: %d vs %d jobs, %s vs %s", name, a.n_jobs, b.n_jobs,
          a.axes, b.axes);
    CHECK(!memcmp(&a.plan, &b.plan, sizeof a.plan), "%s: the plans differ", name);
    for (int i = 0; i < a.n_jobs && i < b.n_jobs; i++) {
        StrBuf ca, cb;
        sb_init(&ca);
        sb_init(&cb);
        config_to_json(&a.jobs[i].config, &ca);
        config_to_json(&b.jobs[i].config, &cb);
        CHECK(!strcmp(ca.data, cb.data) && !strcmp(a.jobs[i].coords, b.jobs[i].coords), "%s job %d: %s vs %s", name,
              i + 1, a.jobs[i].coords, b.jobs[i].coords);
        sb_free(&ca);
        sb_free(&cb);
    }
    sweep_free(&a);
    sweep_free(&b);
}

static int same(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

static void test_builtin_equal_former(void)
{
    int n = (int)(sizeof FORMER_PRESETS / sizeof FORMER_PRESETS[0]);
    CHECK(!study_builtin_error()[0], "%s", study_builtin_error());
    /* the studies since the presets (issue 43's long-context) follow them */
    static const char *const SINCE[] = {"long-context"};
    int n_since = (int)(sizeof SINCE / sizeof SINCE[0]), since_rules = 0;
    CHECK(preset_count() == n + n_since, "%d built-in studies, %d former presets and %d since", preset_count(), n,
          n_since);
    for (int i = 0; i < n_since && n + i < preset_count(); i++) {
        const Preset *p = preset_at(n + i);
        char err[ERR_LEN];
        Study *s = study_parse(p->study_text, strlen(p->study_text), p->file, 1, err);
        CHECK(!strcmp(p->name, SINCE[i]) && p->builtin && s != NULL, "study %d: %s: %s", n + i, p->name, err);
        if (s) since_rules += study_claim_count(s);
        study_free(s);
    }
    for (int i = 0; i < n && i < preset_count(); i++) {
        const FormerPreset *f = &FORMER_PRESETS[i];
        const Preset *p = preset_at(i);
        CHECK(!strcmp(p->name, f->name) && !strcmp(p->source, f->source) && !strcmp(p->what, f->what) && p->builtin,
              "study %d: %s vs %s", i, p->name, f->name);
        /* read again in full: its claims and figures checked against its jobs */
        char err[ERR_LEN];
        Study *s = study_parse(p->study_text, strlen(p->study_text), p->file, 1, err);
        CHECK(s != NULL, "%s", err);
        study_free(s);
        jobs_equal(f->name, f->spec, f->name);
        CHECK((p->paper_spec != NULL) == (f->paper_spec != NULL), "%s: @paper", f->name);
        if (f->paper_spec && p->paper_spec) {
            char word[128];
            snprintf(word, sizeof word, "%s@paper", f->name);
            jobs_equal(word, f->paper_spec, word);
        }
        CHECK(p->n_paper == f->n_paper, "%s: %d vs %d figures", f->name, p->n_paper, f->n_paper);
        for (int k = 0; k < p->n_paper && k < f->n_paper; k++)
            CHECK(!strcmp(p->paper[k].coords, f->paper[k].coords) && !strcmp(p->paper[k].metric, f->paper[k].metric) &&
                      p->paper[k].value == f->paper[k].value && !strcmp(p->paper[k].note, f->paper[k].note) &&
                      !strcmp(p->paper[k].setting, f->paper[k].setting),
                  "%s figure %d: %s vs %s", f->name, k, p->paper[k].coords, f->paper[k].coords);
    }
    /* the claims of each study in its former order (the table's order across
       presets followed the papers; each study now holds its own, and every
       caller judges one preset's claims) */
    int nr = (int)(sizeof FORMER_RULES / sizeof FORMER_RULES[0]), matched = 0;
    CHECK(study_rule_count() == nr + since_rules, "%d rules, %d former, %d since", study_rule_count(), nr, since_rules);
    for (int i = 0; i < n; i++) {
        const char *name = FORMER_PRESETS[i].name;
        int j = 0;
        for (int k = 0; k < nr; k++) {
            const ClaimRule *a = &FORMER_RULES[k];
            if (strcmp(a->preset, name)) continue;
            while (j < study_rule_count() && strcmp(study_rule_at(j)->preset, name)) j++;
            const ClaimRule *b = study_rule_at(j++);
            CHECK(b && same(a->claim, b->claim) && a->kind == b->kind && a->metric == b->metric &&
                      same(a->a && *a->a ? a->a : "", b->a) && same(a->b, b->b) && same(a->pair_on, b->pair_on) &&
                      a->param == b->param && same(a->setting_a, b->setting_a) && same(a->setting_b, b->setting_b) &&
                      same(a->former, b->former) && a->sign == b->sign && a->quantifier == b->quantifier &&
                      a->compare == b->compare && same(a->to, b->to),
                  "%s: rule %s vs %s", name, a->claim, b ? b->claim : "(none)");
            matched++;
        }
    }
    CHECK(matched == nr, "%d of %d former rules matched", matched, nr);
}

static void test_register(void)
{
    char err[ERR_LEN];
    int rules = study_rule_count();
    const Preset *p;
    CHECK(study_register(FULL, "full.yaml", &p, err) == 0 && p && !strcmp(p->name, "my-study"), "%s", err);
    CHECK(preset_find("my-study") == p && study_rule_count() == rules + 3, "%d", study_rule_count());
    /* the same text again: the same study; other text under its name, or a built-in's name: refused */
    const Preset *q;
    CHECK(study_register(FULL, "again.yaml", &q, err) == 0 && q == p, "%s", err);
    char other[sizeof FULL + 16];
    snprintf(other, sizeof other, "%s", FULL);
    other[strlen("name: my-study\nsource: my q")] = 'Q';
    CHECK(study_register(other, "other.yaml", NULL, err) != 0 && strstr(err, "already known"), "%s", err);
    const char *builtin = "name: recall\nkeys: {task: clm}\naxes: {arch: [mixer, attention]}\n";
    CHECK(study_register(builtin, "r.yaml", NULL, err) != 0 && strstr(err, "built-in"), "%s", err);
    /* a sweep of it by name */
    Config base;
    config_defaults(&base);
    Sweep sw;
    char *argv[1] = {"my-study"};
    int rc = sweep_parse(1, argv, &base, &sw, err);
    CHECK(rc == 0, "%s", err);
    if (rc) return;
    CHECK(sw.n_jobs == 8 && !strcmp(sw.name, "my-study") && sw.plan.lr_tune, "%d %s", sw.n_jobs, sw.name);
    sweep_free(&sw);
}

/* threshold and min_d claims (issues 41, 42): their fields parsed, and
   each bad use refused in one line at its line and column */
static void test_bound_claims(void)
{
    static const char BASE[] = "name: b\ncorpus: builtin:mqar\nkeys: {task: clm}\naxes:\n  arch: [mixer, attention, conv]\n"
                               "  d: [32, 64]\nclaims:\n";
    static const char GOOD[] =
        "  - {claim: t, kind: threshold, metric: answer_accuracy, a: {arch: attention}, at_least: 0.99, for: every}\n"
        "  - {claim: u, kind: threshold, metric: test_loss, a: {d: 64}, at_most: 2.5, for: some}\n"
        "  - {claim: v, kind: min_d, metric: answer_accuracy, a: {arch: mixer}, b: {arch: attention}, at_least: 0.9,\n"
        "     compare: no_smaller}\n"
        "  - {claim: w, kind: min_d, metric: answer_accuracy, b: {arch: mixer}, to: {arch: attention}, at_least: 0.9,\n"
        "     compare: closer}\n";
    char text[4096], err[ERR_LEN] = "";
    snprintf(text, sizeof text, "%s%s", BASE, GOOD);
    Study *s = parse(text, err);
    CHECK(s != NULL, "%s", err);
    if (s) {
        const ClaimRule *r = study_claim(s, 0);
        CHECK(r->kind == R_THRESHOLD && r->metric == PM_ANSWER_ACCURACY && r->param == 0.99 && r->sign == +1 &&
                  r->quantifier == QUANT_EVERY && !r->b && !r->to,
              "%d %g %d", r->kind, r->param, r->sign);
        r = study_claim(s, 1);
        CHECK(r->kind == R_THRESHOLD && r->param == 2.5 && r->sign == -1 && r->quantifier == QUANT_SOME, "%d", r->sign);
        r = study_claim(s, 2);
        CHECK(r->kind == R_MIN_D && r->param == 0.9 && r->sign == +1 && r->compare == MIN_D_NO_SMALLER &&
                  !strcmp(r->a, "arch=mixer") && !strcmp(r->b, "arch=attention") && !r->to,
              "%d %s", r->compare, r->a);
        r = study_claim(s, 3);
        CHECK(r->kind == R_MIN_D && r->compare == MIN_D_CLOSER && !strcmp(r->a, "") && !strcmp(r->to, "arch=attention"),
              "%d", r->compare);
        char words[1024];
        study_claim_words(study_claim(s, 1), words, sizeof words);
        CHECK(strstr(words, "test_loss of some point of [d=64] at most 2.5") && strstr(words, "Bonferroni"), "%s", words);
        study_claim_words(study_claim(s, 3), words, sizeof words);
        CHECK(strstr(words, "nearer to [arch=attention]'s than [arch=mixer]'s"), "%s", words);
    }
    study_free(s);
    static const struct {
        const char *claim;   /* appended to BASE: line 8 */
        const char *where, *what;
    } BAD[] = {
        {"  - {claim: c, kind: threshold, metric: answer_accuracy, at_least: 0.99}\n", "t.yaml:8:5:",
         "needs 'for: every' or 'for: some'"},
        {"  - {claim: c, kind: threshold, metric: answer_accuracy, at_least: 0.99, for: all}\n", "t.yaml:8:79:",
         "unknown quantifier 'all' (every, some)"},
        {"  - {claim: c, kind: threshold, metric: answer_accuracy, at_least: 0.99, for: evry}\n", "t.yaml:8:79:",
         "did you mean 'every'"},
        {"  - {claim: c, kind: threshold, metric: answer_accuracy, at_least: 1.5, for: every}\n", "t.yaml:8:68:",
         "at_least 1.5 is outside (0, 1) (answer_accuracy is a share"},
        {"  - {claim: c, kind: threshold, metric: test_loss, at_most: -1, for: every}\n", "t.yaml:8:61:",
         "at_most -1 must be above 0"},
        {"  - {claim: c, kind: threshold, metric: test_loss, at_most: 2, at_least: 1, for: every}\n", "t.yaml:8:52:",
         "give at_least or at_most, not both"},
        {"  - {claim: c, kind: threshold, metric: test_loss, for: every}\n", "t.yaml:8:5:",
         "needs 'at_least:' or 'at_most:'"},
        {"  - {claim: c, kind: threshold, metric: test_loss, b: {arch: mixer}, at_most: 2, for: every}\n",
         "t.yaml:8:52:", "a 'threshold' claim has no b"},
        {"  - {claim: c, kind: threshold, metric: test_loss, pair_on: [d], at_most: 2, for: every}\n", "t.yaml:8:52:",
         "takes no pair_on"},
        {"  - {claim: c, kind: threshold, metric: test_loss, at_leats: 2, for: every}\n", "t.yaml:8:52:",
         "did you mean 'at_least'"},
        {"  - {claim: c, kind: lower, metric: test_loss, a: {arch: mixer}, b: {arch: conv}, at_least: 2}\n",
         "t.yaml:8:83:", "a 'lower' claim takes no at_least"},
        {"  - {claim: c, kind: min_d, metric: answer_accuracy, b: {arch: mixer}, at_least: 0.9}\n", "t.yaml:8:5:",
         "needs 'compare:' (larger, no_smaller, smaller, no_larger, closer)"},
        {"  - {claim: c, kind: min_d, metric: answer_accuracy, b: {arch: mixer}, at_least: 0.9, compare: largr}\n",
         "t.yaml:8:96:", "unknown compare 'largr' (did you mean 'larger'?)"},
        {"  - {claim: c, kind: min_d, metric: answer_accuracy, b: {arch: mixer}, at_least: 0.9, compare: closer}\n",
         "t.yaml:8:87:", "compare: closer needs 'to:'"},
        {"  - {claim: c, kind: min_d, metric: answer_accuracy, b: {arch: mixer}, at_least: 0.9, compare: larger, "
         "to: {arch: conv}}\n",
         "t.yaml:8:104:", "'to' goes with compare: closer"},
        {"  - {claim: c, kind: min_d, metric: answer_accuracy, b: {arch: mixer}, at_least: 0.9, for: some, "
         "compare: larger}\n",
         "t.yaml:8:87:", "a 'min_d' claim takes no for"},
        {"  - {claim: c, kind: min_d, metric: answer_accuracy, at_least: 0.9, compare: larger}\n", "t.yaml:8:5:",
         "give b"},
        {"  - {claim: c, kind: min_d, metric: answer_accuracy, b: {arch: mixer}, at_least: 0.9, compare: closer, "
         "to: {arch: mamba}}\n",
         "t.yaml:8:115:", "arch=mamba is a value the axes never produce"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        snprintf(text, sizeof text, "%s%s", BASE, BAD[i].claim);
        err[0] = 0;
        s = parse(text, err);
        CHECK(s == NULL, "bad claim %zu was accepted", i);
        study_free(s);
        CHECK(!strncmp(err, BAD[i].where, strlen(BAD[i].where)) && strstr(err, BAD[i].what) && !strchr(err, '\n'),
              "bad claim %zu: want %s ... %s, got: %s", i, BAD[i].where, BAD[i].what, err);
    }
    /* min_d needs d as an axis */
    const char *no_d = "name: b\ncorpus: builtin:mqar\nkeys: {task: clm, d: 32}\naxes:\n  arch: [mixer, attention]\n"
                       "claims:\n  - {claim: c, kind: min_d, metric: answer_accuracy, b: {arch: mixer}, at_least: 0.9, "
                       "compare: larger}\n";
    s = parse(no_d, err);
    CHECK(s == NULL && strstr(err, "t.yaml:7:22:") && strstr(err, "a 'min_d' claim needs d as an axis (axes: arch)"),
          "%s", err);
    study_free(s);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    RUN(test_every_field);
    RUN(test_bad_files);
    RUN(test_bound_claims);
    RUN(test_builtin_equal_former);
    RUN(test_register);
    CHECK_EXIT();
}
