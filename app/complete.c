/*
 * complete.c — `mixbench complete WHAT`, the word lists the bash completion
 * (share/bash-completion/completions/mixbench) asks the binary for, one a
 * line, so that it always offers what this build knows:
 *   commands       the commands of the table, and help
 *   presets        every preset, and PRESET@paper for those with the
 *                  paper's own size
 *   keys           every model and training key, then the sweep's own
 *                  words (repeats, variant, search, trials, ...), as KEY=
 *   archs, tasks   the architectures (engine/mixers/registry.c) and tasks
 *   options [CMD]  the options CMD's usage and text name (--db, -o, ...);
 *                  without CMD the workbench's, with --help and --version
 * Not in the table of app/commands.c (no one types it, `mixbench help`
 * does not list it); main.c sends `complete` here.
 */
#include <stdio.h>
#include <string.h>

#include "app/cli.h"
#include "app/commands.h"
#include "engine/config.h"
#include "engine/mixer.h"
#include "engine/task.h"
#include "experiments/search.h"
#include "experiments/sweep.h"

/* Prints each option word of text ("--name" or a one-letter "-n" that
   starts a word) once: seen holds those printed, space-separated. */
static void print_options(const char *text, char *seen, size_t cap)
{
    for (const char *p = text; (p = strchr(p, '-')) != NULL;) {
        const char *start = p;
        int word_start = p == text || strchr(" [(|\n", p[-1]);
        size_t n = p[1] == '-' ? 2 : 1;
        while (p[n] >= 'a' && p[n] <= 'z') n++;
        while (p[n] == '-' && p[n + 1] >= 'a' && p[n + 1] <= 'z')
            for (n++; p[n] >= 'a' && p[n] <= 'z'; n++) {}
        p += n;
        int letters = (int)n - (start[1] == '-' ? 2 : 1);
        if (!word_start || letters < 1 || (start[1] != '-' && letters != 1)) continue;
        char word[64];
        if (n + 2 > sizeof word) continue;
        snprintf(word, sizeof word, " %.*s ", (int)n, start);
        if (strstr(seen, word)) continue;
        if (strlen(seen) + n + 2 < cap) strcat(seen, word + 1);
        printf("%.*s\n", (int)n, start);
    }
}

int cmd_complete(int argc, char **argv)
{
    const char *what = argc > 0 ? argv[0] : "";
    if (!strcmp(what, "commands") && argc == 1) {
        for (int i = 0; i < command_count(); i++) printf("%s\n", command_at(i)->name);
        printf("help\n");
    } else if (!strcmp(what, "presets") && argc == 1) {
        for (int i = 0; i < preset_count(); i++) {
            printf("%s\n", preset_at(i)->name);
            if (preset_at(i)->paper_spec) printf("%s@paper\n", preset_at(i)->name);
        }
    } else if (!strcmp(what, "keys") && argc == 1) {
        for (int i = 0; i < config_key_count(); i++) printf("%s=\n", config_key_name(i));
        printf("repeats=\nvariant=\n");
        for (int i = 0; search_word(i); i++) printf("%s=\n", search_word(i));
    } else if ((!strcmp(what, "archs") || !strcmp(what, "tasks")) && argc == 1) {
        char names[1024];
        if (what[0] == 'a') mixer_names(names, sizeof names);
        else task_names(names, (int)sizeof names);
        for (char *w = strtok(names, " "); w; w = strtok(NULL, " ")) printf("%s\n", w);
    } else if (!strcmp(what, "options") && argc <= 2) {
        char seen[4096] = " ";
        if (argc == 1) {
            print_options(WORKBENCH_TEXT, seen, sizeof seen);
            printf("--help\n--version\n");
            return 0;
        }
        const Command *c = command_find(argv[1]);
        if (!c) return cli_fail("complete: unknown command '%s' (mixbench help lists them)", argv[1]);
        print_options(c->usage, seen, sizeof seen);
        print_options(c->text, seen, sizeof seen);
        if (!strstr(seen, " --help ")) printf("--help\n");
    } else if (!strcmp(what, "commands") || !strcmp(what, "presets") || !strcmp(what, "keys") ||
               !strcmp(what, "archs") || !strcmp(what, "tasks") || !strcmp(what, "options")) {
        return cli_fail("complete: too many words after '%s'", what);
    } else {
        return cli_fail("complete: expected commands, presets, keys, archs, tasks or options [COMMAND], not '%s'",
                        what);
    }
    return 0;
}
