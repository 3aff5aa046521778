/* SPDX-License-Identifier: MIT */
/* hip_error.h: how the HIP backend words its errors (hip_error.c). */
#ifndef HB_HIP_ERROR_H
#define HB_HIP_ERROR_H

#include <stddef.h>

#include <hip/hip_runtime_api.h>

/* snprintf into dst, for messages built in several places. */
void hip_fmt(char *dst, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* "hipErrorX (text)" in buf, the name once where the text only repeats it; returns buf. */
const char *hip_errtext(hipError_t e, char *buf, size_t len);

/* "call: hipErrorX (text)" in dst; returns HB_ERROR. */
int hip_fail(char *dst, size_t len, const char *call, hipError_t e);

/* Whether e means there is no device to use (no driver, on NVIDIA, counts as none). */
int hip_is_no_device(hipError_t e);

/* The no-device message, with the likely cause on this platform. */
void hip_no_device(char *dst, size_t len, hipError_t e);

#endif
