/* SPDX-License-Identifier: MIT */
/* sim_vec.h (part of sim_prelude.h): CUDA's vector types (char1 .. double4) with their
 * make_ functions and CUDA's sizes and alignments. A 2- or 4-wide type is one vector load or
 * store on a GPU, which faults when its address is not aligned to the type: copying one
 * checks that (sim_check_vec), so `reinterpret_cast<float4 *>(p + 1)[0]` is a fault here as
 * there. HIP's component-wise vector arithmetic is not offered. */
#ifndef SIM_VEC_H
#define SIM_VEC_H

/* Copies are not instrumented: the one check covers the whole vector. */
#define SIM_VEC_COPY __attribute__((no_sanitize_thread))

#define SIM_VEC1(n, T)                                                                                                 \
    struct n {                                                                                                         \
        T x;                                                                                                           \
    };                                                                                                                 \
    static inline n make_##n(T a) { return n{a}; }
#define SIM_VEC3(n, T)                                                                                                 \
    struct n {                                                                                                         \
        T x, y, z;                                                                                                     \
    };                                                                                                                 \
    static inline n make_##n(T a, T b, T c) { return n{a, b, c}; }
#define SIM_VEC2(n, T, A)                                                                                              \
    struct __attribute__((aligned(A))) n {                                                                             \
        T x, y;                                                                                                        \
        n() = default;                                                                                                 \
        constexpr n(T a, T b = T()) : x(a), y(b) {}                                                                    \
        SIM_VEC_COPY n(const n &o)                                                                                     \
        {                                                                                                              \
            sim_check_vec(&o, sizeof(n), A, 0);                                                                        \
            x = o.x, y = o.y;                                                                                          \
        }                                                                                                              \
        SIM_VEC_COPY n &operator=(const n &o)                                                                          \
        {                                                                                                              \
            sim_check_vec(this, sizeof(n), A, SIM_ACC_WRITE);                                                          \
            x = o.x, y = o.y;                                                                                          \
            return *this;                                                                                              \
        }                                                                                                              \
    };                                                                                                                 \
    static inline n make_##n(T a, T b) { return n(a, b); }
#define SIM_VEC4(n, T, A)                                                                                              \
    struct __attribute__((aligned(A))) n {                                                                             \
        T x, y, z, w;                                                                                                  \
        n() = default;                                                                                                 \
        constexpr n(T a, T b = T(), T c = T(), T d = T()) : x(a), y(b), z(c), w(d) {}                                  \
        SIM_VEC_COPY n(const n &o)                                                                                     \
        {                                                                                                              \
            sim_check_vec(&o, sizeof(n), A, 0);                                                                        \
            x = o.x, y = o.y, z = o.z, w = o.w;                                                                        \
        }                                                                                                              \
        SIM_VEC_COPY n &operator=(const n &o)                                                                          \
        {                                                                                                              \
            sim_check_vec(this, sizeof(n), A, SIM_ACC_WRITE);                                                          \
            x = o.x, y = o.y, z = o.z, w = o.w;                                                                        \
            return *this;                                                                                              \
        }                                                                                                              \
    };                                                                                                                 \
    static inline n make_##n(T a, T b, T c, T d) { return n(a, b, c, d); }

/* name, component type (one token), alignment of the 2- and 4-wide forms (CUDA's
 * vector_types.h) */
typedef signed char sim_schar;
typedef unsigned char sim_uchar;
typedef unsigned short sim_ushort;
typedef unsigned int sim_uint;
typedef unsigned long sim_ulong;
typedef long long sim_llong;
typedef unsigned long long sim_ullong;
#define SIM_VEC_ALL(n, T, A2, A4) SIM_VEC1(n##1, T) SIM_VEC2(n##2, T, A2) SIM_VEC3(n##3, T) SIM_VEC4(n##4, T, A4)
SIM_VEC_ALL(char, sim_schar, 2, 4)
SIM_VEC_ALL(uchar, sim_uchar, 2, 4)
SIM_VEC_ALL(short, short, 4, 8)
SIM_VEC_ALL(ushort, sim_ushort, 4, 8)
SIM_VEC_ALL(int, int, 8, 16)
/* uint3 is dim3's type, as threadIdx is one (sim_prelude.h). */
SIM_VEC1(uint1, sim_uint)
SIM_VEC2(uint2, sim_uint, 8)
SIM_VEC4(uint4, sim_uint, 16) static inline uint3 make_uint3(unsigned a, unsigned b, unsigned c)
{
    return uint3{a, b, c};
}
SIM_VEC_ALL(long, long, 16, 16)
SIM_VEC_ALL(ulong, sim_ulong, 16, 16)
SIM_VEC_ALL(longlong, sim_llong, 16, 16)
SIM_VEC_ALL(ulonglong, sim_ullong, 16, 16)
SIM_VEC_ALL(float, float, 8, 16)
SIM_VEC_ALL(double, double, 16, 16)

#endif
