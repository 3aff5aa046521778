/* SPDX-License-Identifier: MIT */
/* sim_link.c: one kernel's product from a compiled object of its file (sim_build.c compiles a
 * user's file once for all the entries its manifests give it): the link keeps only what this
 * entry reaches (a version script exporting its wrapper alone, --gc-sections), so its static
 * shared memory, the object's thread-local block, holds its own arrays and no other kernel's,
 * and the emulator's shared-memory range stays the kernel's; `extern __shared__` arrays are
 * defined there as dynamic shared memory; the unchecked copy is linked the same way, and so
 * are make's copies of the shipped kernels (sim_link_copy), which are not sealed. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rtc.h"
#include "sim_build.h"

/* What a user's file adds at link time: only what the exported entry reaches is kept. */
#define SIM_USER_LINK "-Wl,--gc-sections"

void sim_entry_tag(const char *entry, char tag[SIM_TAG_BYTES])
{
    struct sha256 h;
    unsigned char d[SHA256_BYTES];
    char hex[SHA256_HEX];
    sha256_init(&h);
    sha256_update(&h, entry, strlen(entry));
    sha256_final(&h, d);
    sha256_hex(d, hex);
    snprintf(tag, SIM_TAG_BYTES, "%.*s", SIM_TAG_BYTES - 1, hex);
}

const char *sim_link_flags(const struct sim_flavour *f)
{
    return f->user ? SIM_KERNEL_LINK " " SIM_USER_LINK : SIM_KERNEL_LINK;
}

/* The version script of the entry's product: the runtime's symbols and this entry's wrapper. */
static int sim_write_map(const struct sim_flavour *f, const char *map, char *err, size_t errlen)
{
    char tag[SIM_TAG_BYTES];
    sim_entry_tag(f->s->entry, tag);
    FILE *out = fopen(map, "w");
    if (!out ||
        fprintf(out, "{\n    global: sim_kernel_*; sim_wrapped_entry_%s; sim_wrapped_kinds_%s;\n    local: *;\n};\n",
                tag, tag) < 0 ||
        fclose(out) != 0) {
        snprintf(err, errlen, "%.900s: %s", map, strerror(errno));
        return -1;
    }
    return 0;
}

/* Defines the object's `extern __shared__` arrays (its undefined thread-local symbols) as
 * one block of shared_bytes, all names at its start: CUDA gives every such array the same
 * address, the start of the block's dynamic shared memory. Their C++ init functions do
 * nothing: g++ may call one unconditionally (a block-scope `extern __shared__` in a class
 * template's member, as cuda-samples' SharedMemory<T> has), where a weak undefined one would
 * be a call to address 0. Without shared_bytes only the init functions are defined: an entry
 * that uses the arrays then fails to link, and *needs_bytes says it may be that. 0 nothing to
 * define, 1 written, -1 error. */
static int sim_dynamic_shared(const struct sim_flavour *f, const char *obj, const char *defs, int *needs_bytes,
                              char *err, size_t errlen)
{
    char names[4096], inits[4096];
    int n = sim_elf_undefined(obj, 1, names, sizeof names, err, errlen);
    int n_inits = n > 0 ? sim_elf_undefined(obj, 0, inits, sizeof inits, err, errlen) : 0;
    *needs_bytes = n > 0 && f->s->shared_bytes == 0;
    if (n <= 0 || n_inits < 0)
        return n_inits < 0 ? -1 : n;
    FILE *out = fopen(defs, "w");
    if (!out) {
        snprintf(err, errlen, "%.900s: %s", defs, strerror(errno));
        return -1;
    }
    if (f->s->shared_bytes > 0) {
        fprintf(out, "\t.section .tbss,\"awT\",@nobits\n\t.balign 64\n");
        for (const char *p = names; n-- > 0; p += strlen(p) + 1)
            fprintf(out, "\t.globl %s\n\t.hidden %s\n\t.type %s, @object\n%s:\n", p, p, p, p);
        fprintf(out, "\t.zero %u\n", f->s->shared_bytes);
    }
    fprintf(out, "\t.text\n");
    for (const char *p = inits; n_inits-- > 0; p += strlen(p) + 1)
        fprintf(out, "\t.globl %s\n\t.hidden %s\n\t.type %s, @function\n%s:\n\tret\n", p, p, p, p);
    if (fclose(out) != 0) {
        snprintf(err, errlen, "%.900s: %s", defs, strerror(errno));
        return -1;
    }
    return 1;
}

/* One link: the object, the dynamic shared memory's definitions if any, the product; a user's
 * entry keeps only what it reaches (map: its version script). As rtc_run. */
static int sim_link_one(const struct sim_flavour *f, const char *obj, const char *defs, const char *map,
                        const char *tmp, const char *log, char *err, size_t errlen)
{
    char flags[1024], words[2048], mapword[4300], *argv[24];
    snprintf(flags, sizeof flags, "%s %s", SIM_KERNEL_CXX, sim_link_flags(f));
    int n = rtc_split(flags, words, sizeof words, argv, 18);
    if (n < 0) {
        snprintf(err, errlen, "too many link flags");
        return -1;
    }
    if (map) {
        snprintf(mapword, sizeof mapword, "-Wl,--version-script=%s", map);
        argv[n++] = mapword;
    }
    argv[n++] = (char *)obj;
    if (defs)
        argv[n++] = (char *)defs;
    argv[n++] = "-o";
    argv[n++] = (char *)tmp;
    argv[n] = NULL;
    return rtc_run(argv, log, err, errlen);
}

int sim_link_copy(const struct sim_flavour *f, const char *scratch, const char *obj, const char *out, const char *log,
                  char *err, size_t errlen)
{
    char defs[4200];
    int needs_bytes = 0;
    if (snprintf(defs, sizeof defs, "%s/link.s", scratch) >= (int)sizeof defs) {
        snprintf(err, errlen, "scratch path too long");
        return -1;
    }
    int have_defs = sim_dynamic_shared(f, obj, defs, &needs_bytes, err, errlen);
    return have_defs < 0 ? -1 : sim_link_one(f, obj, have_defs ? defs : NULL, NULL, out, log, err, errlen);
}

int sim_link_entry(const struct sim_flavour *f, const struct sim_objects *o, const char *path, char *err, size_t errlen)
{
    char defs[4200], map[4200], tmp[4200], u_tmp[4200], upath[4200], log[4200];
    int needs_bytes = 0, rc = -1;
    snprintf(err, errlen, "scratch path too long");
    if (snprintf(defs, sizeof defs, "%s/link.s", o->scratch) >= (int)sizeof defs ||
        snprintf(map, sizeof map, "%s/link.map", o->scratch) >= (int)sizeof map ||
        snprintf(tmp, sizeof tmp, "%s/link.so", o->scratch) >= (int)sizeof tmp ||
        snprintf(u_tmp, sizeof u_tmp, "%s/link.unchecked.so", o->scratch) >= (int)sizeof u_tmp ||
        snprintf(log, sizeof log, "%s/link.log", o->scratch) >= (int)sizeof log ||
        sim_unchecked_path(path, upath, sizeof upath) != 0)
        return -1;
    err[0] = '\0';
    int have_defs = sim_dynamic_shared(f, o->obj, defs, &needs_bytes, err, errlen);
    if (have_defs < 0 || (f->user && f->wrapped && sim_write_map(f, map, err, errlen) != 0))
        return -1;
    const char *d = have_defs ? defs : NULL, *m = f->user && f->wrapped ? map : NULL;
    /* Two steps like make: linking with -fsanitize=thread would pull in TSan's runtime. */
    rc = sim_link_one(f, o->obj, d, m, tmp, log, err, errlen);
    if (rc > 0 && needs_bytes) {
        snprintf(err, errlen,
                 "%s declares dynamic shared memory (extern __shared__): give its bytes per block with "
                 "shared_bytes = N in the manifest",
                 f->s->name);
        return 2;
    }
    if (rc != 0)
        return rc;
    /* The unchecked copy, if the file has one; one that does not link is left out (the
     * repeats then run checked), as its compile's failure is. */
    if (o->u_obj && sim_link_one(f, o->u_obj, d, m, u_tmp, log, err, errlen) == 0 &&
        rtc_seal(u_tmp, upath, err, errlen) != 0)
        return -1;
    err[0] = '\0';
    return rtc_seal(tmp, path, err, errlen);
}
