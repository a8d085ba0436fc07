/*
 * common.c — the error helper and the clock declared in common.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "engine/common.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

int err_set(char *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, ERR_LEN, fmt, ap);
        va_end(ap);
    }
    return -1;
}

double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

const char *dl_bind(void *lib, const DlSym *syms, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        *syms[i].slot = dlsym(lib, syms[i].name);
        if (!*syms[i].slot) return syms[i].name;
    }
    return NULL;
}
