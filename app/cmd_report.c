/*
 * cmd_report.c — `mixbench report [PRESET ...] [--db FILE] [--md FILE]`:
 * the reproduction report of experiments/report.h, on the terminal, or as
 * Markdown into FILE.  Only argument parsing and printing live here.
 */
#include <stdio.h>
#include <string.h>

#include "app/cli.h"
#include "app/commands.h"
#include "engine/common.h"
#include "experiments/report.h"

enum { MAX_PRESETS = 64 };

int cmd_report(int argc, char **argv)
{
    const char *db_path = "mixbench.db", *md_path = NULL;
    const char *presets[MAX_PRESETS];
    int n_presets = 0;
    CliOpt opts[] = {{"db", 1, &db_path, NULL}, {"md", 1, &md_path, NULL}, {NULL, 0, NULL, NULL}};
    char err[ERR_LEN];
    if (cli_parse(argc, argv, opts, NULL, presets, MAX_PRESETS, &n_presets, err)) return cli_fail("report: %s", err);
    Store *st;
    if (store_open_existing(db_path, &st, err)) return cli_fail("%s", err);
    StrBuf out;
    sb_init(&out);
    int rc = report_build(st, presets, n_presets, md_path != NULL, &out, err);
    store_close(st);
    if (rc) {
        sb_free(&out);
        return cli_fail("%s", err);
    }
    if (md_path) {
        FILE *f = fopen(md_path, "w");
        if (!f) {
            sb_free(&out);
            return cli_fail("report: cannot write %s", md_path);
        }
        int bad = fwrite(out.data, 1, out.len, f) != out.len;
        bad |= fclose(f) != 0;
        sb_free(&out);
        if (bad) return cli_fail("report: writing %s failed", md_path);
        printf("report written to %s\n", md_path);
        return 0;
    }
    fputs(out.data, stdout);
    sb_free(&out);
    return 0;
}
