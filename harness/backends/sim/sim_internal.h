/* SPDX-License-Identifier: MIT */
/* sim_internal.h: what the sim backend's two halves share: the runtime (sim_backend.c:
 * devices, buffers, schedules, launches, faults) and the loader (sim_load.c: which binary
 * runs a kernel, building it, dlopen). Not part of any interface outside this folder. */
#ifndef SIM_INTERNAL_H
#define SIM_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "backend.h"
#include "sim_sched.h"

#define SIM_MAX_THREADS 256
#define SIM_MAX_BLOCK_THREADS 1024u
#define SIM_SHARED_BYTES (64u * 1024u)

struct hb_buf {
    size_t size;
    unsigned char *data;
    unsigned char *map; /* the mapping: slack, data, slack (sim_backend.c) */
    size_t map_bytes;
};

struct hb_kern {
    void *dl;
    void (*fn)(void);
    int wrapped;                   /* fn takes struct sim_arg[] (sim_wrap.cc) */
    char kinds[HB_MAX_PARAMS + 1]; /* a wrapped entry's parameters: P(ointer) I(nt) F(loat) */
    void *(*tls_touch)(void);
    void (*set_live)(int on);
    size_t shared_bytes; /* its PT_TLS segment: static and dynamic __shared__ memory */
    int dialect;         /* lane mask bits of the build: 32, or 64 (HIP, CUDA port check) */
    struct sim_dim3 block;
    struct sim_range image; /* the loaded object's segments: its static data */
    char origin[2048];      /* which binary runs (rtc_describe), for the report */
    /* The same kernel built without access checks (its .unchecked.so), for a case's repeats,
     * or NULL; off once either copy's own data (writable segment) is no longer as loaded:
     * the two copies' globals would differ from there on. */
    struct hb_kern *unchecked;
    int unchecked_off;
    struct sim_range writable;
    unsigned char *writable_at_load;
};

enum sim_mode { SIM_LOCKSTEP, SIM_RANDOM, SIM_MIXED };

struct hb_ctx {
    int width, n_workers;
    enum sim_mode mode;
    uint64_t seed;
    int first_found; /* the case's first launch found a bad access or failed: its repeats run checked */
    char err[8192];  /* after a load: the account of the binary (sim_load.c) */
    struct sim_worker *workers[SIM_MAX_THREADS];
    pthread_t threads[SIM_MAX_THREADS];
    struct sim_helper {
        struct hb_ctx *c;
        int idx;
    } helpers[SIM_MAX_THREADS];
    int n_threads; /* started helper threads: workers 1..n_threads (the caller is worker 0) */
    /* Launch hand-off: the caller bumps gen, helpers drain blocks, the last one signals. */
    pthread_mutex_t mu;
    pthread_cond_t start, done;
    uint64_t gen;
    int running, stop;
    const struct sim_launch *job;
    const struct hb_kern *job_kern;
    _Atomic uint64_t next_block;
    uint64_t n_blocks;
    _Atomic uint64_t failed_block; /* the lowest failed block (job_err says why), or UINT64_MAX */
    char job_err[512];
    struct hb_fault faults[2]; /* the last launch's out-of-bounds reads, writes */
    /* What sim_prepare built and checked for the spec it was given last, which the load that
     * follows opens (sim_load.c); NULL when none waits. */
    const struct hb_kernel_spec *prepared;
    char prepared_path[4096], prepared_log[4200];
    int prepared_prebuilt;
    char prepared_obj[4200]; /* the file's compiled object it was linked from (sim_build) */
    int prepared_entries;    /* how many entries that one compile wrapped */
};

void sim_err(struct hb_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* sim_launch.c: fills L for one launch (HB_OK, else a status with the message in c->err);
 * after it ran, merges the workers' fault records into c->faults. */
int sim_launch_prepare(struct hb_ctx *c, const hb_kern *k, const unsigned grid[3], const struct hb_args *a,
                       struct sim_launch *L);
void sim_launch_faults(struct hb_ctx *c);

/* sim_load.c: prepare builds and checks (every SKIP is decided there, before the kernel's
 * code runs in this process); load opens what prepare found, preparing first when it was not
 * called just before with this spec. */
int sim_prepare(hb_ctx *c, const struct hb_kernel_spec *s);
int sim_load(hb_ctx *c, const struct hb_kernel_spec *s, hb_kern **out);
void sim_unload(hb_ctx *c, hb_kern *k);

#endif
