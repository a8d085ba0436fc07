/*
 * registry.c — the list of tasks (SPEC section 3).
 */
#include <stdio.h>
#include <string.h>

#include "engine/task.h"

extern const TaskOps task_clm;
extern const TaskOps task_mlm;
extern const TaskOps task_bidir;
extern const TaskOps task_autoencode;
extern const TaskOps task_complete;

static const TaskOps *const TASKS[] = {
    &task_clm, &task_mlm, &task_bidir, &task_autoencode, &task_complete,
};
#define N_TASKS ((int)(sizeof TASKS / sizeof TASKS[0]))

const TaskOps *task_find(const char *name)
{
    for (int i = 0; i < N_TASKS; i++)
        if (strcmp(TASKS[i]->name, name) == 0) return TASKS[i];
    return NULL;
}

void task_names(char *buf, int cap)
{
    int len = 0;
    buf[0] = 0;
    for (int i = 0; i < N_TASKS && len < cap; i++)
        len += snprintf(buf + len, cap - len, "%s%s", i ? " " : "", TASKS[i]->name);
}
