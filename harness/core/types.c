/* SPDX-License-Identifier: MIT */
/* types.c: the element type table (types.h) and its conversions. Floats are handled through
 * their bits where the host has no type for them (f16, bf16); integers are exact through
 * int64_t and uint64_t. Nothing here allocates. */
#include "types.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Poisons: f32's is the harness's output poison (guard.h); the others carry its a5 pattern in
 * a NaN (floats) or in a value with the top bit clear (integers). The second poisons carry 5a
 * the same way; the floats' stay signalling NaNs, as the first are. */
static const struct ty_info ty_table[TY_COUNT] = {
    [TY_F32] = {"f32", 4, 1, 1, "float", 4, 0x7fa5a5a5u, 0x7f9a5a5au},
    [TY_F64] = {"f64", 8, 1, 1, "double", 8, 0x7ff5a5a5a5a5a5a5ull, 0x7ff65a5a5a5a5a5aull},
    [TY_F16] = {"f16", 2, 1, 1, "float", 4, 0x7da5u, 0x7c5au},
    [TY_BF16] = {"bf16", 2, 1, 1, "float", 4, 0x7fa5u, 0x7f9au},
    [TY_I32] = {"i32", 4, 0, 1, "int32_t", 4, 0x7fa5a5a5u, 0x7f5a5a5au},
    [TY_U32] = {"u32", 4, 0, 0, "uint32_t", 4, 0x7fa5a5a5u, 0x7f5a5a5au},
    [TY_I64] = {"i64", 8, 0, 1, "int64_t", 8, 0x7fa5a5a5a5a5a5a5ull, 0x7f5a5a5a5a5a5a5aull},
    [TY_U64] = {"u64", 8, 0, 0, "uint64_t", 8, 0x7fa5a5a5a5a5a5a5ull, 0x7f5a5a5a5a5a5a5aull},
    [TY_U8] = {"u8", 1, 0, 0, "uint8_t", 1, 0xa5u, 0x5au},
};

const struct ty_info *ty_get(enum hb_type t) { return t < TY_COUNT ? &ty_table[t] : &ty_table[TY_F32]; }

int ty_parse(const char *s, enum hb_type *out)
{
    for (int i = 0; i < TY_COUNT; i++)
        if (!strcmp(s, ty_table[i].name)) {
            *out = (enum hb_type)i;
            return 0;
        }
    return -1;
}

const char *ty_names(void) { return "f32 f64 f16 bf16 i32 u32 i64 u64 u8"; }

uint16_t ty_half_from_float(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint32_t sign = (x >> 16) & 0x8000u, exp = (x >> 23) & 0xffu, man = x & 0x7fffffu;
    if (exp == 0xff)
        return (uint16_t)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 0x1f)
        return (uint16_t)(sign | 0x7c00u);
    if (e < -10) /* below half the smallest subnormal, 2^-25 */
        return (uint16_t)sign;
    uint32_t m = e > 0 ? man : man | 0x800000u, shift = e > 0 ? 13u : (uint32_t)(14 - e);
    uint32_t h = (e > 0 ? (uint32_t)e << 10 : 0) | (m >> shift), rem = m & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (h & 1)))
        h++; /* a carry into the exponent is the right rounding, up to infinity */
    return (uint16_t)(sign | h);
}

float ty_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, x;
    if (exp == 0x1f)
        x = sign | 0x7f800000u | (man << 13);
    else if (exp)
        x = sign | ((exp + 112) << 23) | (man << 13);
    else
        return (sign ? -1.0f : 1.0f) * (float)man * 0x1p-24f; /* zero and subnormals */
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

uint16_t ty_bf16_from_float(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    if (isnan(f))
        return (uint16_t)((x >> 16) | 0x40u);
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

float ty_bf16_to_float(uint16_t h)
{
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

/* Each size its own fixed-length copy: these run per element of outputs of up to 2^31, where a
 * variable-length memcpy is a library call. Little-endian hosts only, as every backend here. */
uint64_t ty_bits(enum hb_type t, const void *p)
{
    uint8_t b1;
    uint16_t b2;
    uint32_t b4;
    uint64_t b8;
    switch (ty_get(t)->size) {
    case 1: return memcpy(&b1, p, 1), b1;
    case 2: return memcpy(&b2, p, 2), b2;
    case 4: return memcpy(&b4, p, 4), b4;
    default: return memcpy(&b8, p, 8), b8;
    }
}

void ty_store_bits(enum hb_type t, void *p, uint64_t bits)
{
    uint8_t b1 = (uint8_t)bits;
    uint16_t b2 = (uint16_t)bits;
    uint32_t b4 = (uint32_t)bits;
    switch (ty_get(t)->size) {
    case 1: memcpy(p, &b1, 1); return;
    case 2: memcpy(p, &b2, 2); return;
    case 4: memcpy(p, &b4, 4); return;
    default: memcpy(p, &bits, 8); return;
    }
}

void ty_fill_bits(enum hb_type t, void *p, uint64_t bits, size_t n)
{
    size_t size = ty_get(t)->size;
    if (n)
        ty_store_bits(t, p, bits);
    /* Doubling copies: memcpy's speed, whatever the element's size. */
    for (size_t done = 1; done < n; done *= 2)
        memcpy((char *)p + done * size, p, (done * 2 <= n ? done : n - done) * size);
}

size_t ty_find_bits(enum hb_type t, const void *p, uint64_t bits, size_t n)
{
    size_t size = ty_get(t)->size;
    for (size_t e = 0; e < n; e++)
        if (ty_bits(t, (const char *)p + e * size) == bits)
            return e;
    return n;
}

double ty_value(enum hb_type t, const void *p)
{
    float f;
    double d;
    switch (t) {
    case TY_F32: return memcpy(&f, p, 4), f;
    case TY_F64: return memcpy(&d, p, 8), d;
    case TY_F16: return ty_half_to_float((uint16_t)ty_bits(t, p));
    case TY_BF16: return ty_bf16_to_float((uint16_t)ty_bits(t, p));
    case TY_I32: return (double)(int32_t)(uint32_t)ty_bits(t, p);
    case TY_I64: return (double)(int64_t)ty_bits(t, p);
    default: return (double)ty_bits(t, p);
    }
}

int ty_isnan(enum hb_type t, const void *p) { return ty_get(t)->is_float && isnan(ty_value(t, p)); }
int ty_isinf(enum hb_type t, const void *p) { return ty_get(t)->is_float && isinf(ty_value(t, p)); }

/* A whole v clamped into [lo, hi]: casts of out-of-range doubles are undefined. */
static double ty_clamp(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

void ty_store(enum hb_type t, void *p, double v)
{
    float f = (float)v;
    uint16_t h;
    switch (t) {
    case TY_F32: memcpy(p, &f, 4); return;
    case TY_F64: memcpy(p, &v, 8); return;
    case TY_F16: h = ty_half_from_float(f), memcpy(p, &h, 2); return;
    case TY_BF16: h = ty_bf16_from_float(f), memcpy(p, &h, 2); return;
    default: break;
    }
    v = isnan(v) ? 0 : trunc(v);
    if (ty_get(t)->is_signed) {
        int64_t s = v >= 0x1p63 ? INT64_MAX : (int64_t)ty_clamp(v, -0x1p63, 0x1p63);
        s = t == TY_I32 ? (int64_t)ty_clamp((double)s, INT32_MIN, INT32_MAX) : s;
        ty_store_bits(t, p, (uint64_t)s);
        return;
    }
    double top = t == TY_U8 ? 255.0 : t == TY_U32 ? 4294967295.0 : 0x1p64;
    uint64_t u = v >= 0x1p64 ? UINT64_MAX : (uint64_t)ty_clamp(v, 0, top);
    ty_store_bits(t, p, u);
}

/* A float's bits as a number that orders like the value (sign-magnitude to two's complement). */
static int64_t ty_ordered(enum hb_type t, const void *p)
{
    unsigned bits = ty_get(t)->size * 8;
    uint64_t b = ty_bits(t, p), sign = 1ull << (bits - 1);
    return (b & sign) ? -(int64_t)(b & (sign - 1)) : (int64_t)b;
}

uint64_t ty_ulp(enum hb_type t, const void *a, const void *b)
{
    if (t == TY_F32) { /* the common case, per element of every SGEMM: no detour through double */
        float x, y;
        memcpy(&x, a, sizeof x), memcpy(&y, b, sizeof y);
        if (isnan(x) || isnan(y))
            return isnan(x) && isnan(y) ? 0 : UINT64_MAX;
        int64_t d = ty_ordered(t, a) - ty_ordered(t, b);
        return d < 0 ? (uint64_t)-d : (uint64_t)d;
    }
    if (ty_get(t)->is_float) {
        int na = ty_isnan(t, a), nb = ty_isnan(t, b);
        if (na || nb)
            return na && nb ? 0 : UINT64_MAX;
        int64_t x = ty_ordered(t, a), y = ty_ordered(t, b);
        /* Unsigned: two f64s of opposite signs may be up to 2^64 - 2 apart. */
        return x >= y ? (uint64_t)x - (uint64_t)y : (uint64_t)y - (uint64_t)x;
    }
    if (ty_get(t)->is_signed) {
        unsigned bits = ty_get(t)->size * 8;
        int64_t x = (int64_t)(ty_bits(t, a) << (64 - bits)) >> (64 - bits);
        int64_t y = (int64_t)(ty_bits(t, b) << (64 - bits)) >> (64 - bits);
        return x >= y ? (uint64_t)x - (uint64_t)y : (uint64_t)y - (uint64_t)x;
    }
    uint64_t x = ty_bits(t, a), y = ty_bits(t, b);
    return x >= y ? x - y : y - x;
}

void ty_format(enum hb_type t, const void *p, char *buf, size_t len)
{
    static const int digits[TY_COUNT] = {[TY_F32] = 9, [TY_F64] = 17, [TY_F16] = 5, [TY_BF16] = 4};
    if (ty_get(t)->is_float)
        snprintf(buf, len, "%.*g", digits[t], ty_value(t, p));
    else if (ty_get(t)->is_signed)
        snprintf(buf, len, "%" PRId64, t == TY_I32 ? (int64_t)(int32_t)ty_bits(t, p) : (int64_t)ty_bits(t, p));
    else
        snprintf(buf, len, "%" PRIu64, ty_bits(t, p));
}

void ty_to_c(enum hb_type t, const void *src, void *dst, size_t n)
{
    if (t != TY_F16 && t != TY_BF16) {
        memcpy(dst, src, n * ty_get(t)->size);
        return;
    }
    const uint16_t *s = src;
    float *d = dst;
    for (size_t i = 0; i < n; i++)
        d[i] = t == TY_F16 ? ty_half_to_float(s[i]) : ty_bf16_to_float(s[i]);
}

void ty_from_c(enum hb_type t, const void *src, void *dst, size_t n)
{
    if (t != TY_F16 && t != TY_BF16) {
        memcpy(dst, src, n * ty_get(t)->size);
        return;
    }
    const float *s = src;
    uint16_t *d = dst;
    for (size_t i = 0; i < n; i++)
        d[i] = t == TY_F16 ? ty_half_from_float(s[i]) : ty_bf16_from_float(s[i]);
}
