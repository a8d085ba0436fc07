/*
 * common.h — small things every module of mixbench shares: the error
 * convention and a few helpers.
 *
 * Error convention: a function that can fail returns 0 on success and -1 on
 * failure, after writing one human-readable line (no trailing newline) into
 * the caller's `char err[ERR_LEN]`.  Nothing below app/ prints or exits.
 */
#ifndef MIXBENCH_COMMON_H
#define MIXBENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>

#define ERR_LEN 512

/* Formats a message into err (if err is not NULL) and returns -1. */
int err_set(char *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Monotonic wall clock in seconds. */
double now_seconds(void);

/* One function of a library opened with dlopen, and where its address goes. */
typedef struct {
    const char *name;
    void **slot;
} DlSym;

/* Looks up syms[0..n) in lib with dlsym; returns NULL when every one was
   found, else the name of the first missing one. */
const char *dl_bind(void *lib, const DlSym *syms, size_t n);

#define MB_MIN(a, b) ((a) < (b) ? (a) : (b))
#define MB_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif
