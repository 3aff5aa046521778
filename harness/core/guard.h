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
 * into one (lavapipe, the emulator) changes the band's bits; GPUs write their own NaN. A
 * plain copy keeps the bits, so each buffer argument's bands carry their own variant
 * (grd_bits): a kernel that copies past one buffer's end into past another's (a transpose off
 * its grid) changes the band it writes, which one pattern for all would have hidden. */
#define GRD_BITS 0x7f80deadu
/* The bits of GRD_BITS that name the argument: 16 variants, then they repeat. */
#define GRD_ARG_BITS 0x00000f00u
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
/* The guard pattern of buffer argument `arg`: GRD_BITS (argument 0) with the argument's number
 * folded into GRD_ARG_BITS. */
uint32_t grd_bits(int arg);
/* Whether a NaN's payload (the low 22 bits, the quiet bit aside) is some band's pattern. */
int grd_is_band_payload(uint32_t payload);
/* Fills guards and padding with argument `arg`'s pattern; copies `data` in, or fills the data
 * with poison when NULL. */
void grd_fill(void *image, size_t data_bytes, const void *data, int arg);
/* 0 when the guards still hold argument `arg`'s pattern; else 1 and the first damaged byte's
 * offset from the data start (negative: before the data). */
int grd_check(const void *image, size_t data_bytes, int arg, long *offset);

#endif
