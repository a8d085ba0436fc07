/*
 * test_memory.c — what the process may use (engine/memory.h), read from
 * fake /proc and /sys/fs/cgroup trees in a temp folder
 * (memory_cgroup_room, memory_available_in): cgroup v2 with a number and
 * with "max", nested cgroups (the tightest parent wins), the page cache
 * given back, the v1 memory controller with and without its huge "no
 * limit" value, and missing or garbled files, which fall back to the next
 * source and never crash.  (tests/experiments/test_memory.sh tests the refusals and
 * the worker against the real limits.)
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "engine/memory.h"
#include "tests/check.h"

static char root_[256];

/* root_/rel holds text (folders made as needed). */
static void put(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root_, rel);
    for (char *p = path + strlen(root_) + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(path, 0755);
            *p = '/';
        }
    FILE *f = fopen(path, "w");
    if (!f) {
        printf("  cannot write %s: %s\n", path, strerror(errno));
        return;
    }
    fputs(text, f);
    fclose(f);
}

/* A fresh, empty fake root. */
static void fresh_root(void)
{
    if (root_[0]) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", root_);
        if (system(cmd)) printf("  could not remove %s\n", root_);
    }
    snprintf(root_, sizeof root_, "%s/mixbench-memtest-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(root_)) printf("  mkdtemp: %s\n", strerror(errno));
}

/* A fresh fake root holding files (path, text, path, text, ..., NULL);
   returns memory_cgroup_room of it. */
static double tree_room(const char *const *files)
{
    fresh_root();
    for (; files[0]; files += 2) put(files[0], files[1]);
    return memory_cgroup_room(root_);
}

static int close_to(double a, double b) { return fabs(a - b) <= 1.0; }

/* memory_available_in's result is the cgroup's only when no RLIMIT_AS
   applies (MIXBENCH_MEMORY_LIMIT is unset by main). */
static int no_rlimit(void)
{
    struct rlimit rl;
    return getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur == RLIM_INFINITY;
}

/* memory_available_in(root_) is `bytes` from `source` (when no RLIMIT_AS
   applies; INFINITY for none). */
static void check_available(double bytes, const char *source)
{
    if (!no_rlimit()) return;
    const char *got = "";
    double avail = memory_available_in(root_, &got);
    CHECK((isinf(bytes) ? isinf(avail) : close_to(avail, bytes)) && !strcmp(got, source), "%.0f from %s", avail, got);
}

static void v2_number(void)
{
    const char *const files[] = {
        "proc/self/cgroup", "0::/user.slice/job.scope\n",
        "sys/fs/cgroup/user.slice/job.scope/memory.max", "1000000000\n",
        "sys/fs/cgroup/user.slice/job.scope/memory.current", "400000000\n",
        "sys/fs/cgroup/user.slice/job.scope/memory.stat", "anon 250000000\nfile 150000000\ninactive_file 100000000\n",
        "proc/meminfo", "MemTotal:       64000000 kB\nMemAvailable:   50000000 kB\n",
        NULL};
    double room = tree_room(files);
    CHECK(close_to(room, 7e8), "room %.0f, not 1e9 - (4e8 - 1e8)", room);
    check_available(7e8, "cgroup limit");
    /* the usage above the limit: no room, never negative */
    put("sys/fs/cgroup/user.slice/job.scope/memory.current", "3000000000\n");
    room = memory_cgroup_room(root_);
    CHECK(room == 0, "room %.0f, not 0", room);
}

static void v2_max(void)
{
    /* the root has no limit either (as on a real system) */
    const char *const files[] = {"proc/self/cgroup", "0::/a\n", "sys/fs/cgroup/a/memory.max", "max\n",
                                 "sys/fs/cgroup/a/memory.current", "123456789\n", "sys/fs/cgroup/memory.max", "max\n",
                                 "proc/meminfo", "MemAvailable:   2000000 kB\n", NULL};
    double room = tree_room(files);
    CHECK(room == -1, "'max' is no limit, got %.0f", room);
    check_available(2048e6, "MemAvailable");
}

static void v2_nested(void)
{
    /* the leaf says max, its parent is the tight one, the grandparent is loose */
    const char *const nested[] = {
        "proc/self/cgroup", "0::/outer/middle/leaf",   /* no newline at the end */
        "sys/fs/cgroup/outer/memory.max", "8000000000\n",
        "sys/fs/cgroup/outer/memory.current", "1000000000\n",
        "sys/fs/cgroup/outer/middle/memory.max", "2000000000\n",
        "sys/fs/cgroup/outer/middle/memory.current", "1500000000\n",
        "sys/fs/cgroup/outer/middle/leaf/memory.max", "max\n",
        "sys/fs/cgroup/outer/middle/leaf/memory.current", "1400000000\n",
        NULL};
    double room = tree_room(nested);
    CHECK(close_to(room, 5e8), "room %.0f, not the middle's 2e9 - 1.5e9", room);
    /* the leaf becomes the tightest */
    put("sys/fs/cgroup/outer/middle/leaf/memory.max", "1500000000\n");
    room = memory_cgroup_room(root_);
    CHECK(close_to(room, 1e8), "room %.0f, not the leaf's 1.5e9 - 1.4e9", room);
    /* a parent without files is skipped, not fatal */
    const char *const files[] = {"proc/self/cgroup", "0::/x/y\n", "sys/fs/cgroup/memory.max", "3000000000\n",
                                 "sys/fs/cgroup/memory.current", "1000000000\n", NULL};
    room = tree_room(files);
    CHECK(close_to(room, 2e9), "room %.0f, not the root's 3e9 - 1e9", room);
}

static void v1_controller(void)
{
    const char *const files[] = {
        "proc/self/cgroup", "12:cpu,cpuacct:/docker/abc\n5:memory:/docker/abc\n1:name=systemd:/docker/abc\n",
        "sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "9223372036854771712\n",
        "sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes", "100000000\n",
        "sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n",
        "sys/fs/cgroup/memory/memory.usage_in_bytes", "900000000\n",
        NULL};
    double room = tree_room(files);
    CHECK(room == -1, "v1's huge 'no limit' value is no limit, got %.0f", room);
    put("sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "2000000000\n");
    put("sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes", "500000000\n");
    put("sys/fs/cgroup/memory/docker/abc/memory.stat", "cache 1\ninactive_file 7\ntotal_inactive_file 100000000\n");
    room = memory_cgroup_room(root_);
    CHECK(close_to(room, 1.6e9), "room %.0f, not 2e9 - (5e8 - 1e8)", room);
}

static void missing_or_garbled(void)
{
    fresh_root();
    /* nothing at all: no limit anywhere */
    CHECK(memory_cgroup_room(root_) == -1, "an empty root has no cgroup limit");
    check_available(INFINITY, "no limit");
    /* garbage in every file */
    const char *garbage[] = {"", "banana\n", "nan\n", "inf\n", "-5\n", "max max\n", "\n\n\n", "1e400\n"};
    for (size_t i = 0; i < sizeof garbage / sizeof *garbage; i++) {
        fresh_root();
        put("proc/self/cgroup", "garbage\n::\n0:\n0::\n");
        put("sys/fs/cgroup/memory.max", garbage[i]);
        put("sys/fs/cgroup/memory.current", "1000\n");
        put("sys/fs/cgroup/memory.stat", "inactive_file banana\n");
        double room = memory_cgroup_room(root_);
        CHECK(room == -1, "memory.max '%s' gave %.0f", garbage[i], room);
        put("sys/fs/cgroup/memory.max", "5000\n");
        put("sys/fs/cgroup/memory.current", garbage[i]);
        room = memory_cgroup_room(root_);
        CHECK(room == -1, "memory.current '%s' gave %.0f", garbage[i], room);
        put("proc/meminfo", "MemAvailable: banana kB\n");
        const char *source = "";
        double avail = memory_available_in(root_, &source);
        CHECK(!isnan(avail) && avail >= 0, "garbled meminfo gave %.0f from %s", avail, source);
    }
    /* a cgroup line longer than the reader's buffer, a path that climbs */
    fresh_root();
    char line[5000];
    memset(line, 'a', sizeof line - 2);
    memcpy(line, "0::/", 4);
    line[sizeof line - 2] = '\n';
    line[sizeof line - 1] = 0;
    put("proc/self/cgroup", line);
    put("sys/fs/cgroup/memory.max", "4000\n");
    put("sys/fs/cgroup/memory.current", "1000\n");
    double room = memory_cgroup_room(root_);
    CHECK(room == -1 || close_to(room, 3000), "a long path gave %.0f", room);
    put("proc/self/cgroup", "0::/../../../etc\n");
    room = memory_cgroup_room(root_);
    CHECK(room == -1 || close_to(room, 3000), "a climbing path gave %.0f", room);
    /* a missing memory.current: that level is skipped */
    fresh_root();
    put("proc/self/cgroup", "0::/a\n");
    put("sys/fs/cgroup/a/memory.max", "4000\n");
    CHECK(memory_cgroup_room(root_) == -1, "a limit without its usage counts as none");
}

int main(int argc, char **argv)
{
    CHECK_ARGS(argc, argv);
    unsetenv("MIXBENCH_MEMORY_LIMIT");
    RUN(v2_number);
    RUN(v2_max);
    RUN(v2_nested);
    RUN(v1_controller);
    RUN(missing_or_garbled);
    if (root_[0]) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", root_);
        if (system(cmd)) printf("  could not remove %s\n", root_);
    }
    return check_failures_ ? 1 : 0;
}
