/* SPDX-License-Identifier: MIT */
/* sim_math.h (part of sim_prelude.h): CUDA's and HIP's arithmetic intrinsics that glibc's
 * <cmath> does not already provide, the fast ones computed exactly (their tolerances allow
 * it), plus bit casts, min/max and __ldg. __expf, __logf, __sinf, __cosf and __powf come
 * from glibc's math.h, which owns those names (its functions are the precise ones). */
#ifndef SIM_MATH_H
#define SIM_MATH_H

static inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
static inline float __fdividef(float a, float b) { return a / b; }
static inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline float __frcp_rn(float a) { return 1.0f / a; }
static inline float __fsqrt_rn(float a) { return std::sqrt(a); }
static inline float __saturatef(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }

template <typename To, typename From>
static inline To sim_bitcast(From v)
{
    static_assert(sizeof(To) == sizeof(From), "sim: bit cast between types of different sizes");
    To t;
    std::memcpy(&t, &v, sizeof t);
    return t;
}
static inline float __int_as_float(int x) { return sim_bitcast<float>(x); }
static inline int __float_as_int(float x) { return sim_bitcast<int>(x); }
static inline float __uint_as_float(unsigned x) { return sim_bitcast<float>(x); }
static inline unsigned __float_as_uint(float x) { return sim_bitcast<unsigned>(x); }
static inline double __longlong_as_double(long long x) { return sim_bitcast<double>(x); }
static inline long long __double_as_longlong(double x) { return sim_bitcast<long long>(x); }
static inline int __mul24(int a, int b)
{
    return (int)((long long)((int)((unsigned)a << 8) >> 8) * ((int)((unsigned)b << 8) >> 8));
}
static inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
static inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
static inline long long clock64(void)
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* CUDA's min/max accept mixed operand types and use the usual arithmetic conversions. */
template <typename A, typename B>
static inline typename std::common_type<A, B>::type min(A a, B b)
{
    typedef typename std::common_type<A, B>::type C;
    return (C)b < (C)a ? (C)b : (C)a;
}
template <typename A, typename B>
static inline typename std::common_type<A, B>::type max(A a, B b)
{
    typedef typename std::common_type<A, B>::type C;
    return (C)a < (C)b ? (C)b : (C)a;
}

/* The read-only data cache load: an ordinary (checked) load here. */
template <typename T>
static inline T __ldg(const T *p)
{
    return *p;
}

#endif
