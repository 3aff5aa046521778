/* SPDX-License-Identifier: MIT */
/* guard.h: guard bands and poison. Every buffer argument is laid out as
 *   [band][data, padded with guard bytes to a 4 KiB multiple][band]
 * (the band 4 KiB unless --guard-kib says more) and checked after each launch, so a write
 * past either end, within a band's reach, is caught with its offset; further out only the
 * emulator's exact access checks and compute-sanitizer see it. Outputs start as poison so
 * unwritten elements show; each launch gets a fresh upload of the whole image, so a repeat
 * starts from the same poison. */
#ifndef HB_GUARD_H
#define HB_GUARD_H

#include <stddef.h>
#include <stdint.h>

/* The default band and its granule: bands are whole pages. */
#define GRD_BYTES 4096u
#define GRD_MAX_BYTES (64u << 20)
/* A NaN bit pattern kernels do not produce, repeated through every guard. Signalling (quiet
 * bit clear): arithmetic on a CPU quiets it, so a value read from a band and written back
 * into one (lavapipe, the emulator) changes the band's bits; GPUs write their own NaN. */
#define GRD_BITS 0x7f80deadu
/* Written into outputs before a launch: a quiet NaN no arithmetic produces, so an element
 * still holding it was never written. */
#define GRD_POISON_BITS 0x7fa5a5a5u

/* The band before and after every buffer, for the whole process (workers inherit it): a
 * multiple of GRD_BYTES up to GRD_MAX_BYTES; 0 when it is not. */
int grd_set_band(size_t bytes);
size_t grd_band(void);
/* No band and no padding, for the whole process: every buffer's allocation is exactly its
 * data, so a tool that checks accesses against allocations (compute-sanitizer) sees every
 * access outside it. The bands then check nothing. */
void grd_set_exact(void);
/* Bytes of the whole image for `data_bytes` of data; the data starts at grd_band(). */
size_t grd_image_bytes(size_t data_bytes);
/* Fills guards and padding; copies `data` in, or fills the data with poison when NULL. */
void grd_fill(void *image, size_t data_bytes, const void *data);
/* 0 when intact; else 1 and the first damaged byte's offset from the data start
 * (negative: before the data). */
int grd_check(const void *image, size_t data_bytes, long *offset);

#endif
