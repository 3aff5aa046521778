/* SPDX-License-Identifier: MIT */
/* plan_memory.c: whether the selected cases fit before any is made: each case's buffers on
 * every device, each case's references on the host, and all of them together, since every
 * used case's data stays in memory for the whole run (workers share it copy-on-write). */
#include <stdio.h>
#include <unistd.h>

#include "guard.h"
#include "runner.h"

double plan_case_bytes(const struct hb_case *c, const struct kern_set *ks) { return op_get(c->op)->case_bytes(c, ks); }

/* The host holds inputs, float and float64 references, gauges and their temporaries, and a
 * worker's images of every buffer while a case runs: measured at 8.5x the buffers (uniform
 * data) to 10.8x (subnormals, which add the flush figures). */
#define PLAN_HOST_FACTOR 11.0
/* What stays of a case for the run: per element of C a float, four doubles and a byte of
 * reference (37 bytes against the buffers' 4 for C), the compact inputs and their strided
 * images; for a square SGEMM (12 bytes of buffers per element) 61 bytes, 5x. */
#define PLAN_KEPT_FACTOR 5.0
#define PLAN_GIB 1073741824.0

/* The host side: each case alone (PLAN_HOST_FACTOR), then every used case's kept data
 * together with the largest one's working copies; the case that crosses the line is named. */
static int plan_check_host(const struct run_ctx *cx, double host, struct hb_err *err)
{
    double kept = 0, largest = 0;
    int used = 0;
    for (int i = 0; i < cx->cases.n && host > 0; i++) {
        const struct case_data *d = &cx->data[i];
        if (!d->used)
            continue;
        const struct hb_case *c = d->c;
        double bytes = plan_case_bytes(c, &cx->kernels);
        if (PLAN_HOST_FACTOR * bytes > host)
            return err_set(err,
                           "%s:%d: case %s needs about %.1f GiB of host memory for its references; this host has "
                           "%.1f GiB",
                           c->file, c->line, c->name, PLAN_HOST_FACTOR * bytes / PLAN_GIB, host / PLAN_GIB),
                   -1;
        kept += PLAN_KEPT_FACTOR * bytes, used++;
        largest = bytes > largest ? bytes : largest;
        double need = kept + (PLAN_HOST_FACTOR - PLAN_KEPT_FACTOR) * largest;
        if (need > host)
            return err_set(err,
                           "%s:%d: case %s brings the run's case data to about %.1f GiB of host memory (%d cases, "
                           "all kept for the run); this host has %.1f GiB: select fewer large cases",
                           c->file, c->line, c->name, need / PLAN_GIB, used, host / PLAN_GIB),
                   -1;
    }
    return 0;
}

int plan_check_memory(const struct run_ctx *cx, const struct probe *probes, int n_probes, struct hb_err *err)
{
    double host = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    if (plan_check_host(cx, host, err))
        return -1;
    for (int i = 0; i < cx->cases.n; i++) {
        const struct case_data *d = &cx->data[i];
        if (!d->used)
            continue;
        const struct hb_case *c = d->c;
        double bytes = plan_case_bytes(c, &cx->kernels);
        for (int b = 0; b < n_probes; b++)
            for (int dv = 0; dv < probes[b].count; dv++) {
                double have = (double)probes[b].dev[dv].global_mem_bytes;
                if (have > 0 && bytes + 6.0 * (double)grd_band() > have) {
                    err_set(err, "%s:%d: case %s needs %.1f GiB of buffers; %s device %s has %.1f GiB", c->file,
                            c->line, c->name, bytes / PLAN_GIB, probes[b].name, probes[b].dev[dv].name,
                            have / PLAN_GIB);
                    return -1;
                }
            }
    }
    return 0;
}
