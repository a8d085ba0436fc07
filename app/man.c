/*
 * man.c — the manual page mixbench(1), written in troff by `mixbench help
 * --man` from the same texts as `mixbench help` and `mixbench CMD --help`
 * (the table of app/commands.c), so the two never disagree; `make` writes
 * it to build/mixbench.1 and `make install` puts it in share/man/man1.
 * The help texts are laid out for a terminal already, so each command's
 * usage, options and example keep their lines (.nf); only what troff would
 * read as a request or an escape is escaped.
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "app/commands.h"

/* Text as troff lines: a backslash is \e, a line that starts with '.' or
   '\'' starts with \& (else troff takes it for a request), and a '-' that
   starts a word or follows another '-' is \- (an option's dashes: a
   hyphen would not copy and paste as a minus). */
static void roff_text(FILE *f, const char *s)
{
    int line_start = 1;
    for (const char *p = s; *p; p++) {
        if (line_start && (*p == '.' || *p == '\'')) fputs("\\&", f);
        line_start = *p == '\n';
        if (*p == '\\') fputs("\\e", f);
        else if (*p == '-' && (p == s || strchr(" \t\n[(|=-", p[-1]))) fputs("\\-", f);
        else fputc(*p, f);
    }
    if (!line_start) fputc('\n', f);
}

/* Lines kept as they are (no filling, no adjusting), indented; trim: each
   without its leading spaces (a usage's second line is aligned for
   "usage: " in `--help`). */
static void roff_verbatim(FILE *f, const char *s, int trim)
{
    fputs(".RS 4\n.nf\n", f);
    if (!trim) roff_text(f, s);
    for (const char *line = s; trim && *line;) {
        while (*line == ' ') line++;
        size_t n = strcspn(line, "\n");
        char buf[1024];
        snprintf(buf, sizeof buf, "%.*s", (int)n, line);
        roff_text(f, buf);
        line += n + (line[n] == '\n');
    }
    fputs(".fi\n.RE\n", f);
}

static const char DESCRIPTION[] =
    "A terminal workbench for training and comparing language-model architectures that replace\n"
    "self-attention (attention, the Dispatcher, PairConnect, masked mixers, FFT token mixing,\n"
    "prefix-sum and learned causal convolution models) on five tasks.  Without a command it\n"
    "opens the workbench: an ncurses program whose screens queue sweeps, show live loss curves\n"
    "while a multi-threaded engine trains them, compare runs and judge each paper's claims.\n"
    "Every run, metric, evaluation and checkpoint lives in one SQLite file, the store.\n"
    "The commands below do the same from the shell.";

static const char FILES[] = ".TP\n"
                            ".I mixbench.db\n"
                            "The store (--db FILE names another): SQLite in WAL mode, with\n"
                            ".IR mixbench.db-wal \" and \" mixbench.db-shm\n"
                            "beside it while it is open.  Its tables and views: docs/store.md.\n"
                            ".TP\n"
                            ".I mixbench.db.ckpt/\n"
                            "The store's checkpoints (NAME.ckpt/ beside NAME.db), safetensors files.\n"
                            ".TP\n"
                            ".I $XDG_CACHE_HOME/mixbench/\n"
                            "Learned BPE merges (default ~/.cache/mixbench/).\n";

static const char ENVIRONMENT[] =
    ".TP\n"
    ".B MIXBENCH_DATA\n"
    "The folder of the real corpora (PTB, WikiText-2, tiny shakespeare) the presets name as\n"
    "$MIXBENCH_DATA (default ../shared/data).\n"
    ".TP\n"
    ".B MIXBENCH_MEMORY_LIMIT\n"
    "A cap in bytes on the memory the jobs of this host may take together (below the machine's).\n"
    ".TP\n"
    ".B MIXBENCH_GFLOPS\n"
    "The GFLOP/s a thread is assumed to reach when a sweep's time is estimated before any run\n"
    "was measured (default 40).\n"
    ".TP\n"
    ".B MIXBENCH_ALLREDUCE\n"
    "How ranks sum gradients under mpirun: overlap (default), mpi or ring (docs/mpi.md).\n"
    ".TP\n"
    ".B MIXBENCH_UI_FRESH\n"
    "Set: the workbench opens as --fresh does.\n"
    ".TP\n"
    ".B NO_COLOR\n"
    "Set: no colours, in the workbench or in the commands' output.\n";

static const char SEE_ALSO[] = ".BR sqlite3 (1),\n"
                               ".BR mpirun (1).\n"
                               "The manual: README.md and docs/*.md of the source tree (docs/commands.md\n"
                               "for the commands, docs/store.md for the store's schema).\n";

void commands_man(FILE *f)
{
    assert(f);
    fprintf(f, ".TH MIXBENCH 1 \"\" \"mixbench %s\" \"User Commands\"\n", mixbench_version());
    /* ragged right, no hyphenation: option lists read better so */
    fputs(".ad l\n.nh\n", f);
    fputs(".SH NAME\n"
          "mixbench \\- train and compare language-model architectures that replace attention\n"
          ".SH SYNOPSIS\n"
          ".nf\n",
          f);
    roff_text(f, WORKBENCH_USAGE);
    roff_text(f, "mixbench COMMAND [options] [key=value ...]\n"
                 "mixbench COMMAND --help\n"
                 "mixbench help [COMMAND]\n"
                 "mixbench --version");
    fputs(".fi\n.SH DESCRIPTION\n", f);
    roff_text(f, DESCRIPTION);
    fputs(".PP\nThe workbench's options:\n", f);
    roff_verbatim(f, WORKBENCH_TEXT, 0);
    fputs(".PP\n", f);
    roff_verbatim(f, COMMANDS_NOTES, 1);
    fputs(".PP\n.B \\-\\-version\n(or\n.BR \\-V )\nprints the version.\n"
          ".SH COMMANDS\n",
          f);
    for (int i = 0; i < command_count(); i++) {
        const Command *c = command_at(i);
        fprintf(f, ".SS %s\n", c->name);
        roff_text(f, c->summary);
        fputs(".PP\n", f);
        roff_verbatim(f, c->usage, 1);
        fputs(".PP\n", f);
        roff_verbatim(f, c->text, 0);
        fputs(".PP\nExample:\n", f);
        roff_verbatim(f, c->example, 0);
    }
    fputs(".SH EXIT STATUS\n"
          "0 when the command did what it was asked; otherwise not 0, with one line on stderr that\n"
          "says why (2: an unknown command).\n"
          ".SH FILES\n",
          f);
    fputs(FILES, f);
    fputs(".SH ENVIRONMENT\n", f);
    fputs(ENVIRONMENT, f);
    fputs(".SH SEE ALSO\n", f);
    fputs(SEE_ALSO, f);
}
