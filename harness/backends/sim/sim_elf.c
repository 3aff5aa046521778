/* SPDX-License-Identifier: MIT */
/* sim_elf.c: finds a compiled kernel object's undefined thread-local symbols, which are its
 * `extern __shared__` declarations (the prelude makes __shared__ thread_local), and the init
 * functions its code calls before using them, so the link can define both (dynamic shared
 * memory, which has no initializer); whether its code calls the hooks of volatile accesses
 * (sim_hooks.h), which only a checked build has; and a linked object's shared memory, before
 * it is loaded. Reads one native 64-bit ELF object, checking every offset against its size;
 * it does not interpret anything else. */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_build.h"

#define SIM_MAX_OBJECT (512u << 20)

static int sim_elf_read(const char *path, unsigned char **data, size_t *size, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0)
        n = ftell(f);
    *data = n > 0 && (unsigned long)n <= SIM_MAX_OBJECT ? malloc((size_t)n) : NULL;
    if (!f || !*data || fseek(f, 0, SEEK_SET) != 0 || fread(*data, 1, (size_t)n, f) != (size_t)n) {
        snprintf(err, errlen, "reading %s: %s", path, f ? "short or too large" : strerror(errno));
        free(*data);
        *data = NULL;
        if (f)
            fclose(f);
        return -1;
    }
    fclose(f);
    *size = (size_t)n;
    return 0;
}

/* Names as the assembler will see them again: mangled C++ names use only these. */
static int sim_elf_plain(const char *name)
{
    if (!*name)
        return 0;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
              *p == '.' || *p == '$'))
            return 0;
    return 1;
}

/* The section headers of a 64-bit ELF object, every one inside it; NULL with err. */
static const Elf64_Shdr *sim_elf_sections(const unsigned char *d, size_t size, int *n, char *err, size_t errlen)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)d;
    if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > size ||
        (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum) {
        snprintf(err, errlen, "not a 64-bit ELF object");
        return NULL;
    }
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(d + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; i++)
        if (sh[i].sh_type != SHT_NOBITS && (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset)) {
            snprintf(err, errlen, "section %d outside the object", i);
            return NULL;
        }
    *n = eh->e_shnum;
    return sh;
}

/* Symbol table i (an SHT_SYMTAB section) and its strings, NUL-terminated: 0, or -1 with err. */
static int sim_elf_symtab(const unsigned char *d, const Elf64_Shdr *sh, int n, int i, const Elf64_Sym **sym,
                          size_t *n_sym, const char **str, size_t *str_size, char *err, size_t errlen)
{
    if (i >= n || sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= (unsigned)n ||
        sh[sh[i].sh_link].sh_type != SHT_STRTAB || sh[sh[i].sh_link].sh_size == 0 ||
        d[sh[sh[i].sh_link].sh_offset + sh[sh[i].sh_link].sh_size - 1] != '\0') {
        snprintf(err, errlen, "malformed symbol table");
        return -1;
    }
    *sym = (const Elf64_Sym *)(d + sh[i].sh_offset);
    *n_sym = sh[i].sh_size / sizeof **sym;
    *str = (const char *)(d + sh[sh[i].sh_link].sh_offset);
    *str_size = sh[sh[i].sh_link].sh_size;
    return 0;
}

/* The undefined symbols of the object that are thread-local (tls) or, when not, whose names
 * start with _ZTH (the init functions C++ calls before touching an `extern thread_local`). */
static int sim_elf_wanted(const Elf64_Sym *sym, const char *name, int tls)
{
    if (sym->st_shndx != SHN_UNDEF)
        return 0;
    return tls ? ELF64_ST_TYPE(sym->st_info) == STT_TLS : strncmp(name, "_ZTH", 4) == 0;
}

static int sim_elf_scan(const unsigned char *d, size_t size, int tls, char *names, size_t cap, char *err, size_t errlen)
{
    int n_sh;
    const Elf64_Shdr *sh = sim_elf_sections(d, size, &n_sh, err, errlen);
    if (!sh)
        return -1;
    size_t used = 0;
    int count = 0;
    for (int i = 0; i < n_sh; i++) {
        const Elf64_Sym *sym;
        const char *str;
        size_t n_sym, str_size;
        if (sh[i].sh_type != SHT_SYMTAB)
            continue;
        if (sim_elf_symtab(d, sh, n_sh, i, &sym, &n_sym, &str, &str_size, err, errlen) != 0)
            return -1;
        for (size_t k = 0; k < n_sym; k++) {
            if (sym[k].st_name >= str_size || !sim_elf_wanted(&sym[k], str + sym[k].st_name, tls))
                continue;
            const char *name = str + sym[k].st_name;
            size_t len = strlen(name) + 1;
            if (!sim_elf_plain(name) || len > cap - used) {
                snprintf(err, errlen, "symbol %.200s: unexpected name or too many", name);
                return -1;
            }
            memcpy(names + used, name, len);
            used += len;
            count++;
        }
    }
    return count;
}

/* Whether a relocation of the object refers to a symbol whose name starts with prefix. */
static int sim_elf_refers(const unsigned char *d, size_t size, const char *prefix, char *err, size_t errlen)
{
    int n_sh;
    const Elf64_Shdr *sh = sim_elf_sections(d, size, &n_sh, err, errlen);
    if (!sh)
        return -1;
    for (int i = 0; i < n_sh; i++) {
        const Elf64_Sym *sym;
        const char *str;
        size_t n_sym, str_size;
        if (sh[i].sh_type != SHT_RELA)
            continue;
        if (sim_elf_symtab(d, sh, n_sh, (int)sh[i].sh_link, &sym, &n_sym, &str, &str_size, err, errlen) != 0)
            return -1;
        const Elf64_Rela *r = (const Elf64_Rela *)(d + sh[i].sh_offset);
        for (size_t k = 0; k < sh[i].sh_size / sizeof *r; k++) {
            size_t at = ELF64_R_SYM(r[k].r_info);
            if (at < n_sym && sym[at].st_name < str_size && strncmp(str + sym[at].st_name, prefix, strlen(prefix)) == 0)
                return 1;
        }
    }
    return 0;
}

int sim_elf_undefined(const char *obj, int tls, char *names, size_t cap, char *err, size_t errlen)
{
    unsigned char *d;
    size_t size;
    if (sim_elf_read(obj, &d, &size, err, errlen) != 0)
        return -1;
    int n = sim_elf_scan(d, size, tls, names, cap, err, errlen);
    free(d);
    return n;
}

int sim_elf_calls_volatile(const char *obj, char *err, size_t errlen)
{
    unsigned char *d;
    size_t size;
    if (sim_elf_read(obj, &d, &size, err, errlen) != 0)
        return -1;
    int found = sim_elf_refers(d, size, "__tsan_volatile_", err, errlen);
    free(d);
    return found;
}

long long sim_elf_tls_bytes(const char *obj, char *err, size_t errlen)
{
    unsigned char *d;
    size_t size;
    if (sim_elf_read(obj, &d, &size, err, errlen) != 0)
        return -1;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)d;
    long long tls = -1;
    if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phoff > size ||
        (size - eh->e_phoff) / sizeof(Elf64_Phdr) < eh->e_phnum) {
        snprintf(err, errlen, "%s: not a 64-bit ELF object with program headers", obj);
    } else {
        const Elf64_Phdr *ph = (const Elf64_Phdr *)(d + eh->e_phoff);
        tls = 0;
        for (int i = 0; i < eh->e_phnum; i++)
            if (ph[i].p_type == PT_TLS)
                tls = (long long)ph[i].p_memsz;
    }
    free(d);
    return tls;
}
