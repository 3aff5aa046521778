/* SPDX-License-Identifier: MIT */
/* sim_build.h: building kernel sources for the emulator: the steps of a build (sim_steps.c,
 * sim_link.c, clang's copies in sim_clang.c), run by make for the shipped kernels
 * (sim_kernel_main.c) and at run time for the rest (sim_build.c); reading what a build produced
 * (sim_elf.c) and naming what a failed one lacks (sim_why.c). The compiler, flags and paths
 * come from backend.mk as SIM_KERNEL_* and SIM_* definitions. */
#ifndef SIM_BUILD_H
#define SIM_BUILD_H

#include "sim_internal.h"

/* What is built from a source. */
struct sim_flavour {
    const struct hb_kernel_spec *s;
    int user;    /* a user's source: no -Werror, and a build failure is an error, not a skip */
    int wrapped; /* compiled around sim_wrap.cc: C++ names, templates, declared parameters */
    int port;    /* a CUDA source built for the wave64 port check (sim_prelude.h) */
    /* The entries its one compile wraps (sim_wrap.cc), s->entry among them: every sibling
     * (hb_kernel_spec.siblings) for a user's file, else s->entry alone. */
    int n_entries;
    const char *const *entries;
};

/* The -DSIM_WRAP_LIST word, every entry a compile wraps: a file whose siblings do not fit is
 * compiled per entry. */
#define SIM_WRAP_BYTES 16384
/* The most words of one compiler command. */
#define SIM_MAX_WORDS 80
/* The command that built a shipped kernel's copies with clang (sim_clang.c), for the report. */
#define SIM_KERNEL_CLANG_TOOL SIM_KERNEL_CLANG " " SIM_KERNEL_CLANG_FLAGS " " SIM_KERNEL_CLANG_TSAN

/* The files of one compile of a source, in its build's scratch folder: the preprocessed
 * source, its rewrites for g++, the objects and the compiler's logs. */
struct sim_files {
    char scratch[4200];
    char pre[4200], ii[4200], obj[4200], log[4200];
    char u_ii[4200], u_obj[4200], u_log[4200]; /* the unchecked copy's */
};
/* A scratch folder in dir (rtc_scratch_open) and new files' names in it. 0, or -1 with err. */
int sim_files_open(const char *dir, struct sim_files *t, char *err, size_t errlen);

/* The steps of a g++ build of f (sim_steps.c), each returning as rtc_run, the compiler's
 * output appended to t->log. Preprocess the source with the runtime header into t->pre (the
 * cache key's input), with deps (make's builds; else NULL) the headers it read written there
 * as make rules for target. */
int sim_preprocess(const struct sim_flavour *f, struct sim_files *t, const char *deps, const char *target, char *err,
                   size_t errlen);
/* Rewrite t->pre for g++ (sim_rewrite.c: launches, main, unroll pragmas...) and compile it,
 * instrumented, into t->obj. */
int sim_compile(const struct sim_flavour *f, struct sim_files *t, char *err, size_t errlen);
/* The unchecked copy's object t->u_obj: the same preprocessed source without the
 * instrumentation, its innermost accumulator loops left rolled for the vectorizer
 * (sim_unroll.h), the output appended to t->u_log. For an object that makes no volatile
 * access (sim_elf_calls_volatile): only the instrumentation makes those sync points. */
int sim_compile_unchecked(const struct sim_flavour *f, struct sim_files *t, char *err, size_t errlen);
/* pre rewritten for g++ into out (rolled: as the unchecked copy wants it). 0, or -1 with err. */
int sim_rewrite_file(const char *pre, const char *out, int rolled, char *err, size_t errlen);
/* The words that give a compile of f the emulator's headers: its include folders, the runtime
 * header (-include) and the port check's macro; their count (at most 5). */
int sim_prelude_argv(const struct sim_flavour *f, char **argv);

/* A shipped kernel's two objects built by clang from f's source (sim_clang.c), in t's scratch
 * folder, the compiler's output appended to t->log: obj checked, its access hooks inlined,
 * and, with unchecked, u_obj without them (else ""); len: each name's room. 0, or as rtc_run:
 * make then keeps g++'s copies. */
int sim_clang_objects(const struct sim_flavour *f, struct sim_files *t, int unchecked, char *obj, char *u_obj,
                      size_t len, char *err, size_t errlen);

/* A wrapped entry's exported names end in its tag: hex digits of the SHA-256 of the entry
 * as written, so the runtime finds it in a product compiled with its siblings. */
#define SIM_TAG_BYTES 17
void sim_entry_tag(const char *entry, char tag[SIM_TAG_BYTES]);

/* The compiled objects of a file (sim_build.c) that one entry's product is linked from. */
struct sim_objects {
    const char *scratch; /* the build's scratch folder, for the link's temporaries */
    const char *obj;     /* checked (instrumented) */
    const char *u_obj;   /* unchecked, or NULL when the file has none (volatile accesses) */
};
/* Links f's entry from o into path (sealed), its unchecked copy beside it when o has one.
 * Returns as rtc_run, or 2 when the entry's dynamic shared memory has no size (err says so). */
int sim_link_entry(const struct sim_flavour *f, const struct sim_objects *o, const char *path, char *err,
                   size_t errlen);
/* The link flags of f's products, for the cache key. */
const char *sim_link_flags(const struct sim_flavour *f);
/* Links obj, one copy of a shipped kernel f (make's builds: no version script), into out,
 * unsealed (make judges its products by their times), its temporaries in scratch and the
 * linker's output appended to log. As rtc_run. */
int sim_link_copy(const struct sim_flavour *f, const char *scratch, const char *obj, const char *out, const char *log,
                  char *err, size_t errlen);

/* Builds f into the run-time cache unless it is there; path receives the .so, log the kept
 * log of a build that warned (else ""), obj the compiled object of the file its product was
 * linked from. HB_OK, or a status with the message in c->err. A user's file that does not
 * compile with all its entries is compiled again for f's alone, so that each entry gets its
 * own verdict. */
int sim_build(struct hb_ctx *c, struct sim_flavour *f, char *path, size_t len, char *log, size_t loglen, char *obj,
              size_t objlen);
/* Where the unchecked copy of the product `so` (a path ending in .so) goes: 0, or -1. */
int sim_unchecked_path(const char *so, char *out, size_t len);
/* The compiler and flags that build f, for the report's account of the binary. */
void sim_build_tool(const struct sim_flavour *f, char *out, size_t len);

/* The undefined symbols of an ELF object, as consecutive NUL-terminated names: with tls, the
 * thread-local ones (its `extern __shared__` arrays); else the _ZTH init functions of such
 * `extern thread_local` names, which g++ may call unconditionally. Their count, or -1 with err. */
int sim_elf_undefined(const char *obj, int tls, char *names, size_t cap, char *err, size_t errlen);

/* The bytes of a linked ELF object's thread-local segment (its static and dynamic __shared__
 * memory), read from its program headers without loading it; -1 with err. */
long long sim_elf_tls_bytes(const char *obj, char *err, size_t errlen);

/* Whether the ELF object's code makes volatile accesses (calls a __tsan_volatile_ hook): 1
 * or 0, or -1 with err. */
int sim_elf_calls_volatile(const char *obj, char *err, size_t errlen);

/* The message for a failed build: the feature the emulator does not model when the log
 * shows one, else "does not build", with the first error line and the log's path. 1 when it
 * names such a feature (a SKIP), 0 when not (the source's own error). */
int sim_why(const struct sim_flavour *f, const char *log, const char *first, char *out, size_t len);
/* Whether a failed build ran out of room, and the message that leads with it: "no space left on
 * device in FOLDER (TMPDIR or the cache): FIRST (log: LOG)". Its log says so (No space left on
 * device, Disk quota exceeded), or it is empty while TMPDIR's or the cache's file system (the
 * log's folder) is full: the compiler could not even write its complaint. 0 when not. */
int sim_no_space(const char *log, const char *first, char *out, size_t len);
long long sim_file_size(const char *path);

#endif
