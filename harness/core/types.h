/* SPDX-License-Identifier: MIT */
/* types.h: the element types a buffer may hold, as one table: size, what an element is as a
 * number, conversions (f16 and bf16 round to nearest even), ULP distance, formatting, and the
 * poison an output starts as. Buffers, references, comparisons and reports all ask here. It
 * knows nothing of kernels or cases. */
#ifndef HB_TYPES_H
#define HB_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* TY_F32 is 0: a zeroed layout is all float, as every op but custom is. */
enum hb_type { TY_F32, TY_F64, TY_F16, TY_BF16, TY_I32, TY_U32, TY_I64, TY_U64, TY_U8, TY_COUNT };

struct ty_info {
    const char *name; /* the manifest's word: "f32" */
    unsigned size;    /* bytes per element */
    int is_float, is_signed;
    const char *c_type; /* what a C reference is handed: f16 and bf16 arrive widened to float */
    unsigned c_size;    /* bytes of that */
    uint64_t poison;    /* an output element's bits before a launch: a NaN for floats, a value no
                           small arithmetic lands on for integers (an element still holding it
                           where the reference differs was never written) */
    uint64_t poison2;   /* the other poison, what a second run or a repeat launch starts from:
                           an integer output may rightly hold the first (u8's 0xa5 is 165), but
                           an element that holds each poison after a run from it was never
                           written */
};

const struct ty_info *ty_get(enum hb_type t);
/* 0 and the type for a manifest word, else -1. */
int ty_parse(const char *s, enum hb_type *out);
/* "f32 f64 f16 bf16 i32 u32 i64 u64 u8", for messages. */
const char *ty_names(void);

/* One element at p: its value (integers beyond 2^53 lose their last bits), its bits (zero
 * extended), whether it is a NaN or an infinity. */
double ty_value(enum hb_type t, const void *p);
uint64_t ty_bits(enum hb_type t, const void *p);
int ty_isnan(enum hb_type t, const void *p);
int ty_isinf(enum hb_type t, const void *p);
/* Stores v at p: floats rounded to nearest even (f16 and bf16 from v as a float), integers
 * from a whole v in range (outside it, the nearest end). */
void ty_store(enum hb_type t, void *p, double v);
/* Stores the low bytes of bits at p. */
void ty_store_bits(enum hb_type t, void *p, uint64_t bits);
/* n elements at p, each bits (an output's poison); the index of the first of n elements that
 * is bits, or n. */
void ty_fill_bits(enum hb_type t, void *p, uint64_t bits, size_t n);
size_t ty_find_bits(enum hb_type t, const void *p, uint64_t bits, size_t n);

/* ULP distance: floats as cmp_ulp counts them (+0 and -0 are 0 apart, two NaNs 0, a NaN and a
 * number UINT64_MAX), integers |a - b| (saturating). */
uint64_t ty_ulp(enum hb_type t, const void *a, const void *b);
/* Every digit the type holds: "%.9g" for f32, "%.17g" f64, whole numbers exact. */
void ty_format(enum hb_type t, const void *p, char *buf, size_t len);

/* n elements between the buffer's storage and what a C reference sees (f16, bf16: float;
 * every other type the same bytes). */
void ty_to_c(enum hb_type t, const void *src, void *dst, size_t n);
void ty_from_c(enum hb_type t, const void *src, void *dst, size_t n);

/* IEEE binary16 and bfloat16, round to nearest even (NaNs stay NaN, quieted). */
uint16_t ty_half_from_float(float f);
float ty_half_to_float(uint16_t h);
uint16_t ty_bf16_from_float(float f);
float ty_bf16_to_float(uint16_t h);

#endif
