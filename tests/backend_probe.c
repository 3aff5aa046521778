/* SPDX-License-Identifier: MIT */
/* backend_probe.c: loads one backend shared object as the harness's child does (dlopen, then
 * hb_backend_entry) and prints what it says about itself, one key=value per line: abi, name,
 * platform, device count or the reason for none, open()'s status at the first width, and the
 * CUDA work-queue setting the process has after loading it.
 * For tests/integration.sh; it runs no kernel. Usage: backend_probe build/backends/hb_x.so */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s BACKEND.so\n", argv[0]);
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("dlopen=%s\n", dlerror());
        return 1;
    }
    const struct hb_backend *(*entry)(void);
    void *sym = dlsym(h, "hb_backend_entry");
    memcpy(&entry, &sym, sizeof sym); /* POSIX: dlsym's object pointer is the function's */
    const struct hb_backend *be = entry ? entry() : NULL;
    if (!be) {
        printf("entry=missing\n");
        return 1;
    }
    printf("abi=%d\nname=%s\n", be->abi, be->name);
    const char *queues = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    printf("cuda_work_queues=%s\n", queues ? queues : "(unset)");
    if (be->abi >= 2)
        printf("platform=%s\n", be->platform ? be->platform : "(none)");
    if (be->abi >= 6)
        printf("caps=%u\n", be->caps);
    struct hb_device_info dev[4];
    char err[512] = "";
    int n = be->list_devices(dev, 4, err, sizeof err);
    printf("devices=%d\n", n);
    if (n <= 0) {
        printf("why=%s\n", err);
        hb_ctx *ctx = NULL;
        printf("open=%d\n", be->open(&ctx, 0, 32, err, sizeof err));
        if (ctx)
            be->close(ctx);
    }
    for (int i = 0; i < n && i < 4; i++)
        printf("device%d=%s | %s | width %d\n", i, dev[i].name, dev[i].driver, dev[i].widths[0].width);
    return 0;
}
