/*
 * pool.c — the worker threads of pool.h: a generation counter under one
 * mutex; workers wait for a new generation, run, and the last to finish
 * wakes the caller.
 */
#include "engine/pool.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine/common.h"

struct Pool {
    int n;
    pthread_t *threads;
    pthread_mutex_t lock;
    pthread_cond_t start, done;
    unsigned long generation;
    int pending;
    int stop;
    PoolFn fn;
    void *arg;
};

typedef struct {
    Pool *pool;
    int index;
} WorkerArg;

static void *worker(void *p)
{
    WorkerArg *wa = p;
    Pool *pool = wa->pool;
    int index = wa->index;
    free(wa);
    unsigned long seen = 0;
    for (;;) {
        pthread_mutex_lock(&pool->lock);
        while (pool->generation == seen && !pool->stop) pthread_cond_wait(&pool->start, &pool->lock);
        if (pool->stop) {
            pthread_mutex_unlock(&pool->lock);
            return NULL;
        }
        seen = pool->generation;
        assert(pool->pending > 0);   /* this worker's share is still owed */
        PoolFn fn = pool->fn;
        void *arg = pool->arg;
        pthread_mutex_unlock(&pool->lock);
        fn(arg, index, pool->n);
        pthread_mutex_lock(&pool->lock);
        if (--pool->pending == 0) pthread_cond_signal(&pool->done);
        pthread_mutex_unlock(&pool->lock);
    }
}

Pool *pool_create(int n_threads, char *err)
{
    if (n_threads < 1) n_threads = 1;
    Pool *p = calloc(1, sizeof *p);
    if (!p) { err_set(err, "out of memory"); return NULL; }
    p->n = n_threads;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->start, NULL);
    pthread_cond_init(&p->done, NULL);
    p->threads = calloc((size_t)n_threads, sizeof(pthread_t));
    if (!p->threads) { free(p); err_set(err, "out of memory"); return NULL; }
    for (int i = 1; i < n_threads; i++) {
        WorkerArg *wa = malloc(sizeof *wa);
        if (!wa || (wa->pool = p, wa->index = i, pthread_create(&p->threads[i], NULL, worker, wa))) {
            free(wa);
            p->n = i;
            pool_destroy(p);
            err_set(err, "cannot start worker thread %d", i);
            return NULL;
        }
    }
    return p;
}

int pool_size(const Pool *p) { return p->n; }

void pool_run(Pool *p, PoolFn fn, void *arg)
{
    if (p->n == 1) {
        fn(arg, 0, 1);
        return;
    }
    pthread_mutex_lock(&p->lock);
    assert(p->pending == 0);   /* not re-entrant: fn must not call pool_run on its own pool */
    p->fn = fn;
    p->arg = arg;
    p->pending = p->n - 1;
    p->generation++;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->lock);
    fn(arg, 0, p->n);
    pthread_mutex_lock(&p->lock);
    while (p->pending > 0) pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

void pool_destroy(Pool *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_broadcast(&p->start);
    pthread_mutex_unlock(&p->lock);
    for (int i = 1; i < p->n; i++) pthread_join(p->threads[i], NULL);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->start);
    pthread_cond_destroy(&p->done);
    free(p->threads);
    free(p);
}

void pool_share(long total, int thread, int n, long *begin, long *end)
{
    assert(total >= 0 && n > 0 && thread >= 0 && thread < n);
    *begin = total * thread / n;
    *end = total * (thread + 1) / n;
}

int pool_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}
