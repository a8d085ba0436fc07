/*
 * job_print.c — the printing observer of job_print.h.  The lines are the
 * command line's interface: tests and users read them.  Text a user typed
 * (the data, the tokenizer, a note's words) is printed through text_shown
 * (engine/text.h): a control character in it is shown, never sent.
 */
#include "app/job_print.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/text.h"

#include "experiments/format.h"

static void started(void *ctx, const JobStartInfo *s)
{
    (void)ctx;
    char data[TEXT_SHOWN_CAP(1024)], tokenizer[TEXT_SHOWN_CAP(256)];
    printf("run %lld: %s/%s on %s (%s, vocab %d): %lld parameters (%lld non-embedding), ", (long long)s->run_id,
           s->arch, s->task, text_shown(s->data, data, sizeof data),
           text_shown(s->tokenizer, tokenizer, sizeof tokenizer), s->vocab, (long long)s->n_params,
           (long long)s->n_params_nonembedding);
    if (s->ranks > 1) printf("%d ranks x ", s->ranks);
    printf("%d thread%s%s\n", s->threads, s->threads > 1 ? "s" : "", s->resumed ? " (resumed)" : "");
    printf("memory: %s estimated\n", s->memory);
    if (isfinite(s->loss_floor)) printf("data entropy rate (loss floor): %.4f nats/token\n", s->loss_floor);
    if (isfinite(s->unigram_nats))
        printf("unigram entropy %.2f nats (%.2f bits) per %s\n", s->unigram_nats, s->unigram_nats / log(2.0),
               s->unigram_scored ? "scored target" : "token");
    fflush(stdout);
}

static void step(void *ctx, const TrainProgress *p, int64_t total_steps, double eta_seconds)
{
    (void)ctx;
    char eta[32];
    fmt_duration(eta_seconds, eta, sizeof eta);
    double rate = p->train_seconds > 0 ? p->tokens / p->train_seconds : 0;
    printf("step %lld", (long long)p->step);
    if (total_steps > 0) printf("/%lld", (long long)total_steps);
    printf("  loss %.4f (smooth %.4f)  lr %.2e  gnorm %.3f  %.0f tok/s  eta %s\n", p->loss, p->loss_smooth, p->lr,
           p->grad_norm, rate, eta);
    fflush(stdout);
}

static void eval(void *ctx, const char *split, int64_t at, const EvalResult *r, double bpb, double floor, int capped)
{
    (void)ctx;
    printf("eval  %-5s step %lld  loss %.4f  ppl %.2f  acc %.4f", split, (long long)at, r->loss, exp(r->loss),
           r->accuracy);
    if (isfinite(r->loss_all)) printf("  loss_all %.4f", r->loss_all);
    if (isfinite(bpb)) printf("  bpb %.4f", bpb);
    if (isfinite(floor)) printf("  (floor %.4f)", floor);
    if (capped) printf("  (first %lld windows: eval_tokens)", (long long)r->n_windows);
    printf("\n");
    fflush(stdout);
}

/* A line, its control characters shown (malloc'd when it is long). */
static void print_shown(FILE *f, const char *prefix, const char *text)
{
    char small[1024], *big = NULL, *out = small;
    size_t cap = TEXT_SHOWN_CAP(strlen(text));
    if (cap > sizeof small && (big = malloc(cap))) out = big;
    fprintf(f, "%s%s\n", prefix, text_shown(text, out, big ? cap : sizeof small));
    free(big);
}

static void note(void *ctx, const char *text)
{
    (void)ctx;
    print_shown(stdout, "", text);
    fflush(stdout);
}

static void warn(void *ctx, const char *text)
{
    (void)ctx;
    print_shown(stderr, "mixbench: ", text);
}

static void ended(void *ctx, int64_t run_id, RunStatus status)
{
    (void)ctx;
    printf("run %lld %s\n", (long long)run_id, run_status_name(status));
    fflush(stdout);
}

const JobObserver job_printer = {started, step, eval, note, warn, ended, NULL};
