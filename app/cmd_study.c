/*
 * cmd_study.c — `mixbench study check FILE|NAME`, `study new NAME` and
 * `study list`: a study file (docs/studies.md) validated and read back in
 * words (its jobs, the time they take, each claim as the verdict
 * machinery will read it), a commented skeleton to start one, and the
 * studies known: built in and those in ./studies.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app/cli.h"
#include "app/commands.h"
#include "engine/common.h"
#include "experiments/estimate.h"
#include "experiments/format.h"
#include "experiments/study.h"
#include "experiments/study_files.h"
#include "experiments/sweep.h"

static int check(const char *what)
{
    char err[ERR_LEN];
    Study *s = NULL;
    const Preset *p = NULL;
    if (study_is_file(what)) {
        if (!(s = study_load(what, err))) return cli_fail("study check: %s", err);
        p = study_preset(s);
    } else {
        p = preset_find(what);
        if (!p) return cli_fail("study check: no study '%s' (a file ends in .yaml; `mixbench study list`)", what);
        /* a built-in study, read again in full (its jobs and claims checked) */
        if (!(s = study_parse(p->study_text, strlen(p->study_text), p->file, 1, err)))
            return cli_fail("study check: %s", err);
        p = study_preset(s);
    }
    Config base;
    config_defaults(&base);
    Sweep sw;
    char *argv[1] = {(char *)p->spec};
    if (sweep_parse(1, argv, &base, &sw, err)) {
        study_free(s);
        return cli_fail("study check: %s", err);
    }
    printf("study %s (%s): %s\n", p->name, p->file, p->source);
    if (p->what[0]) printf("  %s\n", p->what);
    printf("the grid: mixbench sweep %s\n", p->spec);
    if (p->paper_spec) printf("at the paper's size (%s@paper): mixbench sweep %s\n", p->name, p->paper_spec);
    if (p->until_conclusive) {
        if (p->max_hours > 0) printf("until conclusive: yes, at most %g CPU hours\n", p->max_hours);
        else printf("until conclusive: yes, no cap\n");
    }
    printf("%d job%s:\n", sw.n_jobs, sw.n_jobs == 1 ? "" : "s");
    for (int i = 0; i < sw.n_jobs; i++)
        printf("  %3d  %-11s %-10s %s\n", i + 1, sw.jobs[i].config.arch, sw.jobs[i].config.task, sw.jobs[i].coords);
    SpeedBook book = {0};
    SweepEstimate est = sweep_estimate(&sw, 2, &book);
    char when[32], basis[1024];
    fmt_duration(est.seconds, when, sizeof when);
    estimate_describe(&est, basis, sizeof basis);
    printf("estimated time: ~%s with 2 jobs at a time (%.3g PFLOP training + %.3g evaluation; tokens/s: %s)\n", when,
           est.train_flops / 1e15, est.eval_flops / 1e15, basis);
    printf("paper figures: %d\n", p->n_paper);
    for (int i = 0; i < p->n_paper; i++)
        printf("  %s %s = %g (%s%s%s)\n", p->paper[i].coords, p->paper[i].metric, p->paper[i].value, p->paper[i].note,
               p->paper[i].setting[0] ? ", " : "", p->paper[i].setting);
    printf("claims: %d\n", study_claim_count(s));
    for (int i = 0; i < study_claim_count(s); i++) {
        const ClaimRule *r = study_claim(s, i);
        char words[1024];
        study_claim_words(r, words, sizeof words);
        printf("  %d. %s\n     %s: %s\n", i + 1, r->claim, study_kind_name(r->kind), words);
    }
    sweep_free(&sw);
    study_free(s);
    return 0;
}

static int new_study(const char *name)
{
    char path[1100];
    if (study_is_file(name)) snprintf(path, sizeof path, "%s", name);
    else snprintf(path, sizeof path, "%s.yaml", name);
    /* the name inside is the file's base name without .yaml */
    char base[1100];
    const char *slash = strrchr(path, '/');
    snprintf(base, sizeof base, "%s", slash ? slash + 1 : path);
    *strrchr(base, '.') = 0;
    if (preset_find(base)) return cli_fail("study new: '%s' is a study already (`mixbench study list`)", base);
    struct stat stt;
    if (stat(path, &stt) == 0) return cli_fail("study new: %s exists; nothing written", path);
    char *text = study_skeleton(base), err[ERR_LEN];
    if (!text) return cli_fail("study new: out of memory");
    /* the skeleton must itself be a valid study */
    Study *s = study_parse(text, strlen(text), path, 0, err);
    if (!s) {
        free(text);
        return cli_fail("study new: %s", err);
    }
    study_free(s);
    FILE *f = fopen(path, "wx");
    int ok = f && fputs(text, f) >= 0;
    if (f && fclose(f)) ok = 0;
    free(text);
    if (!ok) return cli_fail("study new: cannot write %s: %s", path, strerror(errno));
    printf("wrote %s; edit it, then `mixbench study check %s` and `mixbench sweep %s`\n", path, path, path);
    return 0;
}

static int list(void)
{
    printf("%-22s %-6s %s\n", "study", "claims", "where, and what");
    for (int i = 0; i < preset_count(); i++) {
        const Preset *p = preset_at(i);
        int n = 0;
        for (int r = 0; r < study_rule_count(); r++) n += !strcmp(study_rule_at(r)->preset, p->name);
        printf("%-22s %-6d %s (built in): %s\n", p->name, n, p->file, p->source);
    }
    StudyFile *files;
    int n;
    char err[ERR_LEN];
    if (study_files_list("studies", &files, &n, err)) return cli_fail("study list: %s", err);
    for (int i = 0; i < n; i++) {
        const char *base = strrchr(files[i].path, '/') + 1;
        if (!files[i].study) {
            printf("%-22s %-6s %s: does not read: %s\n", base, "-", files[i].path, files[i].error);
            continue;
        }
        const Preset *p = study_preset(files[i].study);
        printf("%-22s %-6d %s: %s%s\n", p->name, study_claim_count(files[i].study), files[i].path, p->source,
               files[i].differs_builtin ? " (differs from the built-in study of that name)" : "");
    }
    study_files_free(files, n);
    return 0;
}

int cmd_study(int argc, char **argv)
{
    const char *pos[3];
    int n_pos = 0;
    const CliOpt opts[] = {{NULL, 0, NULL, NULL}};
    char err[ERR_LEN];
    if (cli_parse(argc, argv, opts, NULL, pos, 3, &n_pos, err)) return cli_fail("study: %s", err);
    if (n_pos == 0) return cli_fail("study: give check FILE, new NAME or list (mixbench help study)");
    if (!strcmp(pos[0], "check") && n_pos == 2) return check(pos[1]);
    if (!strcmp(pos[0], "new") && n_pos == 2) return new_study(pos[1]);
    if (!strcmp(pos[0], "list") && n_pos == 1) return list();
    return cli_fail("study: '%s%s%s' is not check FILE, new NAME or list", pos[0], n_pos > 1 ? " " : "",
                    n_pos > 1 ? pos[1] : "");
}
