/*
 * cmd_organise.c — keeping the store tidy (db/organise.h):
 *   mixbench rename RUN|sweep:S NEW            a run's or a sweep's name
 *   mixbench tag RUN... TAG / untag RUN... TAG
 *   mixbench note RUN|sweep:S TEXT             free text ("" clears it)
 *   mixbench star RUN... / unstar RUN...       starred runs refuse rm
 *   mixbench rm RUN...|sweep:S... [--dry-run]  to the trash
 *   mixbench restore RUN...|sweep:S...         out of the trash
 *   mixbench purge [--dry-run]                 empties the trash for good, checkpoint files too
 * RUN is a run id or a name one run has (store_run_lookup, the rule of
 * every command that takes a run); every command but rename and purge also
 * takes --where EXPR (experiments/run_filter.h) in place of the runs; all
 * take --db FILE.  Every RUN and sweep:S is looked up before anything
 * changes: one that names none refuses the whole command in one line
 * (`rm 2; rm 3` trashes nothing).  Then each run acted on gets one line; a
 * refused one (starred, running, ...) gets one line on stderr, the others
 * go ahead, and the exit code is 1.  What a user typed is printed through
 * text_shown (engine/text.h).
 *
 * Not for: choosing runs by filter (run_filter.c) or the SQL (db/).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "app/commands.h"
#include "db/ckpt_gc.h"
#include "db/ckpt_owner.h"
#include "db/organise.h"
#include "db/runs_read.h"
#include "db/store.h"
#include "engine/common.h"
#include "engine/io/json.h"
#include "engine/text.h"
#include "experiments/format.h"
#include "experiments/run_filter.h"

#define MAX_WORDS 1024

/* What a command does to one run or sweep; arg is its TAG, NEW or TEXT. */
typedef int (*RunAction)(Store *s, int64_t id, const char *arg, int dry, char *line, size_t cap, char *err);

typedef struct {
    const char *name;
    const char *usage;
    int trailing;            /* words after the targets: 0, 1 (TAG, NEW) or -1 (TEXT: the rest) */
    int one_target;          /* rename, note: exactly one target without --where */
    int in_trash;            /* restore: the targets are in the trash */
    RunAction on_run, on_sweep;   /* on_sweep NULL: sweep:S is refused */
} Organise;

/* "run 3 (attention clm done)" of a run not in the trash. */
static void describe(Store *s, int64_t id, char *out, size_t cap)
{
    RunSummary r;
    int found = 0;
    char err[ERR_LEN];
    char name[TEXT_SHOWN_CAP(sizeof r.name)];
    if (runs_read_one(s, id, &r, &found, err) == 0 && found)
        snprintf(out, cap, "run %lld (%s %s %s%s%s)", (long long)id, r.arch, r.task, run_status_name(r.status),
                 r.name[0] ? ", " : "", text_shown(r.name, name, sizeof name));
    else snprintf(out, cap, "run %lld", (long long)id);
}

/* ---- the actions ---------------------------------------------------------- */

static int do_rename(Store *s, int64_t id, const char *arg, int dry, char *line, size_t cap, char *err)
{
    (void)dry;
    if (arg[0]) snprintf(line, cap, "run %lld renamed %s", (long long)id, arg);
    else snprintf(line, cap, "run %lld: name cleared", (long long)id);
    return store_run_rename(s, id, arg, err);
}

static int do_rename_sweep(Store *s, int64_t id, const char *arg, int dry, char *line, size_t cap, char *err)
{
    (void)dry;
    snprintf(line, cap, "sweep %lld renamed %s", (long long)id, arg);
    return store_sweep_rename(s, id, arg, err);
}

static int tag_action(Store *s, int64_t id, const char *arg, int add, char *line, size_t cap, char *err)
{
    int changed = 0;
    if (store_run_tag(s, id, arg, add, &changed, err)) return -1;
    if (add) snprintf(line, cap, "run %lld %s %s", (long long)id, changed ? "tagged" : "already had tag", arg);
    else snprintf(line, cap, "run %lld %s %s", (long long)id, changed ? "untagged" : "had no tag", arg);
    return 0;
}

static int do_tag(Store *s, int64_t id, const char *arg, int dry, char *line, size_t cap, char *err)
{
    (void)dry;
    return tag_action(s, id, arg, 1, line, cap, err);
}

static int do_untag(Store *s, int64_t id, const char *arg, int dry, char *line, size_t cap, char *err)
{
    (void)dry;
    return tag_action(s, id, arg, 0, line, cap, err);
}

static int do_note(Store *s, int64_t id, const char *arg, int dry, char *line, size_t cap, char *err)
{
    (void)dry;
    snprintf(line, cap, "run %lld: note %s", (long long)id, arg[0] ? "set" : "cleared");
    return store_run_note(s, id, arg, err);
}

static int do_note_sweep(Store *s, int64_t id, const char *arg, int dry, char *line, size_t cap, char *err)
{
    (void)dry;
    snprintf(line, cap, "sweep %lld: note %s", (long long)id, arg[0] ? "set" : "cleared");
    return store_sweep_note(s, id, arg, err);
}

static int do_star(Store *s, int64_t id, const char *arg, int dry, char *line, size_t cap, char *err)
{
    (void)arg, (void)dry;
    snprintf(line, cap, "run %lld starred (protected: rm refuses it)", (long long)id);
    return store_run_star(s, id, 1, err);
}

static int do_unstar(Store *s, int64_t id, const char *arg, int dry, char *line, size_t cap, char *err)
{
    (void)arg, (void)dry;
    snprintf(line, cap, "run %lld unstarred", (long long)id);
    return store_run_star(s, id, 0, err);
}

static int do_rm(Store *s, int64_t id, const char *arg, int dry, char *line, size_t cap, char *err)
{
    (void)arg;
    char what[256];
    describe(s, id, what, sizeof what);
    snprintf(line, cap, "%s%s to the trash", dry ? "would move " : "", what);
    return dry ? 0 : store_run_trash(s, id, err);
}

static int do_rm_sweep(Store *s, int64_t id, const char *arg, int dry, char *line, size_t cap, char *err)
{
    (void)arg;
    int n = 0;
    if (dry) {
        snprintf(line, cap, "would move sweep %lld and its runs to the trash", (long long)id);
        return 0;
    }
    if (store_sweep_trash(s, id, &n, err)) return -1;
    snprintf(line, cap, "sweep %lld and %d run%s to the trash", (long long)id, n, n == 1 ? "" : "s");
    return 0;
}

static int do_restore(Store *s, int64_t id, const char *arg, int dry, char *line, size_t cap, char *err)
{
    (void)arg, (void)dry;
    if (store_run_restore(s, id, err)) return -1;
    describe(s, id, line, cap);
    size_t len = strlen(line);
    snprintf(line + len, cap - len, " restored");
    return 0;
}

static int do_restore_sweep(Store *s, int64_t id, const char *arg, int dry, char *line, size_t cap, char *err)
{
    (void)arg, (void)dry;
    int n = 0;
    if (store_sweep_restore(s, id, &n, err)) return -1;
    snprintf(line, cap, "sweep %lld restored with %d run%s", (long long)id, n, n == 1 ? "" : "s");
    return 0;
}

static const Organise COMMANDS[] = {
    {"rename", "rename RUN|sweep:S NEW", 1, 1, 0, do_rename, do_rename_sweep},
    {"tag", "tag RUN... TAG | tag --where EXPR TAG", 1, 0, 0, do_tag, NULL},
    {"untag", "untag RUN... TAG | untag --where EXPR TAG", 1, 0, 0, do_untag, NULL},
    {"note", "note RUN|sweep:S TEXT | note --where EXPR TEXT   (TEXT \"\" clears it)", -1, 1, 0, do_note,
     do_note_sweep},
    {"star", "star RUN... | star --where EXPR", 0, 0, 0, do_star, NULL},
    {"unstar", "unstar RUN... | unstar --where EXPR", 0, 0, 0, do_unstar, NULL},
    {"rm", "rm RUN...|sweep:S... [--dry-run] | rm --where EXPR [--dry-run]", 0, 0, 0, do_rm, do_rm_sweep},
    {"restore", "restore RUN...|sweep:S... | restore --where EXPR   (EXPR among the runs in the trash)", 0, 0, 1,
     do_restore, do_restore_sweep},
};

/* ---- running one ------------------------------------------------------------ */

/* One target: a run, or a sweep (sweep:S). */
typedef struct {
    int64_t id;
    int is_sweep;
} Target;

/* The one line of a refusal, err shown (engine/text.h); returns 1. */
static int refuse(const Organise *o, const char *err)
{
    char shown[TEXT_SHOWN_CAP(ERR_LEN)];
    return cli_fail("%s: %s", o->name, text_shown(err, shown, sizeof shown));
}

/* The run or sweep:S that word names; -1 with the line in err. */
static int resolve(Store *s, const Organise *o, const char *word, Target *t, char *err)
{
    t->is_sweep = !strncmp(word, "sweep:", 6);
    if (t->is_sweep && !o->on_sweep)
        return err_set(err, "%s takes runs, not sweeps (`--where sweep=S` chooses a sweep's runs)", o->name);
    return t->is_sweep ? store_sweep_lookup(s, word + 6, o->in_trash, &t->id, err)
                       : store_run_lookup(s, word, o->in_trash, &t->id, err);
}

/* The target acted on; 0, or 1 with the line printed. */
static int act_on(Store *s, const Organise *o, const Target *t, const char *arg, int dry)
{
    char err[ERR_LEN] = "", line[512] = "";
    if ((t->is_sweep ? o->on_sweep : o->on_run)(s, t->id, arg, dry, line, sizeof line, err)) return refuse(o, err);
    char shown[TEXT_SHOWN_CAP(sizeof line)];
    puts(text_shown(line, shown, sizeof shown));
    return 0;
}

/* How many of the words name runs (the rest are TAG, NEW or TEXT, joined
   into *arg, malloc'd: as long as they are); -1 with the line printed
   when they do not fit the command. */
static int split_words(const Organise *o, const char **words, int n, int where, char **arg)
{
    int n_targets = where ? 0 : o->trailing > 0 ? n - o->trailing : o->trailing < 0 ? 1 : n;
    int n_arg = n - n_targets;
    *arg = NULL;
    if (where && o->trailing == 0 && n) {
        cli_fail("%s: --where chooses the runs: no RUN with it", o->name);
        return -1;
    }
    if (n_targets < (where ? 0 : 1) || (o->trailing > 0 && n_arg != o->trailing) || (o->trailing < 0 && n_arg < 1) ||
        (o->one_target && !where && n_targets != 1)) {
        cli_fail("%s: usage: mixbench %s", o->name, o->usage);
        return -1;
    }
    size_t cap = 1;
    for (int i = n_targets; i < n; i++) cap += strlen(words[i]) + 1;
    if (!(*arg = malloc(cap))) {
        cli_fail("%s: out of memory", o->name);
        return -1;
    }
    size_t len = 0;
    (*arg)[0] = 0;
    for (int i = n_targets; i < n; i++)
        len += (size_t)snprintf(*arg + len, cap - len, "%s%s", i > n_targets ? " " : "", words[i]);
    return n_targets;
}

/* The targets: the runs --where chooses, or every word looked up first (the
   first that names none refuses the command); *out malloc'd. */
static int targets_of(Store *s, const Organise *o, const char *where, const char **words, int n, Target **out,
                      int *n_out)
{
    char err[ERR_LEN];
    *out = NULL;
    *n_out = 0;
    if (where) {
        int64_t *ids = NULL;
        int n_ids = 0;
        if (run_filter_select(s, where, o->in_trash, &ids, &n_ids, err)) return refuse(o, err);
        if (!n_ids) printf("no run %smatches %s\n", o->in_trash ? "in the trash " : "", where);
        *out = calloc((size_t)n_ids + 1, sizeof **out);
        for (int i = 0; *out && i < n_ids; i++) (*out)[i].id = ids[i];
        free(ids);
        *n_out = *out ? n_ids : 0;
        return *out ? 0 : cli_fail("%s: out of memory", o->name);
    }
    if (!(*out = calloc((size_t)n + 1, sizeof **out))) return cli_fail("%s: out of memory", o->name);
    for (int i = 0; i < n; i++)
        if (resolve(s, o, words[i], &(*out)[i], err)) {
            char line[ERR_LEN + 64];
            snprintf(line, sizeof line, "%s; nothing done", err);
            free(*out);
            *out = NULL;
            return refuse(o, line);
        }
    *n_out = n;
    return 0;
}

static int run_organise(const Organise *o, int argc, char **argv)
{
    const char *db = "mixbench.db", *where = NULL, *dry = NULL;
    CliOpt opts[] = {{"db", 1, &db, NULL}, {"where", 1, &where, NULL}, {"dry-run", 0, &dry, NULL}, {NULL, 0, NULL, NULL}};
    const char *words[MAX_WORDS];
    int n = 0;
    char err[ERR_LEN];
    if (cli_parse(argc, argv, opts, NULL, words, MAX_WORDS, &n, err))
        return cli_fail("%s: %s (try `mixbench %s --help`)", o->name, err, o->name);
    if (dry && o->on_run != do_rm) return cli_fail("%s: --dry-run is for rm and purge", o->name);
    if (where && o->one_target && o->on_run == do_rename) return cli_fail("rename: one run at a time, no --where");
    char *arg = NULL;
    int n_targets = split_words(o, words, n, where != NULL, &arg);
    if (n_targets < 0) return 1;
    Store *s;
    if (store_open_existing(db, &s, err)) {
        free(arg);
        return cli_fail("%s", err);
    }
    Target *targets = NULL;
    int n_found = 0, failures = targets_of(s, o, where, words, n_targets, &targets, &n_found);
    for (int i = 0; i < n_found; i++) failures += act_on(s, o, &targets[i], arg, dry != NULL);
    free(targets);
    free(arg);
    store_close(s);
    return failures ? 1 : 0;
}

static int by_name(const char *name, int argc, char **argv)
{
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (!strcmp(COMMANDS[i].name, name)) return run_organise(&COMMANDS[i], argc, argv);
    return cli_fail("%s: not an organising command", name);
}

int cmd_rename(int argc, char **argv) { return by_name("rename", argc, argv); }
int cmd_tag(int argc, char **argv) { return by_name("tag", argc, argv); }
int cmd_untag(int argc, char **argv) { return by_name("untag", argc, argv); }
int cmd_note(int argc, char **argv) { return by_name("note", argc, argv); }
int cmd_star(int argc, char **argv) { return by_name("star", argc, argv); }
int cmd_unstar(int argc, char **argv) { return by_name("unstar", argc, argv); }
int cmd_rm(int argc, char **argv) { return by_name("rm", argc, argv); }
int cmd_restore(int argc, char **argv) { return by_name("restore", argc, argv); }

/* ---- purge ---------------------------------------------------------------- */

int cmd_purge(int argc, char **argv)
{
    const char *db = "mixbench.db", *dry = NULL;
    CliOpt opts[] = {{"db", 1, &db, NULL}, {"dry-run", 0, &dry, NULL}, {NULL, 0, NULL, NULL}};
    char err[ERR_LEN];
    if (cli_parse(argc, argv, opts, NULL, NULL, 0, NULL, err)) return cli_fail("purge: %s", err);
    Store *s;
    if (store_open_existing(db, &s, err)) return cli_fail("%s", err);
    PurgePlan plan;
    int rc = store_purge_plan(s, &plan, err);
    if (rc == 0 && !dry) rc = store_purge_apply(s, &plan, err);
    if (rc) {
        store_close(s);
        return cli_fail("purge: %s", err);
    }
    char size[32];
    for (int i = 0; i < plan.files.n; i++) {
        fmt_bytes(plan.files.items[i].bytes, size, sizeof size);
        printf("%s %s (%s, run %lld)\n", dry ? "would remove" : "removed", plan.files.items[i].path, size,
               (long long)plan.files.items[i].run_id);
    }
    fmt_bytes(plan.files.bytes, size, sizeof size);
    printf("%s %d run%s and %d sweep%s of the trash for good, and %d checkpoint file%s (%s) of %s\n",
           dry ? "would delete" : "deleted", plan.n_runs, plan.n_runs == 1 ? "" : "s", plan.n_sweeps,
           plan.n_sweeps == 1 ? "" : "s", plan.files.n, plan.files.n == 1 ? "" : "s", size, store_file_name(s));
    if (plan.files.kept_outside)
        printf("kept %d file%s outside the store's folder that name no store (they may be another store's)\n",
               plan.files.kept_outside, plan.files.kept_outside == 1 ? "" : "s");
    purge_plan_free(&plan);
    store_close(s);
    return 0;
}
