/* SPDX-License-Identifier: MIT */
/* hip_rtc.c: the run-time compile of a HIP source with no current product (a user's own
 * kernel) for the device's target, the symbol its entry as written names, and the line naming
 * the binary that runs: hipcc --genco on AMD; on NVIDIA nvcc, as make builds the shipped
 * kernels, through the HIP headers and CUDA 13 overlay make copied into <build>/hip-nv (a GPU
 * machine needs no HIP install). Not hiprtc: on NVIDIA that is NVRTC, which cannot read HIP
 * 5.2's headers (stdio.h, cuda.h); C++ names are found in the code object instead
 * (code_object.c). Caching, spawning, logs: rtc.c. No HIP calls. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "code_object.h"
#include "hip_rtc.h"
#include "rtc.h"

#define HIP_RTC_MAX_ARGS 56
#define HIP_RTC_USER 32 /* -I and -D words of a manifest's includes and defines */

struct hip_cmd {
    char tool[PATH_MAX], target[64], inc[2][PATH_MAX + 16], user[16384];
    char *argv[HIP_RTC_MAX_ARGS];
    int argc, out; /* out: the argv slot rtc_build fills with the output path */
};

/* The source's own include folders and macros, right after the compiler's name. */
static int hip_rtc_user(const struct hb_kernel_spec *spec, struct hip_cmd *c, char *err, size_t errlen)
{
    int n = rtc_user_flags(spec, c->user, sizeof c->user, c->argv + c->argc, HIP_RTC_USER);
    if (n < 0) {
        snprintf(err, errlen, "%s: too many includes and defines", spec->name);
        return -1;
    }
    c->argc += n;
    return 0;
}

static void hip_rtc_arg(struct hip_cmd *c, const char *word) { c->argv[c->argc++] = (char *)word; }

#ifdef __HIP_PLATFORM_NVIDIA__
/* nvcc from $CUDA_HOME, else the toolkit make used (HIP_NV_CUDA_HOME), else PATH: a cubin, so
 * its kernels' symbols can be read (code_object.c). hipcc's implicit hip_runtime.h is made
 * explicit; the overlay comes first, HIP's headers after it. */
static int hip_rtc_command(const struct hb_kernel_spec *spec, const char *arch, struct hip_cmd *c, char *err,
                           size_t errlen)
{
    const char *home = getenv("CUDA_HOME"), *build = spec->build_dir ? spec->build_dir : ".";
    snprintf(c->tool, sizeof c->tool, "%.4000s/bin/nvcc", home && *home ? home : HIP_NV_CUDA_HOME);
    if (access(c->tool, X_OK) != 0)
        snprintf(c->tool, sizeof c->tool, "nvcc");
    char probe[PATH_MAX + 64];
    snprintf(probe, sizeof probe, "%.4000s/hip-nv/include/hip/hip_runtime.h", build);
    if (access(probe, R_OK) != 0) {
        snprintf(err, errlen,
                 "no HIP headers at %.300s/hip-nv (make copies them there for the "
                 "nvidia platform; carry that folder with the build)",
                 build);
        return -1;
    }
    snprintf(c->target, sizeof c->target, "-arch=%s", arch);
    snprintf(c->inc[0], sizeof c->inc[0], "-I%.4000s/hip-nv/compat", build);
    snprintf(c->inc[1], sizeof c->inc[1], "%.4000s/hip-nv/include", build);
    hip_rtc_arg(c, c->tool);
    if (hip_rtc_user(spec, c, err, errlen))
        return -1;
    const char *words[] = {"-x",      "cu",        "-cubin",   c->target,
                           "-O3",     "-lineinfo", "-include", "hip/hip_runtime.h",
                           c->inc[0], "-isystem",  c->inc[1]};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        hip_rtc_arg(c, words[i]);
    return 0;
}
#else
/* hipcc from $HIPCC, else the one make used (HIP_HIPCC), for this one target. */
static int hip_rtc_command(const struct hb_kernel_spec *spec, const char *arch, struct hip_cmd *c, char *err,
                           size_t errlen)
{
    const char *hipcc = getenv("HIPCC");
    snprintf(c->tool, sizeof c->tool, "%s", hipcc && *hipcc ? hipcc : HIP_HIPCC);
    snprintf(c->target, sizeof c->target, "--offload-arch=%s", arch);
    hip_rtc_arg(c, c->tool);
    if (hip_rtc_user(spec, c, err, errlen))
        return -1;
    hip_rtc_arg(c, "--genco");
    hip_rtc_arg(c, c->target);
    hip_rtc_arg(c, "-O3");
    return 0;
}
#endif

/* Builds c's product (its wrapper for a template-id entry) into path. As rtc_build, 2 for
 * the compiler's complaint. */
static int hip_rtc_build(const struct hb_kernel_spec *spec, struct hip_cmd *c, const char *path, char *why,
                         size_t whylen)
{
    char unit[PATH_MAX + 64];
    if (rtc_wrapper(spec, path, HIP_WRAP_EXT, unit, sizeof unit, why, whylen) != 0)
        return -1;
    hip_rtc_arg(c, unit);
    hip_rtc_arg(c, "-o");
    c->out = c->argc;
    hip_rtc_arg(c, NULL); /* the output, filled by rtc_build */
    hip_rtc_arg(c, NULL); /* argv's end */
    int rc = rtc_build(c->argv, c->out, path, why, whylen);
    if (strcmp(unit, spec->source_path) != 0)
        unlink(unit);
    return rc > 0 ? 2 : rc;
}

int hip_rtc_compile(const struct hb_kernel_spec *spec, const char *arch, char *path, size_t len, char *err,
                    size_t errlen)
{
    int missing = spec->user ? HB_ERROR : HB_UNSUPPORTED;
    struct hip_cmd c;
    memset(&c, 0, sizeof c);
    if (hip_rtc_command(spec, arch, &c, err, errlen) != 0)
        return missing;
    if (!rtc_have(c.tool)) {
        snprintf(err, errlen, "%.300s not found (set %s): cannot compile %.300s at run time", c.tool,
                 HIP_PLATFORM_NAME ? "CUDA_HOME" : "HIPCC", spec->source_path);
        return missing;
    }
    char key[4 * PATH_MAX + 1200], why[400];
    rtc_key(spec, c.argv, c.argc, key, sizeof key);
    /* 1 cached, 0 to build, 2 the compiler's complaint (preprocessing or compiling), -1. */
    int rc = rtc_cache_lookup(spec, HIP_PRODUCT_DIR, c.argv, c.argc, key, HIP_RTC_EXT, path, len, why, sizeof why);
    if (rc == 0)
        rc = hip_rtc_build(spec, &c, path, why, sizeof why);
    if (rc == 2)
        snprintf(err, errlen, "%s for %s does not compile: %s", c.tool, arch, why);
    else if (rc < 0)
        snprintf(err, errlen, "run-time compile of %.200s: %s", spec->source_path, why);
    return rc == 0 || rc == 1 ? HB_OK : HB_ERROR;
}

int hip_rtc_symbol(const char *entry, const char *path, char *symbol, size_t len, char *held, size_t heldlen)
{
    static struct co_list kernels; /* 16 KiB: off the stack of the backend's caller */
    char err[300];
    held[0] = '\0';
    return co_kernels(path, &kernels, err, sizeof err) == 0 && co_find(&kernels, entry, symbol, len, held, heldlen);
}

void hip_rtc_origin(const struct hb_kernel_spec *spec, const char *path, const char *arch, char *out, size_t len)
{
    struct hip_cmd c;
    memset(&c, 0, sizeof c);
    char err[256], tool[4 * PATH_MAX] = "";
    if (!arch) {
        snprintf(tool, sizeof tool, "%s (backend.mk)", HIP_PLATFORM_NAME ? "nvcc" : "hipcc --genco");
    } else if (hip_rtc_command(spec, arch, &c, err, sizeof err) == 0) {
        for (int i = 0; i < c.argc; i++)
            snprintf(tool + strlen(tool), sizeof tool - strlen(tool), "%s%s", i ? " " : "", c.argv[i]);
    }
    rtc_describe(spec, path, arch ? "built at run time" : "built by make", tool, out, len);
}
