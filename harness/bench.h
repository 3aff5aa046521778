/* bench.h: `harness bench`: speed of each kernel as a ratio to a peer measured in the same
 * run (the vendor SGEMM, a device-to-device copy), never as bare seconds alone. */
#ifndef HB_BENCH_H
#define HB_BENCH_H

#include "util.h"

#define BENCH_MAX_SIZES 8

struct bench_opts {
    const char *backends; /* comma list; the first vendor library among them is the yardstick */
    const char *kernel_glob;
    long sizes[BENCH_MAX_SIZES];
    int n_sizes;
    long reduce_n;
    int runs;
};

int bench_main(const struct bench_opts *o, struct hb_err *err);

#endif
