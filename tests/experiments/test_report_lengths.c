/*
 * test_report_lengths.c — the report's section of a long-context study
 * (experiments/report_lengths.h) on a tiny hand-made store: a sweep of
 * long-context with attention at three lengths, cumsum at one finished
 * length, one failed and one still queued, the masked mixer at one length;
 * the table's cells (tokens/s mean +- se (seeds), own peak MB), the note
 * on a run without a peak of its own, and every (arch, n) without a
 * finished run with its reason: failed (the run's error), still to run,
 * not in the sweep (engine/memory.h's estimate from the stored config).
 * No timing: every number is written by hand.
 *
 * Not for: the verdicts (tests/experiments/test_claims.c judges the kinds).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/jobs.h"
#include "engine/common.h"
#include "engine/io/json.h"
#include "experiments/points.h"
#include "experiments/report.h"
#include "experiments/report_lengths.h"
#include "tests/check.h"
#include "tests/test_util.h"

static const char CONFIG[] = "{\"arch\": \"%s\", \"task\": \"clm\", \"d\": \"128\", \"layers\": \"2\", \"heads\": \"4\","
                             " \"n_ctx\": \"%d\", \"vocab\": \"100\", \"batch\": \"1\", \"threads\": \"1\"}";

/* A job of arch at length n (seed k) ending with status at rate tokens
   per CPU-second (and twice that of the wall clock: a machine shared) and
   own peak mb (NAN: none, and no CPU seconds); "queued" stays queued. */
static void add_job(Store *s, int64_t sweep, const char *arch, int n, int k, const char *status, double rate,
                    double mb, const char *why)
{
    char coords[160], config[512], err[ERR_LEN];
    snprintf(coords, sizeof coords, "{\"seed\": \"%d\", \"arch\": \"%s\", \"n_ctx\": \"%d\"}", k, arch, n);
    snprintf(config, sizeof config, CONFIG, arch, n);
    RunInfo info = {0};
    info.arch = arch, info.task = "clm", info.data = "builtin:stories", info.tokenizer = "word";
    info.config_json = config, info.vocab = 100, info.d = 128, info.layers = 2, info.heads = 4, info.n_ctx = n;
    int64_t id = 0;
    CHECK(store_job_enqueue(s, &info, sweep, coords, 0, &id, err) == 0, "%s", err);
    if (!strcmp(status, "queued")) return;
    RunEnd end = {status, why, 2, 65536, 2 * 65536 / rate, rate / 2, 100, mb, isnan(mb) ? NAN : 65536 / rate};
    CHECK(store_run_finish(s, id, &end, err) == 0, "%s", err);
}

/* Three seeds at m - 30, m, m + 30 tokens per CPU-second (se 17.3), each peak mb. */
static void add_point(Store *s, int64_t sweep, const char *arch, int n, double m, double mb)
{
    for (int k = 1; k <= 3; k++) add_job(s, sweep, arch, n, k, "done", m + (k - 2) * 30, mb, NULL);
}

static void test_section(void)
{
    Store *s = open_store("lengths.db");
    char err[ERR_LEN] = "";
    int64_t sw = 0;
    CHECK(store_sweep_create(s, "long-context", "long-context", NULL, &sw, err) == 0, "%s", err);
    add_point(s, sw, "attention", 512, 3000, 29);
    add_point(s, sw, "attention", 2048, 1500, 81);
    add_point(s, sw, "attention", 32768, 150, 1120);
    add_job(s, sw, "cumsum", 512, 1, "done", 9000, 22, NULL);
    add_job(s, sw, "cumsum", 512, 2, "done", 9100, NAN, NULL);   /* shared its process: no peak of its own */
    add_job(s, sw, "cumsum", 2048, 1, "failed", 1, NAN, "out of memory (test)");
    add_job(s, sw, "cumsum", 32768, 1, "queued", 0, NAN, NULL);
    add_point(s, sw, "mixer", 512, 4000, 56);

    StrBuf md;
    sb_init(&md);
    const char *presets[] = {"long-context"};
    CHECK(report_build(s, presets, 1, REPORT_MARKDOWN, &md, err) == 0, "%s", err);
    const char *t = md.data ? md.data : "";
    if (getenv("SHOW")) printf("%s\n", t);
    CHECK(strstr(t, "| arch | tokens/s n=512 | per CPU-s | MB | tokens/s n=2048 | per CPU-s | MB | tokens/s n=32768 "
                    "| per CPU-s | MB |"),
          "header: %s", t);
    CHECK(strstr(t, "| attention | 1500 +- 9 (3) | 3000 +- 17 (3) | 29 | 750 +- 9 (3) | 1500 +- 17 (3) | 81 | "
                    "75 +- 9 (3) | 150 +- 17 (3) | 1120 |"),
          "attention's row: %s", t);
    CHECK(strstr(t, "| cumsum | 4525 +- 25 (2) | 9000 (1) | 22 | - | - | - | - | - | - |"), "cumsum's row: %s", t);
    CHECK(strstr(t, "| mixer | 2000 +- 9 (3) | 4000 +- 17 (3) | 56 | - | - | - | - | - | - |"), "mixer's row: %s", t);
    CHECK(strstr(t, "1 point with runs that have no figures of their own"), "the unmeasured note: %s", t);
    CHECK(strstr(t, "- cumsum at n = 2048: 1 run ended without finishing (run ") &&
              strstr(t, ": failed, out of memory (test))"),
          "failed: %s", t);
    CHECK(strstr(t, "- cumsum at n = 32768: 1 run still to finish"), "queued: %s", t);
    const char *mixer = strstr(t, "- mixer at n = 32768: not in the sweep: needs ");
    CHECK(mixer && strstr(mixer, " GB") && strstr(mixer, "by engine/memory.h's estimate (data aside)"),
          "mixer's estimate: %s", t);
    CHECK(strstr(t, "- mixer at n = 2048: not in the sweep: needs "), "mixer at 2048: %s", t);
    CHECK(!strstr(t, "attention at n ="), "attention has every length: %s", t);
    /* the claims are judged below it: the crossover of cumsum is not decided at one length */
    CHECK(strstr(t, "prefix-sum mixer overtakes attention's training throughput"), "claims: %s", t);
    sb_free(&md);

    StrBuf text;
    sb_init(&text);
    CHECK(report_build(s, presets, 1, 0, &text, err) == 0, "%s", err);
    CHECK(text.data && strstr(text.data, "Throughput and memory against n") &&
              strstr(text.data, "tokens/s n=32768            per CPU-s") && strstr(text.data, "cumsum at n = 32768: 1 run still to finish"),
          "text: %s", text.data ? text.data : "");
    sb_free(&text);
    store_close(s);
}

/* Which sweeps get the section: arch and n_ctx among the coordinates, two
   lengths or more, a claim of the preset on tokens/s. */
static void test_which(void)
{
    Point p[2];
    memset(p, 0, sizeof p);
    for (int i = 0; i < 2; i++) {
        snprintf(p[i].arch, sizeof p[i].arch, "cumsum");
        p[i].n_coords = 2;
        snprintf(p[i].coords[0].key, sizeof p[i].coords[0].key, "arch");
        snprintf(p[i].coords[0].value, sizeof p[i].coords[0].value, "cumsum");
        snprintf(p[i].coords[1].key, sizeof p[i].coords[1].key, "n_ctx");
        snprintf(p[i].coords[1].value, sizeof p[i].coords[1].value, "%d", i ? 2048 : 512);
    }
    CHECK(lengths_sweep("long-context", p, 2), "two lengths of long-context");
    CHECK(!lengths_sweep("long-context", p, 1), "one length");
    CHECK(!lengths_sweep("pairconnect-speed", p, 2), "a preset without a tokens/s claim");
    CHECK(!lengths_sweep("grid", p, 2), "a grid");
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    if (tmp_dir_make("report_lengths")) return 1;
    RUN(test_section);
    RUN(test_which);
    tmp_dir_remove();
    CHECK_EXIT();
}
