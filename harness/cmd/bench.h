/* SPDX-License-Identifier: MIT */
/* bench.h: `harness bench`: speed of each kernel as a ratio to a peer measured in the same
 * run (the vendor SGEMM, a device-to-device copy), never as bare seconds alone, with the
 * figures that explain it (registers, shared memory, occupancy). bench.c times; bench_out.c
 * writes the rows as JSON, CSV and an SVG chart. */
#ifndef HB_BENCH_H
#define HB_BENCH_H

#include <stdio.h>

#include "backend_call.h"
#include "util.h"

#define BENCH_MAX_SIZES 8

struct bench_opts {
    const char *backends; /* comma list; the first vendor library among them is the yardstick */
    const char *kernel_glob;
    long sizes[BENCH_MAX_SIZES];
    int n_sizes;
    long reduce_n;
    int runs;
    int all_devices;              /* every device of each backend, not only device 0 */
    const char *json, *csv, *svg; /* output files, NULL when not asked for */
};

/* `harness bench ...`: parses argv (argv[1] is "bench") and runs; returns an exit code. */
int bench_command(int argc, char **argv);

int bench_main(const struct bench_opts *o, struct hb_err *err);

/* One measured point: a kernel, the vendor library or the copy, on one device at one size. */
enum bench_what { BENCH_KERNEL, BENCH_VENDOR, BENCH_COPY };
struct bench_row {
    char impl[96]; /* "cuda/sgemm_optimized", "cublas", "device copy" */
    char backend[16];
    char device[128];
    char driver[128];
    int device_index;
    enum bench_what what;
    char op[16]; /* the op timed ("sgemm", "reduce", ...; the vendor library's), or "copy" */
    int flops;   /* 1: an n^3 product, rate in TFLOPS; 0: n elements (or the copy), GB/s */
    long n;
    double ms;
    double rate;      /* TFLOPS, or GB/s (of the bytes the op says: a reduction's read; the copy: read + written) */
    double pct_ruler; /* % of the vendor SGEMM or of the copy; < 0 when there is none */
    double pct_peak;  /* % of the fp32 or DRAM peak; < 0 when unknown */
    int have_info;
    struct hb_kernel_info info;
};

/* Median device time of `runs` launches after two warm-ups (the copy: copy_bytes), or a
 * negative value. */
double bench_time_launches(struct bcall *bk, hb_kern *kern, enum bench_what what, const unsigned grid[3],
                           const struct hb_args *args, size_t copy_bytes, int runs);

/* Writers of bench_out.c; each returns 0, or -1 with err. */
int bench_write_json(const char *path, const struct bench_opts *o, const struct bench_row *rows, int n,
                     struct hb_err *err);
int bench_write_csv(const char *path, const struct bench_row *rows, int n, struct hb_err *err);
/* SGEMM rows only: % of the vendor per size (TFLOPS when no row has a vendor ratio), one
 * line per kernel and device. */
int bench_write_svg(const char *path, const struct bench_row *rows, int n, struct hb_err *err);

#endif
