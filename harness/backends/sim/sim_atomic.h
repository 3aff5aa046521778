/* SPDX-License-Identifier: MIT */
/* sim_atomic.h (part of sim_prelude.h): CUDA's and HIP's device atomics on 32- and 64-bit
 * integers, float and double. Blocks run on several workers, so they are real atomics (a
 * compare-and-swap loop on the value's bits), kept out of the instrumentation, which would
 * otherwise want TSan's atomic hooks; each checks its address like any access. The _block
 * and _system scopes and 16-bit atomics are not offered. */
#ifndef SIM_ATOMIC_H
#define SIM_ATOMIC_H

enum {
    SIM_AT_ADD,
    SIM_AT_SUB,
    SIM_AT_EXCH,
    SIM_AT_MIN,
    SIM_AT_MAX,
    SIM_AT_AND,
    SIM_AT_OR,
    SIM_AT_XOR,
    SIM_AT_INC,
    SIM_AT_DEC
};

template <typename T>
static inline SIM_NO_TSAN T sim_at_apply(int op, T old, T v)
{
    switch (op) {
    case SIM_AT_ADD: return old + v;
    case SIM_AT_SUB: return old - v;
    case SIM_AT_MIN: return v < old ? v : old;
    case SIM_AT_MAX: return old < v ? v : old;
    default: break;
    }
    if constexpr (std::is_integral<T>::value) {
        switch (op) {
        case SIM_AT_AND: return old & v;
        case SIM_AT_OR: return old | v;
        case SIM_AT_XOR: return old ^ v;
        case SIM_AT_INC: return old >= v ? 0 : old + 1; /* CUDA's wrapping atomicInc */
        case SIM_AT_DEC: return old == 0 || old > v ? v : old - 1;
        default: break;
        }
    }
    return v; /* exchange */
}

template <typename T>
static inline SIM_NO_TSAN T sim_atomic(T *p, int op, T v)
{
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "sim: atomics on 4- and 8-byte types only");
    typedef typename std::conditional<sizeof(T) == 4, uint32_t, uint64_t>::type U;
    sim_check((uintptr_t)p, sizeof(T), SIM_ACC_WRITE | SIM_ACC_ALIGNED);
    U *q = (U *)p, old = __atomic_load_n(q, __ATOMIC_RELAXED), upd;
    T o;
    do {
        std::memcpy(&o, &old, sizeof o);
        T n = sim_at_apply(op, o, v);
        std::memcpy(&upd, &n, sizeof n);
    } while (!__atomic_compare_exchange_n(q, &old, upd, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    std::memcpy(&o, &old, sizeof o);
    return o;
}

template <typename T>
static inline SIM_NO_TSAN T sim_atomic_cas(T *p, T compare, T val)
{
    sim_check((uintptr_t)p, sizeof(T), SIM_ACC_WRITE | SIM_ACC_ALIGNED);
    __atomic_compare_exchange_n(p, &compare, val, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    return compare;
}

#define SIM_ATOMIC_FN(name, op, T)                                                                                     \
    static inline T name(T *p, T v) { return sim_atomic<T>(p, op, v); }
#define SIM_ATOMIC_INTS(name, op)                                                                                      \
    SIM_ATOMIC_FN(name, op, int)                                                                                       \
    SIM_ATOMIC_FN(name, op, unsigned) SIM_ATOMIC_FN(name, op, unsigned long long)
SIM_ATOMIC_INTS(atomicAdd, SIM_AT_ADD)
SIM_ATOMIC_FN(atomicAdd, SIM_AT_ADD, float)
SIM_ATOMIC_FN(atomicAdd, SIM_AT_ADD, double)
SIM_ATOMIC_FN(atomicSub, SIM_AT_SUB, int)
SIM_ATOMIC_FN(atomicSub, SIM_AT_SUB, unsigned)
SIM_ATOMIC_INTS(atomicExch, SIM_AT_EXCH)
SIM_ATOMIC_FN(atomicExch, SIM_AT_EXCH, float)
SIM_ATOMIC_INTS(atomicMin, SIM_AT_MIN)
SIM_ATOMIC_FN(atomicMin, SIM_AT_MIN, long long)
SIM_ATOMIC_INTS(atomicMax, SIM_AT_MAX)
SIM_ATOMIC_FN(atomicMax, SIM_AT_MAX, long long)
SIM_ATOMIC_INTS(atomicAnd, SIM_AT_AND)
SIM_ATOMIC_INTS(atomicOr, SIM_AT_OR)
SIM_ATOMIC_INTS(atomicXor, SIM_AT_XOR)
SIM_ATOMIC_FN(atomicInc, SIM_AT_INC, unsigned)
SIM_ATOMIC_FN(atomicDec, SIM_AT_DEC, unsigned)
static inline int atomicCAS(int *p, int c, int v) { return sim_atomic_cas(p, c, v); }
static inline unsigned atomicCAS(unsigned *p, unsigned c, unsigned v) { return sim_atomic_cas(p, c, v); }
static inline unsigned long long atomicCAS(unsigned long long *p, unsigned long long c, unsigned long long v)
{
    return sim_atomic_cas(p, c, v);
}

static inline SIM_NO_TSAN void __threadfence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_block(void) { __threadfence(); }

#endif
