// merge_probe.cc: accesses the check-merging pass (sim_merge_checks.cc) must and must not group,
// compiled with ThreadSanitizer's instrumentation as the checked copies are (fidelity.sh).
#include <stdint.h>

// The span check the pass calls; the emulator's is in sim_hooks.h.
extern "C" __attribute__((no_sanitize_thread)) int __sim_span_ok(uintptr_t a, uintptr_t n, uintptr_t align)
{
    return a && n && align;
}

// The check the pass gives accesses through a pointer argument (sim_hooks.h's tests the
// launch's ranges first).
extern "C" __attribute__((no_sanitize_thread)) void __sim_check_argument(void *p, unsigned long n, int flags)
{
    (void)p, (void)n, (void)flags;
}

// Sixteen loads of one row and sixteen of one column, as a tiled kernel's unrolled inner loop:
// two groups, one span check each.
extern "C" float probe_tile(const float (*as)[16], const float (*bs)[16], int ty, int tx)
{
    float acc = 0.0f;
#pragma clang loop unroll(full)
    for (int k = 0; k < 16; ++k)
        acc = __builtin_fmaf(as[ty][k], bs[k][tx], acc);
    return acc;
}

// Two 4-byte loads 2 bytes apart: one of them is misaligned, so they are never one span.
extern "C" int probe_residue(const char *p)
{
    return *(const int *)__builtin_assume_aligned(p, 4) + *(const int *)(p + 2);
}

// The second row's address is read after the first row's loads, so its loads cannot be checked
// where the block's span checks are: the first row's two loads merge, the second's stay.
extern "C" float probe_late_base(const float *x, const float *const *rows)
{
    const float *late = rows[(int)(x[0] * x[1])];
    return late[0] * late[3];
}

// Volatile accesses are the emulator's warp sync points: never merged.
extern "C" float probe_volatile(const volatile float *v)
{
    return v[0] + v[1];
}

// A load of another base between a group's two: it keeps its own check in the merged copy too.
extern "C" float probe_between(const float *x, const float *y, int i)
{
    return x[0] * y[i] + x[1];
}

// Indices of one i plus constants, as an unrolled loop writes them: one group.
extern "C" float probe_folded(const float *p, long i)
{
    return p[i + 132] * p[i + 164];
}
