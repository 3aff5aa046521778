/* expected_ref.c: references for the harness's tests of expected values (issue 47): right
 * copies (a u8 one whose output holds 165, u8's poison), references that write nothing in each
 * integer type, and one that never returns. */
#include <stdint.h>
#include <unistd.h>

void copy_u8_ref(const uint8_t *x, uint8_t *y, int n)
{
    for (int i = 0; i < n; i++)
        y[i] = x[i];
}

void copy_f32_ref(const float *x, float *y, int n)
{
    for (int i = 0; i < n; i++)
        y[i] = x[i];
}

void nothing_i32_ref(const int32_t *x, int32_t *y, int n) { (void)x, (void)y, (void)n; }
void nothing_u32_ref(const uint32_t *x, uint32_t *y, int n) { (void)x, (void)y, (void)n; }
void nothing_u8_ref(const uint8_t *x, uint8_t *y, int n) { (void)x, (void)y, (void)n; }
void nothing_i64_ref(const int64_t *x, int64_t *y, int n) { (void)x, (void)y, (void)n; }

/* Sleeps past any timeout a test gives it. */
void sleeps_ref(const float *x, float *y, int n)
{
    (void)x, (void)y, (void)n;
    for (;;)
        sleep(1);
}
