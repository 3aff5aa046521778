/* SPDX-License-Identifier: MIT */
/* sha256.h: SHA-256 (FIPS 180-4) for the run-time compile cache: the name of a product is
 * the digest of everything its build read, and a product's digest is checked before it is
 * loaded. Our own small implementation; the backends link no crypto library. */
#ifndef HB_SHA256_H
#define HB_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_BYTES 32
#define SHA256_HEX (2 * SHA256_BYTES + 1)

struct sha256 {
    uint32_t h[8];
    uint64_t bytes;          /* message length so far */
    unsigned char block[64]; /* the part of a block not yet compressed */
    size_t used;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t n);
void sha256_final(struct sha256 *s, unsigned char out[SHA256_BYTES]);
/* The digest as 64 lower-case hex digits and a NUL. */
void sha256_hex(const unsigned char d[SHA256_BYTES], char out[SHA256_HEX]);
/* Folds a regular file's bytes into s: 0, or -1 with err (missing, not a regular file,
 * unreadable). */
int sha256_file(struct sha256 *s, const char *path, char *err, size_t errlen);

#endif
