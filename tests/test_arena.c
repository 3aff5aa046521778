/* SPDX-License-Identifier: MIT */
/* test_arena.c: the memory workers share with the run, and the run's own (arena.h). Data
 * written after a worker was forked is what that worker reads; a worker cannot write it nor
 * make it writable; it has nothing of the run's own memory, in the region or past it (sealed,
 * or no arena); a full arena is out of memory
 * (exit 2); a sealed or closed one hands out heap memory; frees of either kind are right
 * (ASan's leak check); a file size limit below the arena means no arena, never SIGXFSZ. */
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "arena.h"
#include "tutil.h"

START_TEST(a_child_forked_first_reads_what_is_written_after)
{
    ck_assert_int_eq(arena_open(1 << 20), 0);
    int *shared = arena_calloc(1024, sizeof *shared);
    ck_assert_uint_eq((uintptr_t)shared % 64, 0);
    ck_assert_int_eq(shared[1023], 0);
    int go[2];
    ck_assert_int_eq(pipe(go), 0);
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        _exit(read(go[0], &c, 1) == 1 && shared[0] == 42 && shared[1023] == 7 ? 0 : 1);
    }
    shared[0] = 42, shared[1023] = 7;
    ck_assert_int_eq(write(go[1], "x", 1), 1);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(go[0]), close(go[1]);
    arena_free(shared); /* arena memory: nothing to free */
    arena_close();
}
END_TEST

/* A child dies of a write into the shared region, and cannot map it writable again. */
START_TEST(a_child_cannot_write_the_shared_region)
{
    ck_assert_int_eq(arena_open(1 << 20), 0);
    volatile int *shared = arena_calloc(16, sizeof *shared);
    for (int attempt = 0; attempt < 2; attempt++) {
        pid_t pid = fork();
        if (pid == 0) {
            signal(SIGSEGV, SIG_DFL); /* die of it, not of a sanitizer's report */
            void *page = (void *)((uintptr_t)shared & ~(uintptr_t)4095);
            if (attempt && mprotect(page, 4096, PROT_READ | PROT_WRITE) == 0)
                _exit(3); /* a kernel's own mprotect must fail */
            int seen = shared[3];
            shared[3] = seen + 1; /* must fault */
            _exit(0);
        }
        int status;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV, "attempt %d: status %d", attempt, status);
    }
    shared[3] = 5; /* the parent still writes */
    ck_assert_int_eq(shared[3], 5);
    arena_close();
}
END_TEST

/* Whether a child forked now has no copy of own[2] (1.5 here): it faults reading it. */
static void assert_not_in_a_child(volatile double *own)
{
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGSEGV, SIG_DFL);
        unsigned char resident;
        void *page = (void *)((uintptr_t)own & ~(uintptr_t)4095);
        if (mincore(page, 4096, &resident) == 0) /* mapped: the child would have a copy */
            _exit(3);
        _exit(own[2] == 1.5 ? 4 : 5); /* must fault */
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV, "status %d", status);
    ck_assert(own[2] == 1.5);
}

/* What the parent keeps in its own region is not in a child at all (no copy to read). */
START_TEST(a_child_has_nothing_of_the_own_region)
{
    ck_assert_int_eq(arena_open(1 << 20), 0);
    volatile double *own = arena_calloc_own(16, sizeof *own);
    own[2] = 1.5;
    assert_not_in_a_child(own);
    arena_free((void *)own); /* arena memory: nothing to free */
    arena_close();
}
END_TEST

/* Nor what it keeps once the arena is sealed (a shrink's trials) or when there is none (the
 * system refused its address space): references never lie where a worker could read them. */
START_TEST(own_memory_past_the_arena_is_in_no_child_either)
{
    ck_assert_int_eq(arena_open(1 << 20), 0);
    arena_seal();
    volatile double *sealed = arena_calloc_own(16, sizeof *sealed);
    sealed[2] = 1.5;
    assert_not_in_a_child(sealed);
    arena_close();
    volatile double *none = arena_calloc_own(1 << 20, sizeof *none);
    ck_assert(none[(1 << 20) - 1] == 0);
    none[2] = 1.5;
    assert_not_in_a_child(none);
    arena_free((void *)sealed), arena_free((void *)none);
}
END_TEST

START_TEST(a_full_arena_is_out_of_memory)
{
    ck_assert_int_eq(arena_open(4096), 0);
    ck_assert_ptr_nonnull(arena_calloc(4000, 1));
    arena_calloc(4000, 1); /* no room left: exits 2 */
}
END_TEST

START_TEST(sealed_or_closed_arenas_hand_out_heap_memory)
{
    ck_assert_int_eq(arena_open(4096), 0);
    char *in = arena_calloc(4000, 1);
    arena_seal();
    char *heap = arena_calloc(4000, 1); /* no room, but sealed: the heap */
    ck_assert_ptr_ne(in, heap);
    ck_assert_int_eq(heap[3999], 0);
    arena_free(heap);
    arena_free(in);
    arena_close();
    char *closed = arena_calloc(8, 8), *own = arena_calloc_own(8, 8); /* no arena at all */
    ck_assert_int_eq(closed[63], 0);
    ck_assert_int_eq(own[63], 0);
    arena_free(closed), arena_free(own);
}
END_TEST

/* ulimit -f 1024 (1 MiB): the arena's memory file of 1 GiB cannot be made. The run goes without
 * an arena (heap memory), it does not die of SIGXFSZ (the default action, as in a harness that
 * did not ignore it) while making the file. A region within the limit is made as before. */
START_TEST(a_file_size_limit_below_the_arena_means_no_arena_not_a_death)
{
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_DFL);
        struct rlimit lim = {1 << 20, 1 << 20};
        if (setrlimit(RLIMIT_FSIZE, &lim))
            _exit(3);
        if (arena_open((size_t)1 << 30) != -1)
            _exit(4);
        int *heap = arena_calloc(16, sizeof *heap);
        heap[15] = 1;
        arena_free(heap);
        if (arena_open(1 << 16) != 0)
            _exit(5);
        arena_close();
        _exit(0);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x (signal %d)", status,
                  WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("arena");
    TCase *t = tcase_create("arena");
    tcase_add_test(t, a_child_forked_first_reads_what_is_written_after);
    tcase_add_test(t, a_child_cannot_write_the_shared_region);
    tcase_add_test(t, a_child_has_nothing_of_the_own_region);
    tcase_add_test(t, own_memory_past_the_arena_is_in_no_child_either);
    tcase_add_exit_test(t, a_full_arena_is_out_of_memory, 2);
    tcase_add_test(t, sealed_or_closed_arenas_hand_out_heap_memory);
    tcase_add_test(t, a_file_size_limit_below_the_arena_means_no_arena_not_a_death);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
