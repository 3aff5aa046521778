/* scan_ref.c: the block scan's reference (op = custom: the scan family), in double: within
 * each block of `chunk` elements, y[i] is the sum of x from the block's first element to i,
 * partials[b] the block's total, each rounded once to float. One function per chunk the
 * manifests use (4 elements per thread: 256 threads, 1024; 80 threads, 320). */

static void scan_blocks(const float *x, float *y, float *partials, int n, long chunk)
{
    for (long b = 0; b * chunk < n; b++) {
        double s = 0;
        for (long i = b * chunk; i < n && i < (b + 1) * chunk; i++) {
            s += x[i];
            y[i] = (float)s;
        }
        partials[b] = (float)s;
    }
}

void scan_ref_1024(const float *x, float *y, float *partials, int n) { scan_blocks(x, y, partials, n, 1024); }

void scan_ref_320(const float *x, float *y, float *partials, int n) { scan_blocks(x, y, partials, n, 320); }
