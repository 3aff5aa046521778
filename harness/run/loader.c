/* SPDX-License-Identifier: MIT */
/* loader.c: see loader.h. */
#include "loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int cmp_names(const void *a, const void *b) { return strcmp(a, b); }

int ldr_known(char names[LDR_MAX][16])
{
    char *dir = path_join(path_root_dir(), "harness/backends");
    DIR *d = opendir(dir);
    int n = 0;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) && n < LDR_MAX) {
            if (e->d_name[0] == '.' || strlen(e->d_name) >= 16)
                continue;
            /* A backend is a folder with a backend.mk; shared helpers (common/) have none. */
            char *sub = path_join(dir, e->d_name), *mk = path_join(sub, "backend.mk");
            struct stat st;
            if (!stat(mk, &st) && S_ISREG(st.st_mode))
                snprintf(names[n++], 16, "%s", e->d_name);
            free(sub);
            free(mk);
        }
        closedir(d);
    }
    free(dir);
    qsort(names, (size_t)n, 16, cmp_names);
    return n;
}

int ldr_is_known(const char *name)
{
    char names[LDR_MAX][16];
    int n = ldr_known(names);
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], name))
            return 1;
    return 0;
}

int ldr_check_known(const char *name, struct hb_err *err)
{
    char names[LDR_MAX][16], list[LDR_MAX * 18] = "";
    int n = ldr_known(names);
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        if (!strcmp(names[i], name))
            return 0;
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", names[i]);
    }
    if (n) {
        err_set(err, "unknown backend '%s' (known: %s)", name, list);
        return -1;
    }
    struct hb_err where = {{0}};
    ldr_check_any(&where);
    err_set(err, "unknown backend '%s': %s", name, where.msg);
    return -1;
}

int ldr_check_any(struct hb_err *err)
{
    char names[LDR_MAX][16];
    if (ldr_known(names))
        return 0;
    /* No backend at all: the data folder is the mistake, and the variable that put it there. */
    const char *root = getenv("HB_ROOT"), *build = getenv("HB_BUILD_DIR");
    err_set(err, "%s/harness/backends holds no backend (a folder with a backend.mk)%s", path_root_dir(),
            root && *root     ? ": is HB_ROOT right?"
            : build && *build ? ": is HB_BUILD_DIR right? (the data folder is its parent)"
                              : "");
    return -1;
}

static void so_path(const char *name, char *out, size_t len)
{
    snprintf(out, len, "%s/backends/hb_%s.so", path_exe_dir(), name);
}

int ldr_is_built(const char *name)
{
    char path[PATH_MAX];
    so_path(name, path, sizeof path);
    return access(path, R_OK) == 0;
}

/* The bytes of struct hb_backend that a backend of this ABI fills: fields are only ever
 * appended, so an older table is a prefix of today's. ABIs 7 and 9 appended to hb_kernel_spec
 * only. */
static size_t ldr_table_bytes(int abi)
{
    if (abi < 2)
        return offsetof(struct hb_backend, platform);
    if (abi < 3)
        return offsetof(struct hb_backend, host_alloc);
    if (abi < 4)
        return offsetof(struct hb_backend, upload_many);
    if (abi < 6)
        return offsetof(struct hb_backend, caps);
    if (abi < 8)
        return offsetof(struct hb_backend, prepare);
    return sizeof(struct hb_backend);
}

/* Capabilities of the in-tree backends built before ABI 6 said them: the one place that
 * knows backends by name. */
static unsigned ldr_caps_by_name(const char *name)
{
    if (!strcmp(name, "sim"))
        return HB_CAP_IN_PROCESS;
    return !strcmp(name, "cuda") || !strcmp(name, "hip") ? HB_CAP_RAW_POINTERS : 0;
}

const struct hb_backend *ldr_upgrade(const struct hb_backend *be)
{
    if (be->abi >= HB_BACKEND_ABI)
        return be;
    static struct hb_backend upgraded;
    memset(&upgraded, 0, sizeof upgraded);
    memcpy(&upgraded, be, ldr_table_bytes(be->abi));
    if (be->abi < 6) /* an ABI 6 table says its own */
        upgraded.caps = ldr_caps_by_name(be->name ? be->name : "");
    return &upgraded;
}

const struct hb_backend *ldr_open(const char *name, struct hb_err *err)
{
    char path[PATH_MAX];
    so_path(name, path, sizeof path);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        err_set(err, "backend %s: dlopen: %s", name, dlerror());
        return NULL;
    }
    const struct hb_backend *(*entry)(void) = (const struct hb_backend *(*)(void))dlsym(h, "hb_backend_entry");
    if (!entry) {
        err_set(err, "backend %s: %s has no hb_backend_entry", name, path);
        return NULL;
    }
    const struct hb_backend *be = entry();
    if (!be || be->abi < HB_BACKEND_ABI_MIN) {
        err_set(err, "backend %s: ABI %d, harness needs at least %d", name, be ? be->abi : -1, HB_BACKEND_ABI_MIN);
        return NULL;
    }
    return ldr_upgrade(be);
}
