/* SPDX-License-Identifier: MIT */
/* sim_load.c: which binary runs a kernel on the emulator, and loading it. A shipped source
 * (rtc_shipped) with a current make product and the op's plain C entry runs that product;
 * everything else (a user's file, whatever its name; a template-id or C++ entry; a declared
 * parameter order) is built at run time (sim_build.c). A CUDA source at width 64 runs its
 * wave64 port-check build. Each loaded kernel names the binary that runs it (kernel_origin). */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtc.h"
#include "sim_build.h"

/* A kernel that did not compile for the host at make time leaves a text marker in place of
 * its .so (backend.mk). */
#define SIM_MARKER "sim-unsupported: "

static int sim_plain_entry(const char *e)
{
    if (!((*e >= 'a' && *e <= 'z') || (*e >= 'A' && *e <= 'Z') || *e == '_'))
        return 0;
    return strspn(e, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == strlen(e);
}

/* An entry is compiled into the wrapper as written: a C++ name or template-id, nothing that
 * could end it or start another declaration. */
static int sim_entry_ok(const char *e)
{
    return *e && strlen(e) < 1000 &&
           strspn(e, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:<>, ()+-*/.") == strlen(e);
}

/* The op ABI's order, which a plain C entry takes: every buffer, then every int. */
static int sim_default_order(const struct hb_kernel_spec *s)
{
    int i = 0;
    while (i < s->n_params && s->params[i] == HB_PARAM_BUF)
        i++;
    while (i < s->n_params && s->params[i] == HB_PARAM_I32)
        i++;
    return i == s->n_params;
}

/* The object's static TLS (its static and dynamic __shared__ memory) and its image. */
struct sim_phdr_query {
    const char *name;
    size_t tls;
    struct sim_range image, writable;
};
static int sim_phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct sim_phdr_query *q = arg;
    if (!info->dlpi_name || strcmp(info->dlpi_name, q->name) != 0)
        return 0;
    q->image = q->writable = (struct sim_range){UINTPTR_MAX, 0};
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + p->p_vaddr;
        if (p->p_type == PT_TLS)
            q->tls = p->p_memsz;
        if (p->p_type != PT_LOAD)
            continue;
        if ((p->p_flags & PF_W) && lo < q->writable.lo)
            q->writable.lo = lo;
        if ((p->p_flags & PF_W) && lo + p->p_memsz > q->writable.hi)
            q->writable.hi = lo + p->p_memsz;
        if (lo < q->image.lo)
            q->image.lo = lo;
        if (lo + p->p_memsz > q->image.hi)
            q->image.hi = lo + p->p_memsz;
    }
    return 1;
}

/* A make product that is a marker, not an object: a SKIP with the compiler's reason. */
static int sim_check_product(struct hb_ctx *c, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        sim_err(c, "does not build for the emulator: %s: %s (run make)", path, strerror(errno));
        return HB_UNSUPPORTED;
    }
    char head[512] = {0};
    size_t got = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    if (got >= 4 && memcmp(head, "\177ELF", 4) == 0)
        return HB_OK;
    char *nl = strchr(head, '\n');
    if (nl)
        *nl = 0;
    int marker = strncmp(head, SIM_MARKER, strlen(SIM_MARKER)) == 0;
    sim_err(c, "does not build for the emulator: %s", marker ? head + strlen(SIM_MARKER) : "not a shared object");
    return HB_UNSUPPORTED;
}

/* A wrapped entry's parameters against the manifest's declared ones. */
static int sim_check_kinds(struct hb_ctx *c, const struct hb_kernel_spec *s, const char *kinds)
{
    char want[HB_MAX_PARAMS + 1] = "";
    for (int i = 0; i < s->n_params && i < HB_MAX_PARAMS; i++)
        want[i] = s->params[i] == HB_PARAM_BUF ? 'P' : s->params[i] == HB_PARAM_F32 ? 'F' : 'I';
    if (strlen(kinds) > HB_MAX_PARAMS) {
        sim_err(c, "%s takes %zu parameters, more than %d", s->entry, strlen(kinds), HB_MAX_PARAMS);
        return HB_ERROR;
    }
    if (s->n_params > 0 && strcmp(want, kinds) != 0) {
        sim_err(c,
                "%s's parameters are (%s), the manifest's args declare (%s) "
                "(P buffer, I integer, F float)",
                s->entry, kinds, want);
        return HB_ERROR;
    }
    return HB_OK;
}

static int sim_resolve(struct hb_ctx *c, const struct hb_kernel_spec *s, const struct sim_flavour *f, const char *path,
                       void *dl, hb_kern *k)
{
    const int *abi = dlsym(dl, "sim_kernel_abi"), *dialect = dlsym(dl, "sim_kernel_dialect");
    char tag[SIM_TAG_BYTES], entry_sym[64], kinds_sym[64];
    sim_entry_tag(s->entry, tag);
    snprintf(entry_sym, sizeof entry_sym, "sim_wrapped_entry_%s", tag);
    snprintf(kinds_sym, sizeof kinds_sym, "sim_wrapped_kinds_%s", tag);
    void *fn = dlsym(dl, f->wrapped ? entry_sym : s->entry);
    void *touch = dlsym(dl, "sim_kernel_tls_touch"), *live = dlsym(dl, "sim_kernel_set_live");
    const char *const *kinds = f->wrapped ? dlsym(dl, kinds_sym) : NULL;
    struct link_map *lm = NULL;
    if (!abi || !dialect || !touch || !live || *abi != SIM_ABI_VERSION || (f->wrapped && !kinds)) {
        sim_err(c, "%s: not built with this emulator's prelude (ABI %d); rebuild with make", path, abi ? *abi : -1);
        return HB_ERROR;
    }
    if (!fn) {
        sim_err(c, "dlsym(%s) in %s: %s", s->entry, path, dlerror());
        return HB_ERROR;
    }
    if (*dialect == SIM_DIALECT_CUDA && c->width > 32) { /* a CUDA source at 64 runs its port build */
        sim_err(c, "%s: built with 32-bit lane masks, loaded at width %d; rebuild with make", path, c->width);
        return HB_ERROR;
    }
    if (dlinfo(dl, RTLD_DI_LINKMAP, &lm) != 0 || !lm) {
        sim_err(c, "dlinfo(%s, RTLD_DI_LINKMAP): %s", path, dlerror());
        return HB_ERROR;
    }
    struct sim_phdr_query q = {lm->l_name, 0, {0, 0}, {0, 0}};
    dl_iterate_phdr(sim_phdr_cb, &q);
    if (kinds) {
        int rc = sim_check_kinds(c, s, *kinds);
        if (rc != HB_OK)
            return rc;
        snprintf(k->kinds, sizeof k->kinds, "%s", *kinds);
    }
    /* POSIX dlsym returns object pointers; these are functions by construction. */
    memcpy(&k->fn, &fn, sizeof fn);
    memcpy(&k->tls_touch, &touch, sizeof touch);
    memcpy(&k->set_live, &live, sizeof live);
    k->wrapped = f->wrapped;
    k->shared_bytes = q.tls;
    k->image = q.image;
    /* Its globals as loaded (set_live writes one during launches, 0 again after). */
    if (q.writable.lo < q.writable.hi) {
        k->writable = q.writable;
        if ((k->writable_at_load = malloc(q.writable.hi - q.writable.lo)) != NULL)
            memcpy(k->writable_at_load, (const void *)q.writable.lo, q.writable.hi - q.writable.lo);
    }
    k->dialect = *dialect;
    k->block = (struct sim_dim3){s->block[0], s->block[1], s->block[2]};
    return HB_OK;
}

static int sim_open_product(struct hb_ctx *c, const struct hb_kernel_spec *s, const struct sim_flavour *f,
                            const char *path, hb_kern **out)
{
    int rc = sim_check_product(c, path);
    if (rc != HB_OK)
        return rc;
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        sim_err(c, "dlopen(%s): %s", path, dlerror());
        return HB_ERROR;
    }
    hb_kern *k = calloc(1, sizeof *k);
    rc = k ? sim_resolve(c, s, f, path, dl, k) : HB_ERROR;
    if (!k)
        sim_err(c, "calloc(kernel) failed");
    if (rc != HB_OK) {
        if (k)
            free(k->writable_at_load);
        free(k);
        dlclose(dl);
        return rc;
    }
    k->dl = dl;
    *out = k;
    return HB_OK;
}

/* The kernel's unchecked copy next to its product (sim_unchecked_path), if it was built
 * (none for a kernel with volatile accesses): loaded into k->unchecked, its path into name.
 * One that does not load is left out: the repeats then run checked, as they always could.
 * The report names it next to the product (the same folder). */
static void sim_open_unchecked(struct hb_ctx *c, const struct hb_kernel_spec *s, const struct sim_flavour *f,
                               const char *path, hb_kern *k, char *name, size_t len)
{
    char upath[4200], saved[sizeof c->err];
    if (sim_unchecked_path(path, upath, sizeof upath) != 0 || access(upath, R_OK) != 0)
        return;
    memcpy(saved, c->err, sizeof saved);
    const char *base = strrchr(upath, '/');
    if (sim_open_product(c, s, f, upath, &k->unchecked) == HB_OK)
        snprintf(name, len, "%s", base ? base + 1 : upath);
    memcpy(c->err, saved, sizeof saved);
}

/* Which flavour of s runs at this width, and where its product comes from. A user's file is
 * compiled once for all its siblings (each is linked apart: sim_link.c), when every one is an
 * entry the wrapper takes and s is among them. */
static void sim_flavour_of(const struct hb_ctx *c, const struct hb_kernel_spec *s, struct sim_flavour *f)
{
    f->s = s;
    f->user = s->user || !rtc_shipped(s);
    f->wrapped = f->user || !sim_plain_entry(s->entry) || !sim_default_order(s);
    f->port = strcmp(s->lang, "cuda") == 0 && c->width > 32;
    f->n_entries = 1;
    f->entries = &s->entry;
    int ours = 0, ok = f->user && f->wrapped && s->n_siblings > 1;
    size_t bytes = 32;
    for (int i = 0; ok && i < s->n_siblings; i++) {
        ok = sim_entry_ok(s->siblings[i]);
        ours |= strcmp(s->siblings[i], s->entry) == 0;
        bytes += strlen(s->siblings[i]) + SIM_TAG_BYTES + 16; /* "SIM_WRAP(TAG, ENTRY) " */
    }
    ok = ok && bytes < SIM_WRAP_BYTES;
    if (ok && ours) {
        f->n_entries = s->n_siblings;
        f->entries = s->siblings;
    }
}

/* What sim_prepare checks of a product before it loads: a make product that is a marker, or
 * more shared memory than a block has, is a SKIP. */
static int sim_check_unloaded(struct hb_ctx *c, const struct hb_kernel_spec *s, const char *path)
{
    int rc = sim_check_product(c, path);
    if (rc != HB_OK)
        return rc;
    long long tls = sim_elf_tls_bytes(path, c->err, sizeof c->err);
    if (tls < 0)
        return HB_ERROR;
    if (tls > SIM_SHARED_BYTES) {
        sim_err(c, "%s uses %lld bytes of shared memory, more than %u", s->entry, tls, SIM_SHARED_BYTES);
        return HB_UNSUPPORTED;
    }
    return HB_OK;
}

int sim_prepare(hb_ctx *c, const struct hb_kernel_spec *s)
{
    c->prepared = NULL;
    if (strcmp(s->lang, "cuda") != 0 && strcmp(s->lang, "hip") != 0) {
        sim_err(c, "the emulator runs cuda and hip sources, not %s", s->lang);
        return HB_UNSUPPORTED;
    }
    uint64_t threads = (uint64_t)s->block[0] * s->block[1] * s->block[2];
    if (threads == 0 || threads > SIM_MAX_BLOCK_THREADS) {
        sim_err(c, "block %ux%ux%u: the emulator runs 1 to %u threads per block", s->block[0], s->block[1], s->block[2],
                SIM_MAX_BLOCK_THREADS);
        return HB_UNSUPPORTED;
    }
    if (!sim_entry_ok(s->entry)) {
        sim_err(c, "entry '%.200s': not a C++ function name or template-id", s->entry);
        return HB_ERROR;
    }
    struct sim_flavour f;
    sim_flavour_of(c, s, &f);
    char sub[32], *path = c->prepared_path;
    int prebuilt = 0;
    c->prepared_log[0] = '\0';
    if (!f.wrapped) {
        snprintf(sub, sizeof sub, "sim/%s", f.port ? "cuda-wave64" : s->lang);
        prebuilt = rtc_prebuilt(s, sub, ".so", path, sizeof c->prepared_path, c->err, sizeof c->err);
        if (prebuilt < 0)
            return HB_ERROR;
    }
    c->prepared_obj[0] = '\0';
    int rc = prebuilt ? HB_OK
                      : sim_build(c, &f, path, sizeof c->prepared_path, c->prepared_log, sizeof c->prepared_log,
                                  c->prepared_obj, sizeof c->prepared_obj);
    c->prepared_entries = f.n_entries;
    if (rc == HB_OK)
        rc = sim_check_unloaded(c, s, path);
    if (rc == HB_OK)
        c->prepared = s, c->prepared_prebuilt = prebuilt;
    return rc;
}

/* A shipped kernel's copies may be clang's (backend.mk): the report names that build, and how
 * many of its checks the merging pass folded into span checks (sim_merge_checks.cc). */
static void sim_clang_tool(void *dl, char *tool, size_t size)
{
    const char *compiler = dlsym(dl, "sim_kernel_compiler");
    if (!compiler || strncmp(compiler, "clang", 5) != 0)
        return;
    int n = (int)strlen(compiler);
    while (n > 0 && compiler[n - 1] == ' ') /* __clang_version__ ends in one */
        n--;
    const unsigned *merged = dlsym(dl, "sim_kernel_merged_checks"); /* checks, span checks */
    char folded[96] = "";
    if (merged && merged[0])
        snprintf(folded, sizeof folded, ", %u checks of one address expression merged into %u", merged[0], merged[1]);
    snprintf(tool, size, "%s (%.*s; its access hooks inlined%s; the unchecked copy without -fsanitize=thread)",
             SIM_KERNEL_CLANG_TOOL, n, compiler, folded);
}

int sim_load(hb_ctx *c, const struct hb_kernel_spec *s, hb_kern **out)
{
    *out = NULL;
    int rc = c->prepared == s ? HB_OK : sim_prepare(c, s);
    c->prepared = NULL;
    if (rc != HB_OK)
        return rc;
    struct sim_flavour f;
    sim_flavour_of(c, s, &f);
    if (c->prepared_entries == 1) /* its build fell back to this entry alone (sim_build) */
        f.n_entries = 1, f.entries = &s->entry;
    const char *path = c->prepared_path, *log = c->prepared_log;
    rc = sim_open_product(c, s, &f, path, out);
    if (rc != HB_OK)
        return rc;
    char how[4400], unchecked[4200] = "", tool[6000], shared[4300] = "";
    sim_open_unchecked(c, s, &f, path, *out, unchecked, sizeof unchecked);
    const char *base = strrchr(c->prepared_obj, '/');
    if (c->prepared_entries > 1) /* the log's word that the file was compiled once for its kernels */
        snprintf(shared, sizeof shared, ", linked from one compile of the file for its %d kernels (%s)",
                 c->prepared_entries, base ? base + 1 : c->prepared_obj);
    snprintf(how, sizeof how, "%s%s%s%s%s%s%s", c->prepared_prebuilt ? "built by make" : "built at run time", shared,
             log[0] ? ", warnings in " : "", log, unchecked[0] ? "; repeats after a clean first launch: " : "",
             unchecked, unchecked[0] ? " (no access checks)" : "");
    sim_build_tool(&f, tool, sizeof tool);
    if (c->prepared_prebuilt)
        sim_clang_tool((*out)->dl, tool, sizeof tool);
    rtc_describe(s, path, how, tool, (*out)->origin, sizeof(*out)->origin);
    return HB_OK;
}

void sim_unload(hb_ctx *c, hb_kern *k)
{
    if (!k)
        return;
    sim_unload(c, k->unchecked);
    dlclose(k->dl);
    free(k->writable_at_load);
    free(k);
}
