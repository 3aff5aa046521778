/* SPDX-License-Identifier: MIT */
/* vk_poison.c: rewrites a compute shader's SPIR-V at load so that its workgroup memory is the
 * poison in every workgroup, as the emulator's shared memory is in every block: drivers promise
 * nothing there, and lavapipe leaves whatever the last workgroup on the same pool thread wrote.
 * It checks every offset it reads and leaves a module it does not understand as it is. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"

/* The SPIR-V opcodes, storage classes, decorations and modes it reads or writes. */
enum { OP_LINE = 8, OP_ENTRY_POINT = 15, OP_EXECUTION_MODE = 16, OP_EXECUTION_MODE_ID = 331, OP_NO_LINE = 317 };
enum { OP_TYPE_VOID = 19, OP_TYPE_BOOL, OP_TYPE_INT, OP_TYPE_FLOAT, OP_TYPE_VECTOR, OP_TYPE_MATRIX };
enum { OP_TYPE_ARRAY = 28, OP_TYPE_STRUCT = 30, OP_TYPE_POINTER = 32, OP_CONSTANT_TRUE = 41, OP_CONSTANT = 43 };
enum { OP_CONSTANT_COMPOSITE = 44, OP_SPEC_CONSTANT_OP = 52, OP_FUNCTION = 54, OP_FUNCTION_PARAMETER = 55 };
enum { OP_FUNCTION_END = 56, OP_VARIABLE = 59, OP_LOAD = 61, OP_STORE = 62, OP_ACCESS_CHAIN = 65, OP_DECORATE = 71 };
enum { OP_COMPOSITE_EXTRACT = 81, OP_IADD = 128, OP_IMUL = 132, OP_UDIV = 134, OP_UMOD = 137, OP_IEQUAL = 170 };
enum { OP_ULESS_THAN = 176, OP_CONTROL_BARRIER = 224, OP_PHI = 245, OP_LOOP_MERGE, OP_SELECTION_MERGE, OP_LABEL };
enum { OP_BRANCH = 249, OP_BRANCH_CONDITIONAL, SC_INPUT = 1, SC_WORKGROUP = 4, DEC_BUILTIN = 11 };
enum { BUILTIN_WORKGROUP_SIZE = 25, BUILTIN_LOCAL_INVOCATION_INDEX = 29, MODEL_GLCOMPUTE = 5 };
enum { MODE_LOCAL_SIZE = 17, MODE_LOCAL_SIZE_ID = 38 };
/* The byte the emulator fills shared memory with (sim_backend.c): finite as a float, 1.33e7. */
#define VK_POISON_WORD 0x4b4b4b4bu
#define VK_MAX_VARS 64
#define VK_MAX_DIMS 8
#define VK_MAX_CONSTITUENTS 65532u /* an instruction has at most 65535 words */

/* Words being written: the new module, or the declarations made before their place comes. */
struct spv_buf {
    uint32_t *w;
    size_t used, cap;
    int failed;
};

struct spv {
    const uint32_t *w;
    size_t n;
    uint32_t bound;
    size_t *def;      /* offset of the instruction defining each id, 0 for none */
    uint32_t *poison; /* the poison constant made for each type id, 0 none yet, UINT32_MAX none possible */
    size_t entry_at, types_at, functions_at;
    uint32_t entry_fn, lii, uint_t, bool_t;
    uint32_t wg_size, size_id[3], size_lit; /* the workgroup's size, as the module gives it */
    uint32_t index, is_first, threads;      /* values the new first block computes */
    uint32_t c[5];                          /* constants: 0, 1, Workgroup scope, the barrier's semantics, size_lit */
    int n_vars;
    struct spv_var {
        uint32_t id, ptr, leaf, leaf_ptr; /* the variable, its pointer type, its elements' poison and pointer */
    } vars[VK_MAX_VARS];
    struct spv_buf out, decls;
};

static void spv_put(struct spv_buf *b, uint32_t word)
{
    if (b->used == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        uint32_t *grown = b->failed ? NULL : realloc(b->w, cap * sizeof *grown);
        if (!grown) {
            b->failed = 1;
            return;
        }
        b->w = grown, b->cap = cap;
    }
    b->w[b->used++] = word;
}

/* One instruction of n operand words. */
static void spv_op(struct spv_buf *b, uint32_t op, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    spv_put(b, (uint32_t)(n + 1) << 16 | op);
    for (int i = 0; i < n; i++)
        spv_put(b, va_arg(ap, uint32_t));
    va_end(ap);
}

static void spv_copy(struct spv *s, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        spv_put(&s->out, s->w[i]);
}

static uint32_t spv_fresh(struct spv *s) { return s->bound++; }

static void spv_label(struct spv *s, uint32_t label) { spv_op(&s->out, OP_LABEL, 1, label); }

/* Word k of the instruction defining id, or 0 when it has none or is shorter. */
static uint32_t spv_def_word(const struct spv *s, uint32_t id, uint32_t k)
{
    size_t at = id < s->bound ? s->def[id] : 0;
    return at && k < (s->w[at] >> 16) ? s->w[at + k] : 0;
}

static uint32_t spv_def_op(const struct spv *s, uint32_t id) { return spv_def_word(s, id, 0) & 0xffff; }

static uint32_t spv_poison_of(struct spv *s, uint32_t type);

/* A composite of the given constituent types, each its poison; UINT32_MAX when one has none. */
static uint32_t spv_poison_composite(struct spv *s, uint32_t type, const uint32_t *parts, uint32_t step, uint32_t count)
{
    if (count == 0 || count > VK_MAX_CONSTITUENTS)
        return UINT32_MAX;
    for (uint32_t i = 0; i < count; i++)
        if (spv_poison_of(s, parts[i * step]) == UINT32_MAX)
            return UINT32_MAX;
    uint32_t id = spv_fresh(s);
    spv_put(&s->decls, (3 + count) << 16 | OP_CONSTANT_COMPOSITE);
    spv_put(&s->decls, type), spv_put(&s->decls, id);
    for (uint32_t i = 0; i < count; i++)
        spv_put(&s->decls, s->poison[parts[i * step]]);
    return id;
}

/* A scalar's poison: the poison byte in every byte; true for a bool. */
static uint32_t spv_poison_scalar(struct spv *s, uint32_t type, uint32_t op)
{
    uint32_t bits = spv_def_word(s, type, 2);
    if (op != OP_TYPE_BOOL && bits != 8 && bits != 16 && bits != 32 && bits != 64)
        return UINT32_MAX;
    uint32_t id = spv_fresh(s);
    if (op == OP_TYPE_BOOL)
        spv_op(&s->decls, OP_CONSTANT_TRUE, 2, type, id);
    else if (bits == 64)
        spv_op(&s->decls, OP_CONSTANT, 4, type, id, VK_POISON_WORD, VK_POISON_WORD);
    else
        spv_op(&s->decls, OP_CONSTANT, 3, type, id, bits == 32 ? VK_POISON_WORD : VK_POISON_WORD >> (32 - bits));
    return id;
}

/* The poison constant of a type, declared once (UINT32_MAX: none can be made, as for an array
 * sized by a specialization constant, which the caller fills by a loop instead). */
static uint32_t spv_poison_of(struct spv *s, uint32_t type)
{
    if (type >= s->bound || !s->def[type])
        return UINT32_MAX;
    if (s->poison[type])
        return s->poison[type];
    s->poison[type] = UINT32_MAX; /* until made: a malformed type that contains itself has none */
    uint32_t op = spv_def_op(s, type), id = UINT32_MAX, part = spv_def_word(s, type, 2);
    uint32_t len = spv_def_word(s, type, 3);
    if (op == OP_TYPE_BOOL || op == OP_TYPE_INT || op == OP_TYPE_FLOAT)
        id = spv_poison_scalar(s, type, op);
    else if (op == OP_TYPE_VECTOR || op == OP_TYPE_MATRIX)
        id = spv_poison_composite(s, type, &part, 0, len);
    else if (op == OP_TYPE_ARRAY && spv_def_op(s, len) == OP_CONSTANT)
        id = spv_poison_composite(s, type, &part, 0, spv_def_word(s, len, 3));
    else if (op == OP_TYPE_STRUCT)
        id = spv_poison_composite(s, type, s->w + s->def[type] + 2, 1, (spv_def_word(s, type, 0) >> 16) - 2);
    return s->poison[type] = id;
}

/* Instructions of the sections before the types: capabilities, extensions, imports, the
 * memory model, entry points, execution modes, debug names and annotations. */
static int spv_preamble(uint32_t op)
{
    return (op >= 2 && op <= 7) || (op >= 10 && op <= 17) || (op >= 71 && op <= 75) || (op >= 330 && op <= 332) ||
           op == 5632 || op == 5633;
}

static int spv_defines_at_1(uint32_t op)
{
    return (op >= OP_CONSTANT_TRUE && op <= OP_SPEC_CONSTANT_OP) || op == OP_VARIABLE;
}

/* What one instruction says of the module (spv_scan). */
static void spv_note(struct spv *s, size_t i, const char *entry)
{
    uint32_t wc = s->w[i] >> 16, op = s->w[i] & 0xffff;
    const uint32_t *a = s->w + i + 1;
    if (op >= OP_TYPE_VOID && op <= OP_TYPE_POINTER && wc >= 2 && a[0] < s->bound)
        s->def[a[0]] = i;
    else if (spv_defines_at_1(op) && wc >= 3 && a[1] < s->bound)
        s->def[a[1]] = i;
    if (op == OP_ENTRY_POINT && wc >= 4 && a[0] == MODEL_GLCOMPUTE && strlen(entry) < 4 * (wc - 3) &&
        strncmp((const char *)(a + 2), entry, 4 * (wc - 3)) == 0)
        s->entry_at = i, s->entry_fn = a[1];
    if (op == OP_DECORATE && wc == 4 && a[1] == DEC_BUILTIN && a[2] == BUILTIN_LOCAL_INVOCATION_INDEX)
        s->lii = a[0];
    if (op == OP_DECORATE && wc == 4 && a[1] == DEC_BUILTIN && a[2] == BUILTIN_WORKGROUP_SIZE)
        s->wg_size = a[0];
    if ((op == OP_EXECUTION_MODE || op == OP_EXECUTION_MODE_ID) && wc == 6 && s->entry_at && a[0] == s->entry_fn &&
        a[1] == (op == OP_EXECUTION_MODE ? MODE_LOCAL_SIZE : MODE_LOCAL_SIZE_ID)) {
        if (op == OP_EXECUTION_MODE)
            s->size_lit = a[2] * a[3] * a[4];
        else
            memcpy(s->size_id, a + 2, sizeof s->size_id);
    }
    if (op == OP_VARIABLE && wc == 4 && a[2] == SC_WORKGROUP && s->n_vars < VK_MAX_VARS)
        s->vars[s->n_vars++] = (struct spv_var){.id = a[1], .ptr = a[0]};
    if (!s->types_at && !spv_preamble(op))
        s->types_at = i;
    if (!s->functions_at && op == OP_FUNCTION)
        s->functions_at = i;
    if (op == OP_TYPE_INT && wc == 4 && a[1] == 32 && a[2] == 0)
        s->uint_t = a[0];
    if (op == OP_TYPE_BOOL && wc == 2)
        s->bool_t = a[0];
}

/* One pass over the module: every instruction inside it, the ids it defines, the entry point
 * named `entry`, the Workgroup variables without an initializer, LocalInvocationIndex, and
 * where the types and the functions begin. 0, or -1 for a module it does not understand. */
static int spv_scan(struct spv *s, const char *entry)
{
    for (size_t i = 5; i < s->n; i += s->w[i] >> 16) {
        uint32_t wc = s->w[i] >> 16;
        if (wc == 0 || wc > s->n - i)
            return -1;
        spv_note(s, i, entry);
    }
    return s->entry_at && s->types_at && s->functions_at && s->types_at <= s->functions_at ? 0 : -1;
}

/* The element type below a variable's array dimensions, each sized by a 32-bit constant or
 * specialization constant (their sizes into lens); 0 when there are too many. */
static uint32_t spv_peel(const struct spv *s, uint32_t type, uint32_t lens[VK_MAX_DIMS], int *dims)
{
    for (*dims = 0; spv_def_op(s, type) == OP_TYPE_ARRAY; (*dims)++) {
        uint32_t len = spv_def_word(s, type, 3);
        if (*dims == VK_MAX_DIMS || spv_def_word(s, spv_def_word(s, len, 1), 2) != 32)
            return 0;
        lens[*dims] = len;
        type = spv_def_word(s, type, 2);
    }
    return type;
}

/* Whether variable v can be filled: its elements' poison, and the pointer type that reaches
 * one (declared when the variable is an array). */
static int spv_fillable(struct spv *s, struct spv_var *v)
{
    uint32_t lens[VK_MAX_DIMS];
    int dims;
    uint32_t leaf = spv_peel(s, spv_def_word(s, v->ptr, 3), lens, &dims);
    if (!leaf || (v->leaf = spv_poison_of(s, leaf)) == UINT32_MAX)
        return 0;
    v->leaf_ptr = dims ? spv_fresh(s) : 0;
    if (dims)
        spv_op(&s->decls, OP_TYPE_POINTER, 3, v->leaf_ptr, SC_WORKGROUP, leaf);
    return 1;
}

/* The entry point with LocalInvocationIndex in its interface, and (SPIR-V 1.4 on, where the
 * interface lists every global the entry point uses) the variables it now stores to. */
static void spv_emit_entry(struct spv *s)
{
    const uint32_t *e = s->w + s->entry_at;
    uint32_t wc = e[0] >> 16, name_words = (uint32_t)(strlen((const char *)(e + 3)) / 4 + 1), add[VK_MAX_VARS + 1];
    uint32_t n_add = 0;
    for (int v = -1; v < s->n_vars; v++) {
        uint32_t id = v < 0 ? s->lii : s->vars[v].id, listed = 0;
        for (uint32_t k = 3 + name_words; k < wc; k++)
            listed |= e[k] == id;
        if (!listed && (v < 0 || s->w[1] >= 0x00010400u))
            add[n_add++] = id;
    }
    spv_put(&s->out, (wc + n_add) << 16 | OP_ENTRY_POINT);
    spv_copy(s, s->entry_at + 1, s->entry_at + wc);
    for (uint32_t k = 0; k < n_add; k++)
        spv_put(&s->out, add[k]);
}

/* What the new first block uses and the module may lack: the uint and bool types, an Input
 * variable for LocalInvocationIndex, the constants; then the poison constants and pointer
 * types made for the variables. */
static void spv_emit_decls(struct spv *s, int new_lii, int new_uint, int new_bool)
{
    struct spv_buf *o = &s->out;
    if (new_uint)
        spv_op(o, OP_TYPE_INT, 3, s->uint_t, 32, 0);
    if (new_bool)
        spv_op(o, OP_TYPE_BOOL, 1, s->bool_t);
    if (new_lii) {
        uint32_t ptr = spv_fresh(s);
        spv_op(o, OP_TYPE_POINTER, 3, ptr, SC_INPUT, s->uint_t);
        spv_op(o, OP_VARIABLE, 3, ptr, s->lii, SC_INPUT);
    }
    /* 0, 1, Workgroup scope, AcquireRelease | WorkgroupMemory, the LocalSize invocations. */
    const uint32_t values[5] = {0, 1, 2, 0x108, s->size_lit};
    for (int i = 0; i < 5; i++)
        spv_op(o, OP_CONSTANT, 3, s->uint_t, s->c[i], values[i]);
    for (size_t i = 0; i < s->decls.used; i++)
        spv_put(o, s->decls.w[i]);
    o->failed |= s->decls.failed;
}

/* The invocations in a workgroup, as a value the first block computes: the WorkgroupSize
 * built-in (a specialization constant, as the harness sets the block), else the entry
 * point's LocalSizeId or LocalSize. 0 when the module says none of them. */
static uint32_t spv_emit_threads(struct spv *s)
{
    struct spv_buf *o = &s->out;
    uint32_t dim[3];
    for (int k = 0; k < 3; k++) {
        dim[k] = s->size_id[k];
        if (s->wg_size)
            spv_op(o, OP_COMPOSITE_EXTRACT, 4, s->uint_t, dim[k] = spv_fresh(s), s->wg_size, k);
    }
    if (!dim[0])
        return s->size_lit ? s->c[4] : 0;
    uint32_t xy = spv_fresh(s), xyz = spv_fresh(s);
    spv_op(o, OP_IMUL, 4, s->uint_t, xy, dim[0], dim[1]);
    spv_op(o, OP_IMUL, 4, s->uint_t, xyz, xy, dim[2]);
    return xyz;
}

/* Block `at` to block `after`: the poison into every element of v, invocation i taking the
 * elements i, i + threads, ... of the array flattened (a scalar or struct: invocation 0). */
static void spv_emit_fill(struct spv *s, const struct spv_var *v, uint32_t at, uint32_t after)
{
    struct spv_buf *o = &s->out;
    uint32_t lens[VK_MAX_DIMS], idx[VK_MAX_DIMS], ptr = v->id;
    int dims;
    spv_peel(s, spv_def_word(s, v->ptr, 3), lens, &dims);
    spv_label(s, at);
    if (!dims) {
        uint32_t store = spv_fresh(s);
        spv_op(o, OP_SELECTION_MERGE, 2, after, 0);
        spv_op(o, OP_BRANCH_CONDITIONAL, 3, s->is_first, store, after);
        spv_label(s, store);
        spv_op(o, OP_STORE, 2, ptr, v->leaf);
        spv_op(o, OP_BRANCH, 1, after);
        return;
    }
    uint32_t count = lens[0], head = spv_fresh(s), body = spv_fresh(s), next = spv_fresh(s);
    uint32_t f = spv_fresh(s), more = spv_fresh(s), f1 = spv_fresh(s);
    for (int k = 1; k < dims; k++) {
        uint32_t product = spv_fresh(s);
        spv_op(o, OP_IMUL, 4, s->uint_t, product, count, lens[k]);
        count = product;
    }
    spv_op(o, OP_BRANCH, 1, head);
    spv_label(s, head);
    spv_op(o, OP_PHI, 6, s->uint_t, f, s->index, at, f1, next);
    spv_op(o, OP_ULESS_THAN, 4, s->bool_t, more, f, count);
    spv_op(o, OP_LOOP_MERGE, 3, after, next, 0);
    spv_op(o, OP_BRANCH_CONDITIONAL, 3, more, body, after);
    spv_label(s, body);
    /* f = ((i0 * len1 + i1) * len2 + i2) ...: the last index is f mod its length. */
    uint32_t rest = f;
    for (int k = dims - 1; k > 0; k--) {
        uint32_t quotient = spv_fresh(s);
        spv_op(o, OP_UMOD, 4, s->uint_t, idx[k] = spv_fresh(s), rest, lens[k]);
        spv_op(o, OP_UDIV, 4, s->uint_t, quotient, rest, lens[k]);
        rest = quotient;
    }
    idx[0] = rest;
    spv_put(o, (uint32_t)(4 + dims) << 16 | OP_ACCESS_CHAIN);
    spv_put(o, v->leaf_ptr), spv_put(o, ptr = spv_fresh(s)), spv_put(o, v->id);
    for (int k = 0; k < dims; k++)
        spv_put(o, idx[k]);
    spv_op(o, OP_STORE, 2, ptr, v->leaf);
    spv_op(o, OP_BRANCH, 1, next);
    spv_label(s, next);
    spv_op(o, OP_IADD, 4, s->uint_t, f1, f, s->threads);
    spv_op(o, OP_BRANCH, 1, head);
}

/* The entry function's first block split: its variables, this invocation's index and the
 * workgroup's size; the fills, one after another; the barrier, then the rest of the block as
 * it was, under its own label (so that a successor's OpPhi still names it). Returns the
 * offset of the rest, or 0 when a variable follows other instructions there or the size of
 * the workgroup is not to be found. */
static size_t spv_emit_start(struct spv *s, size_t at)
{
    const uint32_t *w = s->w;
    size_t fn = at;
    do
        at += w[at] >> 16;
    while (at < s->n && (w[at] & 0xffff) == OP_FUNCTION_PARAMETER);
    if (at + 2 > s->n || w[at] != (2u << 16 | OP_LABEL) || !(s->wg_size || s->size_id[0] || s->size_lit))
        return 0;
    uint32_t first = w[at + 1];
    size_t vars = at + 2, rest = vars;
    while (rest < s->n &&
           ((w[rest] & 0xffff) == OP_VARIABLE || (w[rest] & 0xffff) == OP_LINE || (w[rest] & 0xffff) == OP_NO_LINE))
        rest += w[rest] >> 16;
    for (size_t j = rest; j < s->n && (w[j] & 0xffff) != OP_LABEL && (w[j] & 0xffff) != OP_FUNCTION_END;
         j += w[j] >> 16)
        if ((w[j] & 0xffff) == OP_VARIABLE)
            return 0;
    struct spv_buf *o = &s->out;
    spv_copy(s, fn, at);
    spv_label(s, spv_fresh(s));
    spv_copy(s, vars, rest);
    spv_op(o, OP_LOAD, 3, s->uint_t, s->index = spv_fresh(s), s->lii);
    spv_op(o, OP_IEQUAL, 4, s->bool_t, s->is_first = spv_fresh(s), s->index, s->c[0]);
    s->threads = spv_emit_threads(s);
    uint32_t fill = spv_fresh(s);
    spv_op(o, OP_BRANCH, 1, fill);
    for (int v = 0; v < s->n_vars; v++) {
        uint32_t after = v + 1 < s->n_vars ? spv_fresh(s) : first;
        spv_emit_fill(s, &s->vars[v], fill, after);
        fill = after;
    }
    spv_label(s, first);
    spv_op(o, OP_CONTROL_BARRIER, 3, s->c[2], s->c[2], s->c[3]);
    return rest;
}

/* The rewritten module into s->out: 0, or -1 (then it is left as it was). */
static int spv_rewrite(struct spv *s)
{
    int new_lii = !s->lii, new_uint = !s->uint_t, new_bool = !s->bool_t;
    uint32_t load_t = new_lii ? 0 : spv_def_word(s, spv_def_word(s, s->lii, 1), 3);
    if (load_t && load_t != s->uint_t) /* the loop's index starts as this value: one type */
        return -1;
    s->lii = new_lii ? spv_fresh(s) : s->lii;
    s->uint_t = new_uint ? spv_fresh(s) : s->uint_t;
    s->bool_t = new_bool ? spv_fresh(s) : s->bool_t;
    for (int i = 0; i < 5; i++)
        s->c[i] = spv_fresh(s);
    uint32_t entry_wc = s->w[s->entry_at] >> 16;
    spv_copy(s, 0, s->entry_at);
    spv_emit_entry(s);
    spv_copy(s, s->entry_at + entry_wc, s->types_at);
    if (new_lii)
        spv_op(&s->out, OP_DECORATE, 3, s->lii, DEC_BUILTIN, BUILTIN_LOCAL_INVOCATION_INDEX);
    spv_copy(s, s->types_at, s->functions_at);
    spv_emit_decls(s, new_lii, new_uint, new_bool);
    size_t at = s->functions_at;
    while (at < s->n && !((s->w[at] & 0xffff) == OP_FUNCTION && (s->w[at] >> 16) >= 3 && s->w[at + 2] == s->entry_fn))
        at += s->w[at] >> 16;
    spv_copy(s, s->functions_at, at);
    size_t rest = at < s->n ? spv_emit_start(s, at) : 0;
    if (!rest)
        return -1;
    spv_copy(s, rest, s->n);
    if (!s->out.failed)
        s->out.w[3] = s->bound;
    return s->out.failed ? -1 : 0;
}

int vk_poison_workgroup(uint32_t **words, size_t *bytes, const char *entry, int *left)
{
    struct spv s = {.w = *words, .n = *bytes / 4};
    s.bound = s.n > 5 ? s.w[3] : 0;
    s.def = s.bound && s.bound < (1u << 22) ? calloc(s.bound, sizeof *s.def) : NULL;
    s.poison = s.def ? calloc(s.bound, sizeof *s.poison) : NULL;
    int found = 0, n = 0;
    if (s.poison && spv_scan(&s, entry) == 0) {
        found = s.n_vars;
        for (int v = 0; v < found; v++)
            if (spv_fillable(&s, &s.vars[v]))
                s.vars[n++] = s.vars[v];
        s.n_vars = n;
    }
    if (n > 0 && spv_rewrite(&s) == 0) {
        free(*words);
        *words = s.out.w;
        *bytes = s.out.used * 4;
        s.out.w = NULL;
    } else {
        n = 0;
    }
    *left = found - n;
    free(s.out.w);
    free(s.decls.w);
    free(s.def);
    free(s.poison);
    return n;
}
