/*
 * presets.c — the studies this process knows (study.h): the seeds'
 * experiments (SPEC section 8), each a study file in studies/ compiled into
 * the binary (the Makefile's BUILTIN_STUDIES; their sizes, budgets and
 * figures are explained in the files themselves), and the study files
 * read at run time (`mixbench sweep FILE.yaml`, a sweep's stored file),
 * as the Presets that sweep.c expands and the claim rules claims.c judges;
 * and the papers' own settings (S1..S7 of shared/papers/README.md) that
 * the studies' figures and claims name.
 *
 * The built-in studies are read once, on first use (pthread_once); a
 * study read later is appended under a lock and never freed, so a Preset
 * or rule pointer stays valid for the life of the process.
 *
 * Not for: parsing study files (study.c) or specs (sweep.c), judging
 * claims (claims.c).
 */
#include "experiments/sweep.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/common.h"
#include "db/sweeps_read.h"
#include "experiments/study.h"

/* The papers' own settings, from shared/papers/README.md: the text, and
   the model sizes that code compares with our runs (0: the paper does not
   state it; S1's L and h are the points of Table 1, not one setting). */
static const PaperSetting SETTINGS[] = {
    {"S1", "PairConnect Tables 1-2: masked LM on PTB and WikiText-2, word level, 90% of sequences masked, 15% of "
           "their words; d=256, hidden 256, Adam, lr 1e-5, trained until convergence on V100 GPUs; Table 2 at L=6, "
           "h=4 with the hash size K varied; sequence length not stated; the losses average every position "
           "(our loss_all)", 256, 0, 0, 0},
    {"S2", "PairConnect Table 3: CPU inference on PTB, batch 1, one thread (Xeon E5-2698 v4, 2.2 GHz), PyTorch with "
           "a C++ table lookup, L=6, h=4, samples per second; compare ratios to attention measured in the same run",
     0, 6, 4, 0},
    {"S3", "Masked Mixers II autoencoders on TinyStories: d=512, 8 encoder and 8 decoder layers, after 2.25 epochs",
     512, 8, 0, 0},
    {"S4", "Masked Mixers II autoencoders on TinyStories: d=1024, 4 + 4 layers (the largest Transformer of that "
           "width that fit a V100), 3 epochs", 1024, 4, 0, 0},
    {"S5", "Masked Mixers II: the mixer at the Transformer's memory of S4 (d=1024, 8 + 8 layers), same compute "
           "(4x V100, 6 h)", 1024, 8, 0, 0},
    {"S6", "Masked Mixers (Part I, recalled in Part II): causal LM on TinyStories at n_ctx=512, an optimized "
           "Llama-style Transformer vs the masked mixer", 0, 0, 0, 512},
    {"S7", "Backurs et al.: causal LM on WikiText-103 word pieces, n=64, L=12, d=768, vocabulary 32000, batch 64, "
           "AdamW (weight decay 0.01), lr 1e-3 with linear decay and no warm-up, 1B tokens; the Appendix B "
           "weighted-sum model (our conv, 113M parameters) vs 12-head attention (127M)", 768, 12, 12, 64},
};

const PaperSetting *paper_setting(const char *name)
{
    for (size_t i = 0; name && i < sizeof SETTINGS / sizeof SETTINGS[0]; i++)
        if (!strcmp(SETTINGS[i].name, name)) return &SETTINGS[i];
    return NULL;
}

const char *paper_setting_text(const char *setting)
{
    const PaperSetting *p = paper_setting(setting);
    return p ? p->text : NULL;
}


/* ---- the known studies ---------------------------------------------------- */

enum { MAX_STUDIES = 256, MAX_RULES = 4096 };

static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Study *studies[MAX_STUDIES];
static const ClaimRule *rules[MAX_RULES];
static atomic_int n_studies, n_rules;
static char builtin_error[ERR_LEN];

/* Appends s and its claims (lock held); 0, or -1 when full. */
static int append(Study *s)
{
    int ns = atomic_load(&n_studies), nr = atomic_load(&n_rules);
    if (ns == MAX_STUDIES || nr + study_claim_count(s) > MAX_RULES) return -1;
    for (int i = 0; i < study_claim_count(s); i++) rules[nr + i] = study_claim(s, i);
    studies[ns] = s;
    atomic_store(&n_rules, nr + study_claim_count(s));
    atomic_store(&n_studies, ns + 1);
    return 0;
}

/* The built-in studies; one that does not parse is left out and its error
   kept for study_builtin_error (a test reads it: it is a build's bug). */
static void load_builtins(void)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < BUILTIN_STUDY_COUNT; i++) {
        char err[ERR_LEN];
        const StudyText *t = &BUILTIN_STUDY_TEXTS[i];
        Study *s = study_parse(t->text, strlen(t->text), t->file, 0, err);
        if (!s) {
            if (!builtin_error[0]) snprintf(builtin_error, sizeof builtin_error, "%s", err);
            continue;
        }
        Preset *p = (Preset *)study_preset(s);
        p->builtin = 1;
        if (append(s)) study_free(s);
    }
    pthread_mutex_unlock(&lock);
}

static void ensure(void) { pthread_once(&builtin_once, load_builtins); }

const char *study_builtin_error(void)
{
    ensure();
    return builtin_error;
}

int preset_count(void)
{
    ensure();
    return atomic_load(&n_studies);
}

const Preset *preset_at(int i) { return i >= 0 && i < preset_count() ? study_preset(studies[i]) : NULL; }

const Preset *preset_find(const char *name)
{
    int n = preset_count();
    for (int i = 0; name && i < n; i++)
        if (!strcmp(study_preset(studies[i])->name, name)) return study_preset(studies[i]);
    return NULL;
}

int study_rule_count(void)
{
    ensure();
    return atomic_load(&n_rules);
}

const ClaimRule *study_rule_at(int i) { return i >= 0 && i < study_rule_count() ? rules[i] : NULL; }

int study_register(const char *text, const char *file, const Preset **out, char *err)
{
    ensure();
    if (out) *out = NULL;
    Study *s = study_parse(text, strlen(text), file, 1, err);
    if (!s) return -1;
    const Preset *p = study_preset(s);
    pthread_mutex_lock(&lock);
    const Preset *known = preset_find(p->name);
    int rc = 0;
    if (known && !strcmp(known->study_text, text)) {
        if (out) *out = known;
        study_free(s);
    } else if (known && known->builtin) {
        rc = err_set(err, "%s: '%s' is a built-in study's name (%s): give yours another name", file, p->name,
                     known->file);
    } else if (known) {
        rc = err_set(err, "%s: a study called '%s' is already known, with other text (%s): rename one", file, p->name,
                     known->file);
    } else if (append(s)) {
        rc = err_set(err, "%s: more than %d studies in one process", file, MAX_STUDIES);
    } else if (out) {
        *out = p;
    }
    if (rc) study_free(s);
    pthread_mutex_unlock(&lock);
    return rc;
}

int study_register_file(const char *path, const Preset **out, char *err)
{
    char *text = study_read_file(path, err);
    if (!text) return -1;
    int rc = study_register(text, path, out, err);
    free(text);
    return rc;
}

int studies_from_store(Store *st, char *err)
{
    char **texts;
    int n;
    if (sweeps_read_studies(st, &texts, &n, err)) return -1;
    for (int i = 0; i < n; i++) {
        int known = 0, count = preset_count();
        for (int j = 0; j < count && !known; j++) {
            const char *t = study_preset(studies[j])->study_text;
            known = t && !strcmp(t, texts[i]);
        }
        /* a stored study that no longer reads, or whose name another has
           taken, keeps the claims it is known by (none: not judged) */
        char why[ERR_LEN];
        if (!known) (void)study_register(texts[i], "a sweep's stored study", NULL, why);
    }
    sweeps_studies_free(texts, n);
    return 0;
}

int study_of_sweep(Store *st, const char *queued_from, const Preset **out, char *err)
{
    *out = NULL;
    if (studies_from_store(st, err)) return -1;
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(queued_from, "@"), queued_from);
    *out = preset_find(name);
    return 0;
}

int preset_from_file(char *word, size_t cap, char *err)
{
    if (!study_is_file(word)) return 0;
    const Preset *st;
    if (study_register_file(word, &st, err)) return -1;
    snprintf(word, cap, "%s", st->name);
    return 0;
}
