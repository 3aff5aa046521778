/* guard.h: guard bands and poison. Every buffer argument is laid out as
 *   [4096-byte guard][data, padded with guard bytes to a 4096 multiple][4096-byte guard]
 * and checked after each launch, so a write past either end is caught with its offset.
 * Outputs start as poison so unwritten elements show; each launch gets a fresh upload of
 * the whole image, so a repeat starts from the same poison. */
#ifndef HB_GUARD_H
#define HB_GUARD_H

#include <stddef.h>
#include <stdint.h>

#define GRD_BYTES 4096u
/* A NaN bit pattern kernels do not produce, repeated through every guard. */
#define GRD_BITS 0x7fc0deadu
/* Written into outputs before a launch: a quiet NaN no arithmetic produces, so an element
 * still holding it was never written. */
#define GRD_POISON_BITS 0x7fa5a5a5u

/* Bytes of the whole image for `data_bytes` of data; the data starts at GRD_BYTES. */
size_t grd_image_bytes(size_t data_bytes);
/* Fills guards and padding; copies `data` in, or fills the data with poison when NULL. */
void grd_fill(void *image, size_t data_bytes, const void *data);
/* 0 when intact; else 1 and the first damaged byte's offset from the data start
 * (negative: before the data). */
int grd_check(const void *image, size_t data_bytes, long *offset);

#endif
