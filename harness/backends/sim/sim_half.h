/* SPDX-License-Identifier: MIT */
/* sim_half.h: half precision (cuda_fp16.h, hip/hip_fp16.h) on GCC's _Float16: __half, __half2,
 * conversions, operators, the __h* functions and half2 basics. Each operation computes in
 * float and rounds once to half: the correctly rounded result a GPU gives for +, -, *, / and
 * sqrt (float has over twice half's precision); __hfma rounds through double. Not offered:
 * rounding-mode variants other than _rn, half atomics. */
#ifndef SIM_HALF_H
#define SIM_HALF_H

#include "sim_prelude.h"

struct __half {
    _Float16 v;
    __half() = default;
    constexpr __half(float f) : v((_Float16)f) {}
    constexpr __half(double d) : v((_Float16)d) {}
    constexpr __half(int i) : v((_Float16)i) {}
    constexpr __half(unsigned u) : v((_Float16)u) {}
    constexpr operator float() const { return (float)v; }
};
typedef __half half;

struct __attribute__((aligned(4))) __half2 {
    __half x, y;
    __half2() = default;
    constexpr __half2(__half a, __half b) : x(a), y(b) {}
};
typedef __half2 half2;

static inline __half sim_h(float f) { return __half(f); }

#define SIM_HALF_BINOP(op)                                                                                             \
    static inline __half operator op(__half a, __half b) { return sim_h((float)a op(float) b); }                       \
    static inline __half &operator op##=(__half &a, __half b) { return a = a op b; }
SIM_HALF_BINOP(+)
SIM_HALF_BINOP(-)
SIM_HALF_BINOP(*)
SIM_HALF_BINOP(/)
static inline __half operator-(__half a)
{
    __half r;
    r.v = -a.v;
    return r;
}
#define SIM_HALF_CMP(op)                                                                                               \
    static inline bool operator op(__half a, __half b) { return (float)a op(float) b; }
SIM_HALF_CMP(==)
SIM_HALF_CMP(!=)
SIM_HALF_CMP(<)
SIM_HALF_CMP(<=)
SIM_HALF_CMP(>)
SIM_HALF_CMP(>=)

static inline __half __float2half(float f) { return __half(f); }
static inline __half __float2half_rn(float f) { return __half(f); }
static inline float __half2float(__half h) { return (float)h; }
static inline __half __int2half_rn(int i) { return __half(i); }
static inline int __half2int_rz(__half h) { return (int)(float)h; }
static inline __half __hadd(__half a, __half b) { return a + b; }
static inline __half __hsub(__half a, __half b) { return a - b; }
static inline __half __hmul(__half a, __half b) { return a * b; }
static inline __half __hdiv(__half a, __half b) { return a / b; }
static inline __half __hneg(__half a) { return -a; }
static inline __half __habs(__half a) { return sim_h(std::fabs((float)a)); }
static inline __half __hfma(__half a, __half b, __half c)
{
    return __half((double)(float)a * (double)(float)b + (double)(float)c);
}
static inline __half hsqrt(__half a) { return sim_h(std::sqrt((float)a)); }
static inline __half __hmax(__half a, __half b) { return a < b ? b : a; }
static inline __half __hmin(__half a, __half b) { return b < a ? b : a; }
static inline bool __heq(__half a, __half b) { return a == b; }
static inline bool __hne(__half a, __half b) { return a != b; }
static inline bool __hlt(__half a, __half b) { return a < b; }
static inline bool __hle(__half a, __half b) { return a <= b; }
static inline bool __hgt(__half a, __half b) { return a > b; }
static inline bool __hge(__half a, __half b) { return a >= b; }
static inline bool __hisnan(__half a) { return a.v != a.v; }

static inline __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
static inline __half2 make_half2(__half a, __half b) { return __half2(a, b); }
static inline __half2 __float2half2_rn(float f) { return __half2(__half(f), __half(f)); }
static inline __half2 __floats2half2_rn(float a, float b) { return __half2(__half(a), __half(b)); }
static inline float2 __half22float2(__half2 h) { return float2((float)h.x, (float)h.y); }
static inline __half __low2half(__half2 h) { return h.x; }
static inline __half __high2half(__half2 h) { return h.y; }
static inline float __low2float(__half2 h) { return (float)h.x; }
static inline float __high2float(__half2 h) { return (float)h.y; }
static inline __half2 __hadd2(__half2 a, __half2 b) { return __half2(a.x + b.x, a.y + b.y); }
static inline __half2 __hsub2(__half2 a, __half2 b) { return __half2(a.x - b.x, a.y - b.y); }
static inline __half2 __hmul2(__half2 a, __half2 b) { return __half2(a.x * b.x, a.y * b.y); }
static inline __half2 __hfma2(__half2 a, __half2 b, __half2 c)
{
    return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}

#endif
