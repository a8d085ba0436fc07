/*
 * status.c — the names of run statuses (status.h); the store's CHECK
 * constraint on runs.status (db/migrations.c) lists the same names.
 */
#include "db/status.h"

#include <string.h>

static const char *const NAMES[RUN_STATUS_COUNT] = {
    [RUN_QUEUED] = "queued",   [RUN_RUNNING] = "running",   [RUN_PAUSED] = "paused",
    [RUN_INTERRUPTED] = "interrupted", [RUN_DONE] = "done", [RUN_FAILED] = "failed",
    [RUN_DIVERGED] = "diverged", [RUN_CANCELLED] = "cancelled", [RUN_PRUNED] = "pruned",
};

const char *run_status_name(RunStatus s)
{
    return s >= 0 && s < RUN_STATUS_COUNT ? NAMES[s] : "unknown";
}

RunStatus run_status_parse(const char *text)
{
    for (int i = 0; text && i < RUN_STATUS_COUNT; i++)
        if (!strcmp(text, NAMES[i])) return (RunStatus)i;
    return RUN_STATUS_COUNT;
}

int run_status_final(RunStatus s)
{
    return s == RUN_DONE || s == RUN_FAILED || s == RUN_DIVERGED || s == RUN_CANCELLED || s == RUN_PRUNED;
}

int run_status_error(RunStatus s)
{
    return s == RUN_FAILED || s == RUN_DIVERGED;
}

RunStatus run_status_of_failure(FailClass f)
{
    return f == FAIL_DIVERGED ? RUN_DIVERGED : f == FAIL_ERROR ? RUN_FAILED : RUN_DONE;
}
