/* warp_sums_ref.c: the per-warp sums the host of canary_warp_partials32 expects, in double:
 * partials[i] = x[32 i] + ... + x[32 i + 31] (the tail of n only), rounded once to float. */

void warp_sums_ref_32(const float *x, float *partials, int n)
{
    for (long i = 0; i * 32 < n; i++) {
        double s = 0;
        for (long j = i * 32; j < n && j < (i + 1) * 32; j++)
            s += x[j];
        partials[i] = (float)s;
    }
}
