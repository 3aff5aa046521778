/* SPDX-License-Identifier: MIT */
/* code_object.c: the kernels a GPU code object defines, read from its file with no GPU API
 * (code_object.h), and the one a manifest's entry names. NVIDIA's cubin marks each kernel's
 * function symbol as an entry (STO_CUDA_ENTRY); an AMD code object gives each kernel a
 * `<name>.kd` descriptor; hipcc --genco bundles one code object per target behind a clang
 * offload bundle header; an nvcc fatbin holds cubins (and PTX) behind its own. */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "code_object.h"
#include "entry_name.h"

/* libstdc++'s demangler, C-callable: kernels have their mangled names in code objects. */
char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

#define CO_MAX_BYTES (256u << 20)
#define CO_CUDA_ENTRY 0x10 /* st_other of a cubin's kernel symbols */
#define CO_BUNDLE_MAGIC "__CLANG_OFFLOAD_BUNDLE__"
#define CO_FATBIN_MAGIC 0xBA55ED50u

/* Appends name to the list unless it is there already: a bundle's targets each define the
 * same kernels. */
static void co_add(struct co_list *l, const char *name, size_t len)
{
    for (const char *p = l->names; p < l->names + l->used; p += strlen(p) + 1)
        if (strlen(p) == len && !memcmp(p, name, len))
            return;
    if (l->used + len + 1 > sizeof l->names)
        return;
    memcpy(l->names + l->used, name, len);
    l->names[l->used + len] = '\0';
    l->used += len + 1;
    l->n++;
}

/* The kernels of one ELF image of n bytes: cubin entries, or AMD kernels by their descriptors. */
static void co_elf(const unsigned char *d, size_t n, struct co_list *l)
{
    const Elf64_Ehdr *h = (const void *)d;
    if (n < sizeof *h || memcmp(h->e_ident, ELFMAG, SELFMAG) || h->e_ident[EI_CLASS] != ELFCLASS64 ||
        h->e_shentsize != sizeof(Elf64_Shdr) || h->e_shoff > n || (n - h->e_shoff) / sizeof(Elf64_Shdr) < h->e_shnum)
        return;
    const Elf64_Shdr *sh = (const void *)(d + h->e_shoff);
    for (int i = 0; i < h->e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= h->e_shnum)
            continue;
        const Elf64_Shdr *str = &sh[sh[i].sh_link];
        if (sh[i].sh_offset > n || sh[i].sh_size > n - sh[i].sh_offset || str->sh_offset > n ||
            str->sh_size > n - str->sh_offset || str->sh_size == 0 || d[str->sh_offset + str->sh_size - 1])
            continue;
        const Elf64_Sym *sym = (const void *)(d + sh[i].sh_offset);
        const char *names = (const char *)d + str->sh_offset;
        for (size_t k = 0; k < sh[i].sh_size / sizeof *sym; k++) {
            if (sym[k].st_name >= str->sh_size)
                continue;
            const char *name = names + sym[k].st_name;
            size_t len = strlen(name);
            if (h->e_machine == EM_CUDA && ELF64_ST_TYPE(sym[k].st_info) == STT_FUNC &&
                (sym[k].st_other & CO_CUDA_ENTRY))
                co_add(l, name, len);
            else if (h->e_machine == EM_AMDGPU && len > 3 && !strcmp(name + len - 3, ".kd"))
                co_add(l, name, len - 3);
        }
    }
}

static uint64_t co_u64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* A clang offload bundle: a count, then each entry's offset, size and target id. */
static void co_bundle(const unsigned char *d, size_t n, struct co_list *l)
{
    size_t at = strlen(CO_BUNDLE_MAGIC) + 8;
    uint64_t count = n >= at ? co_u64(d + at - 8) : 0;
    for (uint64_t i = 0; i < count && at + 24 <= n; i++) {
        uint64_t off = co_u64(d + at), size = co_u64(d + at + 8), id = co_u64(d + at + 16);
        if (off <= n && size <= n - off)
            co_elf(d + off, (size_t)size, l);
        if (id > n - at - 24)
            break;
        at += 24 + (size_t)id;
    }
}

/* An nvcc fatbin: a header, then entries (kind 2: an ELF image) each with its own header. A
 * compressed image does not start with the ELF magic and is passed over. */
static void co_fatbin(const unsigned char *d, size_t n, struct co_list *l)
{
    uint16_t head;
    memcpy(&head, d + 6, sizeof head);
    uint64_t body = co_u64(d + 8);
    size_t end = body < n - head ? head + (size_t)body : n;
    for (size_t at = head; at + 16 <= end;) {
        uint16_t kind;
        uint32_t ehead;
        memcpy(&kind, d + at, sizeof kind);
        memcpy(&ehead, d + at + 4, sizeof ehead);
        uint64_t size = co_u64(d + at + 8);
        if (ehead < 16 || ehead > end - at || size > end - at - ehead)
            break;
        if (kind == 2)
            co_elf(d + at + ehead, (size_t)size, l);
        at += ehead + (size_t)size;
    }
}

int co_kernels(const char *path, struct co_list *l, char *err, size_t errlen)
{
    memset(l, 0, sizeof *l);
    FILE *f = fopen(path, "rb");
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0)
        n = ftell(f);
    unsigned char *d = n > 16 && (unsigned long)n <= CO_MAX_BYTES ? malloc((size_t)n) : NULL;
    int ok = d && fseek(f, 0, SEEK_SET) == 0 && fread(d, 1, (size_t)n, f) == (size_t)n;
    if (!ok)
        snprintf(err, errlen, "%s: %s", path, !f ? strerror(errno) : d ? "read failed" : "not a code object");
    if (f)
        fclose(f);
    uint32_t magic = 0;
    if (ok)
        memcpy(&magic, d, sizeof magic);
    if (ok && !memcmp(d, CO_BUNDLE_MAGIC, strlen(CO_BUNDLE_MAGIC)))
        co_bundle(d, (size_t)n, l);
    else if (ok && magic == CO_FATBIN_MAGIC)
        co_fatbin(d, (size_t)n, l);
    else if (ok)
        co_elf(d, (size_t)n, l);
    free(d);
    return ok ? 0 : -1;
}

int co_find(const struct co_list *l, const char *entry, char *symbol, size_t len, char *held, size_t heldlen)
{
    char want[1024], have[1024];
    size_t used = 0;
    entry_plain_name(entry, want, sizeof want);
    held[0] = '\0';
    for (const char *p = l->names; p < l->names + l->used; p += strlen(p) + 1) {
        int status = -1;
        char *readable = __cxa_demangle(p, NULL, NULL, &status);
        entry_plain_name(status == 0 && readable ? readable : p, have, sizeof have);
        free(readable);
        if (!strcmp(have, want)) {
            snprintf(symbol, len, "%s", p);
            return 1;
        }
        if (used < heldlen)
            used += (size_t)snprintf(held + used, heldlen - used, "%s%.100s", used ? ", " : "", have);
    }
    snprintf(symbol, len, "%s", entry);
    return 0;
}
