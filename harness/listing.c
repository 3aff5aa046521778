/* listing.c: `harness list`: each backend with its devices and widths (probed in child
 * processes), the kernels found and the size of the case catalogue. Runs nothing. */
#include <stdio.h>
#include <string.h>

#include "runner.h"

static void list_backend(const char *name)
{
    struct probe p;
    prb_probe(name, &p);
    if (p.count < 0) {
        printf("  %-8s %s\n", p.name, p.err);
        return;
    }
    char label[64];
    snprintf(label, sizeof label, "%s%s%s%s", p.name, p.platform[0] ? " (" : "", p.platform,
             p.platform[0] ? " platform)" : "");
    printf("  %-8s runs %s%s%s; %d device(s)%s%s\n", label, p.langs, p.vendor[0] ? "; vendor library " : "", p.vendor,
           p.count, p.count ? "" : ": ", p.count ? "" : (p.err[0] ? p.err : "none found"));
    for (int d = 0; d < p.count; d++) {
        printf("    [%d] %s | %s | %.1f GiB, %u KiB shared/block | widths", d, p.dev[d].name, p.dev[d].driver,
               p.dev[d].global_mem_bytes / 1073741824.0, p.dev[d].shared_mem_per_block / 1024);
        for (int w = 0; w < p.dev[d].n_widths; w++)
            printf(" %d%s%s%s", p.dev[d].widths[w].width, p.dev[d].widths[w].env[0] ? " (" : "",
                   p.dev[d].widths[w].env, p.dev[d].widths[w].env[0] ? ")" : "");
        printf("\n");
    }
}

int run_list(const struct run_opts *o, struct hb_err *err)
{
    struct run_ctx cx;
    memset(&cx, 0, sizeof cx);
    cx.o = o;
    if (plan_load(&cx, err)) {
        plan_free(&cx);
        return EXIT_USAGE;
    }
    char names[LDR_MAX][16];
    int n = ldr_known(names);
    printf("Backends\n");
    for (int i = 0; i < n; i++)
        list_backend(names[i]);
    printf("Kernels\n");
    for (int i = 0; i < cx.kernels.n; i++) {
        const struct kern_desc *k = &cx.kernels.k[i];
        char widths[64], expect[128] = "pass";
        kern_widths_str(k, widths, sizeof widths);
        if (k->expect)
            class_names(k->expect, expect, sizeof expect);
        printf("  %-5s/%-24s %-6s block %ux%ux%u widths %-10s expect %-10s %s\n", k->lang, k->name, op_name(k->op),
               k->block[0], k->block[1], k->block[2], widths, expect, k->note ? k->note : "");
    }
    printf("Cases: %d in %s; %d known bugs listed\n", cx.cases.n, o->cases ? o->cases : o->tier ? o->tier : "quick",
           cx.known.n);
    plan_free(&cx);
    return EXIT_OK;
}
