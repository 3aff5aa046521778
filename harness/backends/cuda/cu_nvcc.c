/* SPDX-License-Identifier: MIT */
/* cu_nvcc.c: a user's CUDA source compiled by nvcc at run time into the cache (cu_nvcc.h). The
 * command is the one a user's build would give: -x cu (a .cuh or any other name is CUDA), a
 * cubin for the device's own architecture, -O3 -lineinfo. No CUDA API here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cu_nvcc.h"
#include "rtc.h"

const char *cu_nvcc_find(char *buf, size_t len)
{
    const char *home = getenv("CUDA_HOME");
    if (home && *home) {
        snprintf(buf, len, "%.1000s/bin/nvcc", home);
        if (access(buf, X_OK) == 0)
            return buf;
    }
    snprintf(buf, len, "%s/bin/nvcc", CU_CUDA_HOME);
    return access(buf, X_OK) == 0 ? buf : NULL;
}

/* nvcc's product of argv[0..n) (its wrapper for a template-id entry) into obj. As rtc_build. */
static int cu_nvcc_build(const struct hb_kernel_spec *spec, char **argv, int n, const char *obj, char *why,
                         size_t whylen)
{
    char unit[4200];
    if (rtc_wrapper(spec, obj, ".wrap.cu", unit, sizeof unit, why, whylen))
        return -1;
    argv[n++] = unit, argv[n++] = "-o", argv[n] = NULL, argv[n + 1] = NULL;
    int rc = rtc_build(argv, n, obj, why, whylen);
    if (strcmp(unit, spec->source_path))
        unlink(unit);
    return rc;
}

int cu_nvcc_compile(const struct hb_kernel_spec *spec, const char *nvcc, const char *sm, char *obj, size_t obj_len,
                    char *origin, size_t origin_len, char *err, size_t errlen)
{
    char arch[48], words[16384], *argv[CU_NVCC_WORDS], tool[4096], key[4500], why[1536];
    snprintf(arch, sizeof arch, "-arch=%.30s", sm);
    int n = 0;
    argv[n++] = (char *)nvcc;
    int user = rtc_user_flags(spec, words, sizeof words, argv + n, CU_NVCC_WORDS - 12);
    if (user < 0)
        return snprintf(err, errlen, "%s: too many includes and defines", spec->name), HB_ERROR;
    n += user;
    const char *fixed[] = {"-x", "cu", "-cubin", "-O3", "-lineinfo", arch};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        argv[n++] = (char *)fixed[i];
    rtc_join(argv, n, tool, sizeof tool);
    rtc_key(spec, argv, n, key, sizeof key);
    /* 1 cached, 0 to build, 2 the compiler's complaint while preprocessing, -1. */
    int rc = rtc_cache_lookup(spec, "cuda", argv, n, key, ".cubin", obj, obj_len, why, sizeof why);
    if (rc == 0 || rc == 1)
        rtc_describe(spec, obj, "built at run time", tool, origin, origin_len);
    if (rc == 0 && (rc = cu_nvcc_build(spec, argv, n, obj, why, sizeof why)) > 0)
        rc = 2;
    if (rc == 2)
        snprintf(err, errlen, "does not compile with nvcc (%s): %.1530s", sm, why);
    else if (rc < 0)
        snprintf(err, errlen, "run-time compile of %.400s: %.1530s", spec->source_path, why);
    return rc == 0 || rc == 1 ? HB_OK : HB_ERROR;
}
