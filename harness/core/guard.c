/* SPDX-License-Identifier: MIT */
/* guard.c: see guard.h. */
#include "guard.h"

#include <string.h>

static size_t band = GRD_BYTES;
static int exact;

int grd_set_band(size_t bytes)
{
    if (!bytes || bytes % GRD_BYTES || bytes > GRD_MAX_BYTES)
        return -1;
    band = bytes;
    return 0;
}

size_t grd_band(void) { return band; }

void grd_set_exact(void) { band = 0, exact = 1; }

static size_t padded(size_t data_bytes)
{
    return exact ? data_bytes : (data_bytes + GRD_BYTES - 1) / GRD_BYTES * GRD_BYTES;
}

size_t grd_image_bytes(size_t data_bytes) { return 2 * band + padded(data_bytes); }

static void fill_words(unsigned char *p, size_t bytes, uint32_t bits)
{
    /* Written bytewise from the pattern so any alignment or tail length works. */
    unsigned char w[4];
    memcpy(w, &bits, 4);
    for (size_t i = 0; i < bytes; i++)
        p[i] = w[i % 4];
}

static void grd_poison(void *image, size_t data_bytes)
{
    fill_words((unsigned char *)image + band, data_bytes, GRD_POISON_BITS);
}

uint32_t grd_bits(int arg) { return GRD_BITS ^ (((uint32_t)arg << 8) & GRD_ARG_BITS); }

int grd_is_band_payload(uint32_t payload)
{
    const uint32_t mask = 0x003fffffu & ~GRD_ARG_BITS;
    return (payload & mask) == (GRD_BITS & mask);
}

void grd_fill(void *image, size_t data_bytes, const void *data, int arg)
{
    unsigned char *p = image;
    size_t total = grd_image_bytes(data_bytes);
    fill_words(p, band, grd_bits(arg));
    if (data)
        memcpy(p + band, data, data_bytes);
    else
        grd_poison(image, data_bytes);
    /* The padding carries the guard pattern continued from the data's end, so its phase
     * matches what grd_check expects. */
    size_t tail = band + data_bytes;
    unsigned char w[4];
    uint32_t bits = grd_bits(arg);
    memcpy(w, &bits, 4);
    for (size_t i = tail; i < total; i++)
        p[i] = w[(i - tail) % 4];
}

int grd_check(const void *image, size_t data_bytes, int arg, long *offset)
{
    const unsigned char *p = image;
    unsigned char w[4];
    uint32_t bits = grd_bits(arg);
    memcpy(w, &bits, 4);
    for (size_t i = 0; i < band; i++)
        if (p[i] != w[i % 4]) {
            *offset = (long)i - (long)band;
            return 1;
        }
    size_t tail = band + data_bytes, total = grd_image_bytes(data_bytes);
    for (size_t i = tail; i < total; i++)
        if (p[i] != w[(i - tail) % 4]) {
            *offset = (long)(i - band);
            return 1;
        }
    return 0;
}
