/* test_arena.c: the memory workers share with the run (arena.h). Data written after a worker
 * was forked is what that worker reads; a worker cannot write it; a full arena is out of
 * memory (exit 2); a sealed or closed one hands out heap memory; frees of either kind are
 * right (ASan's leak check). */
#include <signal.h>
#include <stdint.h>
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

START_TEST(a_protected_worker_cannot_write)
{
    ck_assert_int_eq(arena_open(1 << 20), 0);
    volatile int *shared = arena_calloc(16, sizeof *shared);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGSEGV, SIG_DFL); /* die of it, not of a sanitizer's report */
        arena_protect();
        int seen = shared[3];
        shared[3] = seen + 1; /* must fault */
        _exit(0);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
    shared[3] = 5; /* the parent still writes */
    ck_assert_int_eq(shared[3], 5);
    arena_close();
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
    char *closed = arena_calloc(8, 8); /* no arena at all */
    ck_assert_int_eq(closed[63], 0);
    arena_free(closed);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("arena");
    TCase *t = tcase_create("arena");
    tcase_add_test(t, a_child_forked_first_reads_what_is_written_after);
    tcase_add_test(t, a_protected_worker_cannot_write);
    tcase_add_exit_test(t, a_full_arena_is_out_of_memory, 2);
    tcase_add_test(t, sealed_or_closed_arenas_hand_out_heap_memory);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return t_run(suite()); }
