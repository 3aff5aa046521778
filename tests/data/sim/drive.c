/* drive.c: drives build/backends/hb_sim.so through backend.h alone, filling the ABI 2 fields
 * (declared parameters, floats, buffer sizes, shared_bytes, user) as the core will, for
 * tests/integration.sh: one SGEMM, C = alpha*A*B + beta*C, buffers between 4096-byte guards;
 * prints load, launch and faults() and whether C is right. No cases, verdicts or children.
 *   drive [-u] [-s shared] [-w width] [-b bx,by] [-g gx,gy] [-p args] [-r n] [-m M,N,K] build src entry */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"

#define GUARD 4096u

struct opts {
    int user, width, launches;
    unsigned shared, block[3], grid[3];
    int m, n, k;
    const char *params, *build, *source, *entry;
};

static int parse(int argc, char **argv, struct opts *o)
{
    *o = (struct opts){0, 32, 1, 0, {16, 16, 1}, {0, 0, 1}, 17, 19, 23, NULL, NULL, NULL, NULL};
    int c;
    while ((c = getopt(argc, argv, "us:w:b:g:p:r:m:")) != -1) {
        if (c == 'u')
            o->user = 1;
        else if (c == 's')
            o->shared = (unsigned)atoi(optarg);
        else if (c == 'w')
            o->width = atoi(optarg);
        else if (c == 'b')
            sscanf(optarg, "%u,%u", &o->block[0], &o->block[1]);
        else if (c == 'g')
            sscanf(optarg, "%u,%u", &o->grid[0], &o->grid[1]);
        else if (c == 'p')
            o->params = optarg;
        else if (c == 'r')
            o->launches = atoi(optarg);
        else if (c == 'm')
            sscanf(optarg, "%d,%d,%d", &o->m, &o->n, &o->k);
        else
            return -1;
    }
    if (argc - optind != 3)
        return -1;
    o->build = argv[optind], o->source = argv[optind + 1], o->entry = argv[optind + 2];
    if (!o->grid[0])
        o->grid[0] = (unsigned)(o->n + 15) / 16, o->grid[1] = (unsigned)(o->m + 15) / 16;
    return 0;
}

/* "M N K alpha A B beta C" into kinds (spec) and indexes (args); default A B C M N K. */
static void declare(const char *list, struct hb_kernel_spec *s, struct hb_args *a)
{
    static const char *const names[] = {"A", "B", "C", "M", "N", "K", "alpha", "beta"};
    char buf[256], *save = NULL;
    snprintf(buf, sizeof buf, "%s", list ? list : "A B C M N K");
    for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
        for (int i = 0; i < 8; i++)
            if (!strcmp(w, names[i])) {
                unsigned char kind = i < 3 ? HB_PARAM_BUF : i < 6 ? HB_PARAM_I32 : HB_PARAM_F32;
                unsigned char at = (unsigned char)(i < 3 ? i : i < 6 ? i - 3 : i - 6);
                a->params[a->n_params] = (struct hb_param){kind, at};
                if (list)
                    s->params[s->n_params++] = kind;
                a->n_params++;
            }
}

static void fault_line(const char *what, const struct hb_fault *f)
{
    printf("%s: count=%lld arg=%d offset=%lld block=%u,%u,%u thread=%u,%u,%u\n", what, f->count,
           f->arg, f->offset, f->block[0], f->block[1], f->block[2], f->thread[0], f->thread[1],
           f->thread[2]);
}

/* A, B and C between guard bands, filled with small integers, uploaded whole. */
static int stage(const struct hb_backend *be, hb_ctx *ctx, const struct opts *o, struct hb_args *a,
                 float *host[3], unsigned char *imgs[3], size_t totals[3])
{
    size_t n[3] = {(size_t)o->m * o->k, (size_t)o->k * o->n, (size_t)o->m * o->n};
    uint32_t guard = 0x7fc0deadu;
    for (int i = 0; i < 3; i++) {
        size_t bytes = n[i] * 4, total = 2 * GUARD + (bytes + GUARD - 1) / GUARD * GUARD;
        unsigned char *img = imgs[i] = malloc(total);
        totals[i] = total;
        for (size_t j = 0; j < total; j += 4)
            memcpy(img + j, &guard, 4);
        host[i] = (float *)(img + GUARD);
        for (size_t j = 0; j < n[i]; j++)
            host[i][j] = (float)((j * 7 + (size_t)i * 3) % 11) - 5.0f;
        if (be->alloc(ctx, total, &a->bufs[i]) != HB_OK || be->upload(ctx, a->bufs[i], 0, img, total) != HB_OK)
            return 1;
        a->offsets[i] = GUARD, a->bytes[i] = bytes;
    }
    return 0;
}

/* C against alpha A B + beta C0 in double. */
static void check(const struct hb_backend *be, hb_ctx *ctx, const struct opts *o, const struct hb_args *a,
                  float *host[3])
{
    float *c = malloc((size_t)o->m * o->n * 4 + 1);
    be->download(ctx, a->bufs[2], GUARD, c, (size_t)o->m * o->n * 4);
    double worst = 0;
    for (int i = 0; i < o->m; i++)
        for (int j = 0; j < o->n; j++) {
            double ref = 0;
            for (int p = 0; p < o->k; p++)
                ref += (double)host[0][i * o->k + p] * host[1][p * o->n + j];
            ref = a->floats[0] * ref + a->floats[1] * host[2][i * o->n + j];
            double e = fabs(ref - c[i * o->n + j]);
            worst = e > worst || e != e ? e : worst;
        }
    printf("result: %s max_abs_err=%g\n", worst < 1e-3 ? "right" : "wrong", worst);
    free(c);
}

int main(int argc, char **argv)
{
    struct opts o;
    if (parse(argc, argv, &o) != 0) {
        fprintf(stderr, "usage: drive [-u] [-s bytes] [-w width] [-b bx,by] [-g gx,gy] [-p params] "
                        "[-r launches] [-m M,N,K] build_dir source entry\n");
        return 2;
    }
    char so[4096], err[512];
    snprintf(so, sizeof so, "%s/backends/hb_sim.so", o.build);
    void *dl = dlopen(so, RTLD_NOW);
    const struct hb_backend *(*entry)(void) =
        dl ? (const struct hb_backend *(*)(void))dlsym(dl, "hb_backend_entry") : NULL;
    const struct hb_backend *be = entry ? entry() : NULL;
    hb_ctx *ctx = NULL;
    if (!be || be->abi < 2 || be->open(&ctx, 0, o.width, err, sizeof err) != HB_OK) {
        printf("open: failed %s\n", be ? err : dlerror());
        return 1;
    }
    struct hb_kernel_spec s;
    memset(&s, 0, sizeof s);
    s.name = "k", s.lang = "cuda", s.source_path = o.source, s.entry = o.entry, s.build_dir = o.build;
    s.block[0] = o.block[0], s.block[1] = o.block[1], s.block[2] = 1;
    if (strstr(o.source, ".hip"))
        s.lang = "hip";
    s.user = o.user;
    s.shared_bytes = o.shared;
    struct hb_args a;
    memset(&a, 0, sizeof a);
    declare(o.params, &s, &a);
    hb_kern *k = NULL;
    int rc = be->load(ctx, &s, &k);
    printf("load: rc=%d msg=%s\n", rc, rc == HB_OK ? be->kernel_origin(ctx, k) : be->last_error(ctx));
    if (rc != HB_OK)
        return 1;
    float *host[3];
    unsigned char *imgs[3];
    size_t totals[3];
    if (stage(be, ctx, &o, &a, host, imgs, totals))
        return 1;
    a.n_bufs = 3, a.n_ints = 3, a.n_floats = 2;
    a.ints[0] = o.m, a.ints[1] = o.n, a.ints[2] = o.k;
    a.floats[0] = o.params && strstr(o.params, "alpha") ? 1.5f : 1.0f;
    a.floats[1] = o.params && strstr(o.params, "beta") ? 0.5f : 0.0f;
    for (int r = 0; r < o.launches; r++) {
        double ms;
        /* C afresh before every launch, as the core does between repeats */
        if (be->upload(ctx, a.bufs[2], 0, imgs[2], totals[2]) != HB_OK)
            return 1;
        rc = be->launch(ctx, k, o.grid, &a, &ms);
        printf("launch: rc=%d%s%s\n", rc, rc ? " msg=" : "", rc ? be->last_error(ctx) : "");
        struct hb_fault rd, wr;
        if (be->faults && be->faults(ctx, &rd, &wr) == HB_OK) {
            fault_line("reads", &rd);
            fault_line("writes", &wr);
        } else {
            printf("faults: not reported\n");
        }
    }
    check(be, ctx, &o, &a, host);
    for (int i = 0; i < 3; i++) {
        be->release(ctx, a.bufs[i]);
        free(imgs[i]);
    }
    be->unload(ctx, k);
    be->close(ctx);
    return 0;
}
