/*
 * test_run_filter.c — the run filter (experiments/run_filter.c) that the
 * Runs screen's `/`, `ls --where`, `export --where` and the bulk commands
 * share: words, key=value / != / > / < / >= / <= on fields, sweep
 * coordinates and config keys (numbers as numbers), tags (tag:NAME, #NAME,
 * tag!=NAME), negation, quotes, the refusals, and run_filter_select over a
 * store and its trash.
 *
 * Not for: the commands themselves (tests/cli/test_organise_cli.sh) or the
 * screen (tests/ui/test_ui_organise.sh).
 */
#include "db/jobs.h"
#include "db/organise.h"
#include "db/runs_read.h"
#include "db/store.h"
#include "engine/common.h"
#include "experiments/run_filter.h"
#include "tests/check.h"
#include "tests/test_util.h"

#include <string.h>

static RunSummary run(int64_t id, const char *arch, const char *coords, const char *tags)
{
    RunSummary r;
    memset(&r, 0, sizeof r);
    r.id = id;
    snprintf(r.arch, sizeof r.arch, "%s", arch);
    snprintf(r.task, sizeof r.task, "clm");
    snprintf(r.data, sizeof r.data, "builtin:stories");
    r.status = RUN_DONE;
    snprintf(r.coords, sizeof r.coords, "%s", coords);
    snprintf(r.tags, sizeof r.tags, "%s", tags);
    snprintf(r.config_json, sizeof r.config_json,
             "{\"arch\": \"%s\", \"layers\": \"%d\", \"lr\": \"0.0003\", \"tie\": \"true\", \"hash_size\": 1000}", arch,
             (int)id);
    r.valid_loss = 4.0 + 0.1 * (double)id;
    r.train_loss = NAN;
    r.test_loss = NAN;
    r.best_valid_loss = r.valid_loss;
    r.seed = 1;
    return r;
}

/* 1 when text parses and matches r. */
static int holds(const char *text, const RunSummary *r)
{
    RunFilter f;
    char err[ERR_LEN] = "";
    if (run_filter_parse(text, &f, err)) {
        printf("  parse %s: %s\n", text, err);
        return -1;
    }
    return run_filter_match(&f, r);
}

static void test_terms(void)
{
    RunSummary a = run(1, "attention", "arch=attention layers=2 seed=1", "good base");
    RunSummary m = run(2, "mixer", "arch=mixer layers=4 seed=1", "");
    snprintf(m.sweep, sizeof m.sweep, "grid");
    m.sweep_id = 7;
    snprintf(m.note, sizeof m.note, "lr too high");
    m.starred = 1;
    m.status = RUN_FAILED;
    CHECK(holds("", &a) == 1 && holds("   ", &m) == 1, "empty");
    CHECK(holds("att", &a) == 1 && holds("att", &m) == 0, "word in arch");
    CHECK(holds("STORIES", &a) == 1 && holds("failed", &m) == 1 && holds("grid", &m) == 1, "data, status, sweep");
    CHECK(holds("good", &a) == 1 && holds("high", &m) == 1 && holds("high", &a) == 0, "tags and note are text");
    CHECK(holds("layers=2", &a) == 1 && holds("layers=2", &m) == 0 && holds("layers>2", &m) == 1, "coords");
    CHECK(holds("layers>=4", &m) == 1 && holds("layers<=3", &m) == 0 && holds("layers!=4", &m) == 0, "ops");
    CHECK(holds("layers>10", &a) == 0 && holds("layers<10", &a) == 1, "numbers, not text: 2 < 10");
    CHECK(holds("lr=3e-4", &a) == 1 && holds("lr<1e-3", &a) == 1, "config numbers as numbers");
    CHECK(holds("tie=TRUE", &a) == 1 && holds("hash_size=1000", &a) == 1, "config text, a JSON number");
    CHECK(holds("valid<4.15", &a) == 1 && holds("valid_loss<4.15", &m) == 0, "a field and its results name");
    CHECK(holds("test<9", &a) == 0 && holds("!test<9", &a) == 1, "a missing value fails the term, ! passes it");
    CHECK(holds("arch=mixer layers=4", &m) == 1 && holds("arch=mixer layers=2", &m) == 0, "terms are ANDed");
    CHECK(holds("tag:good", &a) == 1 && holds("#GOOD", &a) == 1 && holds("#goo", &a) == 0, "tags whole, no case");
    CHECK(holds("tag=base", &a) == 1 && holds("tag!=base", &a) == 0 && holds("!#base", &m) == 1, "tag = and !=");
    CHECK(holds("star=1", &m) == 1 && holds("star=yes", &a) == 0 && holds("starred=no", &a) == 1, "star");
    CHECK(holds("sweep=7", &m) == 1 && holds("sweep=grid", &m) == 1 && holds("sweep=7", &a) == 0, "sweep id or name");
    CHECK(holds("status=failed", &m) == 1 && holds("!mixer", &a) == 1 && holds("id>1", &m) == 1, "status, !, id");
    CHECK(holds("note=\"lr too high\"", &m) == 1 && holds("\"too high\"", &m) == 1, "quotes keep spaces");
    char value[64];
    CHECK(run_filter_value(&a, "layers", value, sizeof value) && !strcmp(value, "2"), "coordinate %s", value);
    CHECK(run_filter_value(&a, "lr", value, sizeof value) && !strcmp(value, "0.0003"), "config %s", value);
    CHECK(!run_filter_value(&a, "d_pair", value, sizeof value) && !value[0], "absent");

    RunFilter f;
    char err[ERR_LEN] = "";
    const char *bad[][2] = {{"layres=2", "'layres' is not a field"}, {"layers>", "no value"},
                            {"=2", "no key"},                        {"#", "names no tag"},
                            {"tag>a", "a tag is = or !="},           {"\"open", "quote is left open"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(run_filter_parse(bad[i][0], &f, err) != 0 && strstr(err, bad[i][1]), "%s: %s", bad[i][0], err);
    char many[400] = "";
    for (int i = 0; i < RUN_FILTER_MAX_TERMS + 1; i++) strcat(many, "a ");
    CHECK(run_filter_parse(many, &f, err) != 0 && strstr(err, "terms"), "%s", err);
}

static void test_select(void)
{
    char err[ERR_LEN] = "";
    Store *s = NULL;
    CHECK(store_open(db_path("select.db"), &s, err) == 0, "%s", err);
    if (!s) return;
    int64_t sweep = 0;
    CHECK(store_sweep_create(s, "grid", "layers=1,2,4", "[\"layers\"]", &sweep, err) == 0, "%s", err);
    int64_t ids[3];
    for (int i = 0; i < 3; i++) {
        RunInfo info = {.arch = i ? "mixer" : "attention", .task = "clm", .data = "builtin:stories",
                        .tokenizer = "word", .config_json = "{}", .d = 32, .layers = 1 << i, .heads = 2, .n_ctx = 16,
                        .vocab = 100};
        char coords[64];
        snprintf(coords, sizeof coords, "{\"layers\": \"%d\"}", 1 << i);
        CHECK(store_job_enqueue(s, &info, sweep, coords, 0, &ids[i], err) == 0, "%s", err);
        CHECK(store_run_set_status(s, ids[i], "done", err) == 0, "%s", err);
    }
    CHECK(store_run_tag(s, ids[2], "deep", 1, NULL, err) == 0, "%s", err);
    int64_t *got = NULL;
    int n = 0;
    CHECK(run_filter_select(s, "mixer layers>1", 0, &got, &n, err) == 0 && n == 2 && got[0] == ids[1], "%d %s", n, err);
    free(got);
    CHECK(run_filter_select(s, "#deep", 0, &got, &n, err) == 0 && n == 1 && got[0] == ids[2], "%d", n);
    free(got);
    CHECK(store_run_trash(s, ids[2], err) == 0, "%s", err);
    CHECK(run_filter_select(s, "#deep", 0, &got, &n, err) == 0 && n == 0 && !got, "the trash left out: %d", n);
    CHECK(run_filter_select(s, "#deep", 1, &got, &n, err) == 0 && n == 1 && got[0] == ids[2], "in the trash: %d", n);
    free(got);
    CHECK(run_filter_select(s, "nokey=1", 0, &got, &n, err) != 0 && strstr(err, "nokey"), "%s", err);
    store_close(s);
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    if (tmp_dir_make("filter")) return 1;
    RUN(test_terms);
    RUN(test_select);
    tmp_dir_remove();
    CHECK_EXIT();
}
