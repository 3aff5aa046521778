/* SPDX-License-Identifier: MIT */
/* plan_prepare.c: every used case's inputs and references, made once in the parent before
 * the workers need them, for the kernels the run's groups run it with: cases whose data forks a
 * child (a custom op's C reference) first and alone, then the rest on threads, largest and
 * smallest first, while the first workers open their devices. It runs no kernel. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "interrupt.h"
#include "ref.h"
#include "runner.h"
#include "trace.h"

struct plan_pool {
    struct run_ctx *cx;
    int *order, n;
    pthread_mutex_t lock;
    int lo, hi;          /* the cases of `order` nobody has taken yet */
    unsigned char *runs; /* per case, a row of kernel bits (case_data.runs); NULL: every kernel */
    size_t row;          /* bytes of a row */
    pthread_t threads[64];
    int joinable, started, blas; /* threads made; threads that have begun */
    double t0, ms;               /* ms: when the last case was done, from t0 */
};

/* The next case for a thread that takes the largest (or, `small`, the smallest) left; -1
 * when none is. */
static int plan_take(struct plan_pool *p, int small)
{
    pthread_mutex_lock(&p->lock);
    int i = p->lo > p->hi ? -1 : small ? p->order[p->hi--] : p->order[p->lo++];
    pthread_mutex_unlock(&p->lock);
    return i;
}

/* Case i's inputs and references, for the kernels that run it. */
static void plan_prepare_case(struct plan_pool *p, int i)
{
    struct case_data *d = &p->cx->data[i];
    d->runs = p->runs ? p->runs + (size_t)i * p->row : NULL;
    /* A sanitized group's child runs the kernel itself: it makes no reference. */
    op_prepare(d, &p->cx->kernels, !p->cx->o->group_child);
    d->runs = NULL; /* the rows go with the pool */
}

/* Cases until none is left (or the run is interrupted: none is needed). Half the threads
 * take the largest first, so none is left with a big case at the end; half the smallest,
 * so groups of small cases can start at once (sched.c starts a group when its cases are
 * made). */
static void *plan_prepare_thread(void *arg)
{
    struct plan_pool *p = arg;
    pthread_mutex_lock(&p->lock);
    int nth = p->started++, small = nth & 1;
    pthread_mutex_unlock(&p->lock);
    trace_track(TRACE_DATA_TRACK + nth, "case data and references, thread %d (%s first)", nth + 1,
                small ? "smallest" : "largest");
    for (int i; !intr_signal && (i = plan_take(p, small)) >= 0;) {
        struct case_data *d = &p->cx->data[i];
        double t0 = now_ms();
        plan_prepare_case(p, i);
        trace_span(TRACE_DATA_TRACK + nth, "data", d->c->name, NULL, t0, now_ms());
        if (atomic_fetch_sub(&p->cx->unmade, 1) == 1)
            p->ms = now_ms() - p->t0;
    }
    return NULL;
}

static int plan_by_cost(const void *a, const void *b, void *cx)
{
    const struct case_data *data = ((struct run_ctx *)cx)->data;
    double x = plan_case_cost(data[*(const int *)a].c), y = plan_case_cost(data[*(const int *)b].c);
    return x < y ? 1 : x > y ? -1 : *(const int *)a - *(const int *)b;
}

/* The case set's pages (768 bytes a case, on the heap) kept out of (MADV_DONTFORK) or back in
 * (MADV_DOFORK) the children forked from now on. A reference child, forked once per case, reads
 * none of them (an oracle's gets its case by value, oracle.c), but fork copied their page tables
 * for each: a reference phase quadratic in the case count. No worker is forked before the
 * forking cases are made (runner.h's `unmade`). Only pages wholly inside the array: the heap
 * shares the others. */
static void plan_cases_fork(const struct case_set *cs, int advice)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)cs->c + page - 1) & ~(page - 1), hi = (uintptr_t)(cs->c + cs->cap) & ~(page - 1);
    if (cs->c && hi > lo)
        madvise((void *)lo, hi - lo, advice);
}

/* Cases whose data forks a child (a custom op's C reference), made here before any reference
 * thread starts: a fork while OpenBLAS computes on another thread hangs in its fork handler. */
static void plan_prepare_forking(struct plan_pool *p)
{
    struct run_ctx *cx = p->cx;
    plan_cases_fork(&cx->cases, MADV_DONTFORK);
    for (int i = 0; i < cx->cases.n && !intr_signal; i++) {
        struct case_data *d = &cx->data[i];
        if (!d->used || !op_get(d->c->op)->prepare_forks)
            continue;
        double t0 = now_ms();
        plan_prepare_case(p, i);
        trace_span(TRACE_DATA_TRACK, "data", d->c->name, NULL, t0, now_ms());
        if (atomic_fetch_sub(&cx->unmade, 1) == 1)
            p->ms = now_ms() - p->t0;
    }
    plan_cases_fork(&cx->cases, MADV_DOFORK);
}

/* Which kernels each case is run with: the groups' (parts included), so that a kernel left out
 * by --kernel, --id or a backend that runs no kernel of its language gets no data or reference. */
static void plan_prepare_runs(struct plan_pool *p, const struct group *groups, int n_groups)
{
    const struct kern_set *ks = &p->cx->kernels;
    p->row = ((size_t)ks->n + 7) / 8;
    p->runs = xcalloc((size_t)p->cx->cases.n * p->row + 1, 1);
    for (int g = 0; g < n_groups; g++) {
        if (!groups[g].k)
            continue;
        size_t k = (size_t)(groups[g].k - ks->k);
        for (int c = 0; c < groups[g].n_cases; c++)
            p->runs[(size_t)groups[g].cases[c] * p->row + k / 8] |= (unsigned char)(1u << (k % 8));
    }
}

struct plan_pool *plan_prepare_start(struct run_ctx *cx, const struct group *groups, int n_groups, int jobs)
{
    struct plan_pool *p = xcalloc(1, sizeof *p);
    p->cx = cx, p->order = xcalloc((size_t)cx->cases.n + 1, sizeof(int)), p->t0 = now_ms();
    if (groups)
        plan_prepare_runs(p, groups, n_groups);
    cus_set_timeout(cx->o->timeout_s); /* a reference or an oracle without a timeout key */
    int forking = 0;
    for (int i = 0; i < cx->cases.n; i++)
        if (cx->data[i].used && op_get(cx->data[i].c->op)->prepare_forks)
            forking++;
        else if (cx->data[i].used)
            p->order[p->n++] = i;
    atomic_store(&cx->unmade, p->n + forking);
    plan_prepare_forking(p);
    qsort_r(p->order, (size_t)p->n, sizeof *p->order, plan_by_cost, cx); /* largest first */
    pthread_mutex_init(&p->lock, NULL);
    p->hi = p->n - 1;
    int callers = jobs < 64 ? jobs : 64, made = 0;
    p->blas = ref_blas_threads();
    ref_set_blas_threads(ref_blas_threads_for(callers < p->n ? callers : p->n, p->blas));
    for (; made < callers && made < p->n; made++)
        if (pthread_create(&p->threads[made], NULL, plan_prepare_thread, p))
            break;
    p->joinable = made;
    if (!made) /* no thread: here, now */
        plan_prepare_thread(p);
    return p;
}

double plan_prepare_wait(struct plan_pool *p)
{
    for (int i = 0; i < p->joinable; i++)
        pthread_join(p->threads[i], NULL);
    pthread_mutex_destroy(&p->lock);
    ref_set_blas_threads(p->blas);
    double ms = p->ms;
    free(p->order), free(p->runs);
    free(p);
    return ms;
}

void plan_prepare(struct run_ctx *cx, int jobs) { plan_prepare_wait(plan_prepare_start(cx, NULL, 0, jobs)); }
