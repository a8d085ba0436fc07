/*
 * cli.c — argument parsing and the error line shared by the subcommands.
 */
#include "app/cli.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engine/common.h"

int cli_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mixbench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

static const CliOpt *find_opt(const CliOpt *opts, const char *name, size_t len)
{
    for (; opts && opts->name; opts++)
        if (strlen(opts->name) == len && strncmp(opts->name, name, len) == 0) return opts;
    return NULL;
}

static const CliOpt *find_alias(const CliOpt *opts, const char *alias)
{
    for (; opts && opts->name; opts++)
        if (opts->alias && !strcmp(opts->alias, alias)) return opts;
    return NULL;
}

int cli_parse(int argc, char **argv, const CliOpt *opts, Config *c, const char **positional,
              int max_pos, int *n_pos, char *err)
{
    if (n_pos) *n_pos = 0;
    /* --variant NAME first, so that the user's keys override its bundle */
    for (int i = 0; c && i < argc; i++) {
        const char *v = NULL;
        if (!strcmp(argv[i], "--variant")) {
            if (i + 1 >= argc) return err_set(err, "option --variant needs a value");
            v = argv[i + 1];
        } else if (!strncmp(argv[i], "--variant=", 10)) {
            v = argv[i] + 10;
        }
        if (v && config_apply_variant(c, v, err)) return -1;
    }
    for (int i = 0; i < argc; i++) {
        if (c && !strcmp(argv[i], "--variant")) {
            i++;
            continue;
        }
        if (c && !strncmp(argv[i], "--variant=", 10)) continue;
        const char *a = argv[i];
        const CliOpt *short_opt = a[0] == '-' && a[1] && a[1] != '-' ? find_alias(opts, a + 1) : NULL;
        if (short_opt) {
            if (!short_opt->takes_value) {
                *short_opt->value = "1";
                continue;
            }
            if (i + 1 >= argc || !argv[i + 1][0]) return err_set(err, "option %s needs a value", a);
            *short_opt->value = argv[++i];
            continue;
        }
        if (a[0] == '-' && a[1] == '-' && a[2]) {
            const char *name = a + 2, *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            const CliOpt *o = find_opt(opts, name, len);
            char key[64];
            if (len >= sizeof key) return err_set(err, "option %s is too long", a);
            memcpy(key, name, len);
            key[len] = 0;
            const char *value = eq ? eq + 1 : NULL;
            if (o && !o->takes_value) {
                if (eq) return err_set(err, "option --%s takes no value", key);
                *o->value = "1";
                continue;
            }
            if (!o && !(c && config_is_key(key)))
                return err_set(err, "unknown option --%s", key);
            if (!value) {
                if (i + 1 >= argc) return err_set(err, "option --%s needs a value", key);
                value = argv[++i];
            }
            if (!*value) return err_set(err, "option --%s needs a value", key);
            if (o) *o->value = value;
            else if (config_set(c, key, value, err)) return -1;
        } else if (c && strchr(a, '=') && a[0] != '=') {
            if (config_set_arg(c, a, err)) return -1;
        } else if (a[0] == '-' && a[1]) {
            return err_set(err, "unknown option %s", a);
        } else {
            if (!positional || !n_pos || *n_pos >= max_pos) return err_set(err, "unexpected argument '%s'", a);
            positional[(*n_pos)++] = a;
        }
    }
    return 0;
}

int cli_loss_choice(const char *cmd, const char *text, int *best)
{
    assert(cmd && best);
    *best = text && !strcmp(text, "best");
    if (!text || *best || !strcmp(text, "last")) return 0;
    return cli_fail("%s: --loss %s: one of best (the lowest valid evaluation and its step) and last (the final one)",
                    cmd, text);
}
