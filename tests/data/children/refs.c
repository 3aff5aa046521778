/* refs.c: C references for issue 47's checks: each writes y = x (the kernels' answer) and then
 * does what a reference must not get away with, or reaches for the harness. */
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

static void copy(const float *x, float *y, int n)
{
    for (int i = 0; i < n; i++)
        y[i] = x[i];
}

void copy_ref(const float *x, float *y, int n) { copy(x, y, n); }

/* SIGSTOP to the harness, then the right answer. */
void stops_harness(const float *x, float *y, int n)
{
    kill(getppid(), SIGSTOP);
    copy(x, y, n);
}

/* Closes its output, then spins: the wait for its exit must still end. */
void closes_and_spins(const float *x, float *y, int n)
{
    copy(x, y, n);
    close(1), close(2);
    for (volatile int s = 1; s;)
        ;
}

/* A helper holding its output for 60 s; it returns at once. */
void helper_holds_output(const float *x, float *y, int n)
{
    copy(x, y, n);
    if (fork() == 0) {
        sleep(60);
        _exit(0);
    }
}

/* A grandchild in a session of its own that writes 12345 into y after the reference returned. */
void scribbles_after(const float *x, float *y, int n)
{
    copy(x, y, n);
    if (fork() == 0) {
        setsid();
        close(0), close(1), close(2);
        for (;;)
            for (int i = 0; i < n; i++)
                y[i] = 12345.0f;
    }
}

/* Writes y[-1]: inside the page below y's data, which faults nowhere. */
void writes_before(const float *x, float *y, int n)
{
    copy(x, y, n);
    y[-1] = 1.0f;
}

static void quietly(int sig)
{
    (void)sig;
    _exit(0);
}

/* Hides its own fault past y behind a SIGSEGV handler that exits 0. */
void hides_fault(const float *x, float *y, int n)
{
    copy(x, y, n);
    signal(SIGSEGV, quietly);
    y[n + 100] = 1.0f;
}

/* Makes its input writable and writes x[0]. */
void unprotects_input(const float *x, float *y, int n)
{
    copy(x, y, n);
    uintptr_t page = (uintptr_t)x & ~(uintptr_t)4095;
    if (mprotect((void *)page, 4096, PROT_READ | PROT_WRITE) == 0)
        ((float *)x)[0] = 7.0f;
}
