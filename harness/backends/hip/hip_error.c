/* SPDX-License-Identifier: MIT */
/* hip_error.c: one wording for every HIP failure (the call, then the error) and for a machine
 * with no HIP device, naming the likely cause per platform. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>

#include "backend.h"
#include "hip_error.h"

void hip_fmt(char *dst, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, len, fmt, ap);
    va_end(ap);
}

/* "hipErrorX (text)": HIP 5.2's hipGetErrorString often returns the name again,
 * and saying it twice helps nobody. */
const char *hip_errtext(hipError_t e, char *buf, size_t len)
{
    const char *name = hipGetErrorName(e), *text = hipGetErrorString(e);
    if (strcmp(name, text) == 0)
        hip_fmt(buf, len, "%s", name);
    else
        hip_fmt(buf, len, "%s (%s)", name, text);
    return buf;
}

/* Every failing HIP call is reported the same way: the call, then the error. */
int hip_fail(char *dst, size_t len, const char *call, hipError_t e)
{
    char t[160];
    hip_fmt(dst, len, "%s: %s", call, hip_errtext(e, t, sizeof t));
    return HB_ERROR;
}

/* On NVIDIA, no driver at all (InsufficientDriver) is no device too, as for the CUDA backend. */
int hip_is_no_device(hipError_t e)
{
#ifdef __HIP_PLATFORM_NVIDIA__
    return e == hipErrorNoDevice || e == hipErrorInsufficientDriver;
#else
    return e == hipErrorNoDevice;
#endif
}

/* The no-device message names the likely cause: ROCm needs the amdgpu kernel driver's
 * /dev/kfd, which a machine without an AMD GPU (or a container not given it) lacks; CUDA
 * needs the NVIDIA driver's libcuda.so.1, at least as new as the runtime. */
void hip_no_device(char *dst, size_t len, hipError_t e)
{
    char t[160];
#ifdef __HIP_PLATFORM_NVIDIA__
    hip_fmt(dst, len, "no HIP device (nvidia platform): %s from hipGetDeviceCount (%s)", hip_errtext(e, t, sizeof t),
            e == hipErrorInsufficientDriver ? "no NVIDIA driver, or one older than the runtime"
                                            : "the NVIDIA driver sees no GPU");
#else
    hip_fmt(dst, len, "no HIP device: %s from hipGetDeviceCount (%s)", hip_errtext(e, t, sizeof t),
            access("/dev/kfd", R_OK | W_OK) == 0 ? "/dev/kfd is present: no supported GPU agent"
                                                 : "/dev/kfd missing or not accessible");
#endif
}
