/* SPDX-License-Identifier: MIT */
/* child_guard.c: the seccomp filter every child of the harness runs under (child.h), so that no
 * kernel, reference, oracle, compiler or anything they start can stop the harness or signal it.
 * It is kept across exec, inherited by every descendant and cannot be removed. It leaves alone
 * what does not reach the harness, and does not fence other processes of the user (the threat
 * model in docs/design.md says what stays open). x86_64 and aarch64 only; elsewhere, nothing. */
#include "child.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define GUARD_ARCH AUDIT_ARCH_X86_64
#define GUARD_COMPAT_ARCH AUDIT_ARCH_I386
/* i386's kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_send_signal, pidfd_open. */
static const unsigned guard_compat_calls[] = {37, 238, 270, 178, 335, 424, 434};
#elif defined(__aarch64__)
#define GUARD_ARCH AUDIT_ARCH_AARCH64
#define GUARD_COMPAT_ARCH AUDIT_ARCH_ARM
/* 32-bit ARM's kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_send_signal, pidfd_open. */
static const unsigned guard_compat_calls[] = {37, 238, 268, 178, 363, 424, 434};
#endif

#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal 424
#endif
#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_clone3
#define __NR_clone3 435
#endif

void child_protect_self(struct child_protected *p)
{
    p->pid = getpid(), p->group = getpgrp(), p->n_tids = 0;
    DIR *d = opendir("/proc/self/task");
    for (struct dirent *e; d && p->n_tids < CHILD_PROTECTED_TIDS && (e = readdir(d));) {
        pid_t tid = (pid_t)atoi(e->d_name);
        if (tid > 0 && tid != p->pid)
            p->tids[p->n_tids++] = tid;
    }
    if (d)
        closedir(d);
}

#ifdef GUARD_ARCH

/* Where a jump goes: the next instruction, or a place named below. */
enum guard_label {
    L_NEXT,
    L_DENY,
    L_NOSYS,
    L_ALLOW,
    L_TARGET0,
    L_TARGET,
    L_SIG1,
    L_SIG2,
    L_SIGONLY,
    L_PRCTL,
    L_FCNTL,
    L_FCNTL_SIG,
    L_CLONE,
    L_FOREIGN,
    L_COUNT
};

#define GUARD_MAX 256
struct guard_prog {
    struct sock_filter ins[GUARD_MAX];
    unsigned char jt[GUARD_MAX], jf[GUARD_MAX]; /* labels, resolved at the end */
    int at[L_COUNT];
    int n;
};

static void emit(struct guard_prog *g, unsigned short code, unsigned k, enum guard_label jt, enum guard_label jf)
{
    if (g->n < GUARD_MAX) {
        g->ins[g->n] = (struct sock_filter)BPF_STMT(code, k);
        g->jt[g->n] = (unsigned char)jt, g->jf[g->n] = (unsigned char)jf;
    }
    g->n++;
}

static void place(struct guard_prog *g, enum guard_label l) { g->at[l] = g->n; }

/* A word of the call's data: its number, its architecture, or the low half of argument i (the
 * whole of an int: both architectures are little-endian). */
#define NR_AT offsetof(struct seccomp_data, nr)
#define ARCH_AT offsetof(struct seccomp_data, arch)
#define ARG_AT(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#define ARG_HIGH_AT(i) (ARG_AT(i) + 4)
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "argument words are read as little-endian");

static void load(struct guard_prog *g, unsigned at) { emit(g, BPF_LD | BPF_W | BPF_ABS, at, L_NEXT, L_NEXT); }
static void jump_if(struct guard_prog *g, unsigned k, enum guard_label to)
{
    emit(g, BPF_JMP | BPF_JEQ | BPF_K, k, to, L_NEXT);
}
static void jump(struct guard_prog *g, enum guard_label to) { emit(g, BPF_JMP | BPF_JA, 0, to, L_NEXT); }
static void ret(struct guard_prog *g, unsigned action) { emit(g, BPF_RET | BPF_K, action, L_NEXT, L_NEXT); }

/* The signal loaded: 0 (a probe: does it exist?) is allowed; a stop signal goes nowhere, since a
 * stopped harness can neither time out nor kill (one aimed at any thread stops the process). */
static void refuse_stops(struct guard_prog *g, enum guard_label zero)
{
    if (zero != L_NEXT)
        jump_if(g, 0, zero);
    static const unsigned stops[] = {SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU};
    for (size_t i = 0; i < sizeof stops / sizeof *stops; i++)
        jump_if(g, stops[i], L_DENY);
}

/* The target loaded: every process (-1), the harness's group (negative), the harness or one of
 * its threads known at the fork. */
static void refuse_targets(struct guard_prog *g, const struct child_protected *p)
{
    place(g, L_TARGET);
    jump_if(g, (unsigned)-1, L_DENY);
    jump_if(g, (unsigned)-p->group, L_DENY);
    jump_if(g, (unsigned)-p->pid, L_DENY);
    jump_if(g, (unsigned)p->pid, L_DENY);
    for (int i = 0; i < p->n_tids; i++)
        jump_if(g, (unsigned)p->tids[i], L_DENY);
    ret(g, SECCOMP_RET_ALLOW);
}

/* Which calls go where: the signal senders to their signal's argument, then the target's. */
static void dispatch(struct guard_prog *g)
{
    load(g, NR_AT);
#ifdef __x86_64__
    emit(g, BPF_JMP | BPF_JSET | BPF_K, 0x40000000u, L_DENY, L_NEXT); /* x32: no such programs here */
#endif
    jump_if(g, SYS_kill, L_SIG1);
    jump_if(g, SYS_tkill, L_SIG1);
    jump_if(g, SYS_rt_sigqueueinfo, L_SIG1);
    jump_if(g, SYS_tgkill, L_SIG2);
    jump_if(g, SYS_rt_tgsigqueueinfo, L_SIG2);
    jump_if(g, __NR_pidfd_send_signal, L_SIGONLY);
    jump_if(g, __NR_pidfd_open, L_TARGET0);
    jump_if(g, SYS_fcntl, L_FCNTL);
    jump_if(g, SYS_prctl, L_PRCTL);
    jump_if(g, SYS_clone, L_CLONE);
    jump_if(g, __NR_clone3, L_NOSYS);
    ret(g, SECCOMP_RET_ALLOW);
}

/* Ways around kill(2) that reach the harness all the same. */
static void the_other_ways(struct guard_prog *g)
{
    /* A reference ends what it started (it is their subreaper, cref.c): it may not stop being one. */
    place(g, L_PRCTL);
    load(g, ARG_AT(0));
    emit(g, BPF_JMP | BPF_JEQ | BPF_K, PR_SET_CHILD_SUBREAPER, L_NEXT, L_ALLOW);
    load(g, ARG_AT(1));
    emit(g, BPF_JMP | BPF_JEQ | BPF_K, 0, L_NEXT, L_ALLOW);
    load(g, ARG_HIGH_AT(1));
    emit(g, BPF_JMP | BPF_JEQ | BPF_K, 0, L_DENY, L_ALLOW);
    /* A process made a sibling of its maker (CLONE_PARENT) would be the harness's child, outside
     * every subreaper below it; clone3 hides its flags in memory, so it answers ENOSYS and the C
     * library falls back to clone. */
    place(g, L_CLONE);
    load(g, ARG_AT(0));
    emit(g, BPF_JMP | BPF_JSET | BPF_K, CLONE_PARENT, L_DENY, L_ALLOW);
    /* SIGIO with a signal of its choice (F_SETSIG), to an owner of its choice (F_SETOWN). */
    place(g, L_FCNTL);
    load(g, ARG_AT(1));
    emit(g, BPF_JMP | BPF_JEQ | BPF_K, F_SETOWN, L_NEXT, L_FCNTL_SIG);
    load(g, ARG_AT(2));
    jump(g, L_TARGET);
    place(g, L_FCNTL_SIG);
    emit(g, BPF_JMP | BPF_JEQ | BPF_K, F_SETSIG, L_NEXT, L_ALLOW);
    load(g, ARG_AT(2));
    refuse_stops(g, L_NEXT);
    ret(g, SECCOMP_RET_ALLOW);
}

/* Syscalls of the other ABI the CPU runs (i386 on x86_64, 32-bit ARM on aarch64) carry other
 * numbers: their signal senders are refused outright. */
static void foreign(struct guard_prog *g)
{
    place(g, L_FOREIGN);
    emit(g, BPF_JMP | BPF_JEQ | BPF_K, GUARD_COMPAT_ARCH, L_NEXT, L_ALLOW);
    load(g, NR_AT);
    for (size_t i = 0; i < sizeof guard_compat_calls / sizeof *guard_compat_calls; i++)
        jump_if(g, guard_compat_calls[i], L_DENY);
    ret(g, SECCOMP_RET_ALLOW);
}

/* Jumps are relative and forward; a conditional one reaches at most 255 ahead. */
static int guard_resolve(struct guard_prog *g)
{
    if (g->n > GUARD_MAX)
        return -1;
    for (int i = 0; i < g->n; i++) {
        struct sock_filter *f = &g->ins[i];
        int jt = g->jt[i] == L_NEXT ? i + 1 : g->at[g->jt[i]], jf = g->jf[i] == L_NEXT ? i + 1 : g->at[g->jf[i]];
        if (BPF_CLASS(f->code) != BPF_JMP)
            continue;
        if (jt <= i || jf <= i)
            return -1;
        if (BPF_OP(f->code) == BPF_JA) {
            f->k = (unsigned)(jt - i - 1);
            continue;
        }
        if (jt - i - 1 > 255 || jf - i - 1 > 255)
            return -1;
        f->jt = (unsigned char)(jt - i - 1), f->jf = (unsigned char)(jf - i - 1);
    }
    return 0;
}

static int guard_build(struct guard_prog *g, const struct child_protected *p)
{
    g->n = 0;
    load(g, ARCH_AT);
    emit(g, BPF_JMP | BPF_JEQ | BPF_K, GUARD_ARCH, L_NEXT, L_FOREIGN);
    dispatch(g);
    the_other_ways(g);
    place(g, L_SIGONLY); /* pidfd_send_signal: its target is a descriptor */
    load(g, ARG_AT(1));
    refuse_stops(g, L_NEXT);
    ret(g, SECCOMP_RET_ALLOW);
    place(g, L_SIG2);
    load(g, ARG_AT(2));
    refuse_stops(g, L_ALLOW);
    jump(g, L_TARGET0);
    place(g, L_SIG1);
    load(g, ARG_AT(1));
    refuse_stops(g, L_ALLOW);
    place(g, L_TARGET0);
    load(g, ARG_AT(0));
    refuse_targets(g, p);
    foreign(g);
    place(g, L_DENY);
    ret(g, SECCOMP_RET_ERRNO | EPERM);
    place(g, L_NOSYS);
    ret(g, SECCOMP_RET_ERRNO | ENOSYS);
    place(g, L_ALLOW);
    ret(g, SECCOMP_RET_ALLOW);
    return guard_resolve(g);
}

int child_guard(const struct child_protected *p)
{
    struct guard_prog g;
    if (guard_build(&g, p))
        return -1;
    struct sock_fprog prog = {(unsigned short)g.n, g.ins};
    /* Without privileges a filter needs no_new_privs: no set-user-ID program gains any. */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) ? -1 : 0;
}

#else

int child_guard(const struct child_protected *p)
{
    (void)p;
    return -1;
}

#endif
