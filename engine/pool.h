/*
 * pool.h — a job's own worker threads.  pool_run runs fn(arg, i, n) on all n
 * threads (the caller is thread 0) and returns when every one has finished;
 * the threads sleep in between.  Each training job owns one pool, so two
 * jobs in one process never share threads or state.
 */
#ifndef MIXBENCH_POOL_H
#define MIXBENCH_POOL_H

typedef struct Pool Pool;
typedef void (*PoolFn)(void *arg, int thread, int n_threads);

Pool *pool_create(int n_threads, char *err);
int pool_size(const Pool *p);
void pool_run(Pool *p, PoolFn fn, void *arg);
void pool_destroy(Pool *p);

/* Online cores of the machine (at least 1): the threads `threads=0` means. */
int pool_cores(void);

/* The contiguous share [begin, end) of `total` items for `thread` of n. */
void pool_share(long total, int thread, int n, long *begin, long *end);

#endif
