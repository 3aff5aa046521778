/* SPDX-License-Identifier: MIT */
/* sim_call.c: calls a kernel entry on the current lane with its arguments: a wrapped entry
 * (sim_wrap.cc) takes them as one array in the kernel's own order; a plain C entry of the op
 * ABIs takes pointers then int32s, one case per arity. It decides nothing about them:
 * sim_backend.c checks arities and kinds before it launches. */
#include "sim_sched.h"

/* Calls the entry with its ABI: pointers then int32s. One case per arity, so the call
 * passes exactly the kernel's parameters (its pointer types differ only in constness and
 * pointee, which the calling convention does not see). */
void sim_call_kernel(const struct sim_call *c)
{
    if (c->wrapped) {
        ((void (*)(const struct sim_arg *))c->fn)(c->args);
        return;
    }
    void *const *b = c->bufs;
    const int32_t *i = c->ints;
#define P void *
#define I int32_t
    switch (c->n_bufs * 10 + c->n_ints) {
    case 10: ((void (*)(P))c->fn)(b[0]); break;
    case 11: ((void (*)(P, I))c->fn)(b[0], i[0]); break;
    case 12: ((void (*)(P, I, I))c->fn)(b[0], i[0], i[1]); break;
    case 13: ((void (*)(P, I, I, I))c->fn)(b[0], i[0], i[1], i[2]); break;
    case 14: ((void (*)(P, I, I, I, I))c->fn)(b[0], i[0], i[1], i[2], i[3]); break;
    case 20: ((void (*)(P, P))c->fn)(b[0], b[1]); break;
    case 21: ((void (*)(P, P, I))c->fn)(b[0], b[1], i[0]); break;
    case 22: ((void (*)(P, P, I, I))c->fn)(b[0], b[1], i[0], i[1]); break;
    case 23: ((void (*)(P, P, I, I, I))c->fn)(b[0], b[1], i[0], i[1], i[2]); break;
    case 24: ((void (*)(P, P, I, I, I, I))c->fn)(b[0], b[1], i[0], i[1], i[2], i[3]); break;
    case 30: ((void (*)(P, P, P))c->fn)(b[0], b[1], b[2]); break;
    case 31: ((void (*)(P, P, P, I))c->fn)(b[0], b[1], b[2], i[0]); break;
    case 32: ((void (*)(P, P, P, I, I))c->fn)(b[0], b[1], b[2], i[0], i[1]); break;
    case 33: ((void (*)(P, P, P, I, I, I))c->fn)(b[0], b[1], b[2], i[0], i[1], i[2]); break;
    case 34: ((void (*)(P, P, P, I, I, I, I))c->fn)(b[0], b[1], b[2], i[0], i[1], i[2], i[3]); break;
    case 36: /* sgemm_strided: M, N, K, lda, ldb, ldc */
        ((void (*)(P, P, P, I, I, I, I, I, I))c->fn)(b[0], b[1], b[2], i[0], i[1], i[2], i[3], i[4], i[5]);
        break;
    case 40: ((void (*)(P, P, P, P))c->fn)(b[0], b[1], b[2], b[3]); break;
    case 41: ((void (*)(P, P, P, P, I))c->fn)(b[0], b[1], b[2], b[3], i[0]); break;
    case 42: ((void (*)(P, P, P, P, I, I))c->fn)(b[0], b[1], b[2], b[3], i[0], i[1]); break;
    case 43: ((void (*)(P, P, P, P, I, I, I))c->fn)(b[0], b[1], b[2], b[3], i[0], i[1], i[2]); break;
    case 44: ((void (*)(P, P, P, P, I, I, I, I))c->fn)(b[0], b[1], b[2], b[3], i[0], i[1], i[2], i[3]); break;
    default: break; /* sim_backend.c refuses other arities before launching */
    }
#undef P
#undef I
}
