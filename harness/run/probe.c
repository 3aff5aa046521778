/* SPDX-License-Identifier: MIT */
/* probe.c: see probe.h. */
#include "probe.h"

#include <stdio.h>
#include <string.h>

#include "backend_call.h"
#include "child.h"
#include "loader.h"
#include "util.h"

#define PROBE_TIMEOUT_MS 120000

static void probe_child(void *arg, int fd)
{
    const char *name = arg;
    struct probe p;
    memset(&p, 0, sizeof p);
    snprintf(p.name, sizeof p.name, "%s", name);
    p.built = 1;
    struct hb_err err = {{0}};
    struct bcall bk;
    if (bcall_backend(&bk, name, &err)) {
        p.count = -1;
        snprintf(p.err, sizeof p.err, "%.500s", err.msg);
    } else {
        snprintf(p.langs, sizeof p.langs, "%s", bcall_langs(&bk));
        if (bcall_vendor(&bk))
            snprintf(p.vendor, sizeof p.vendor, "%s", bcall_vendor(&bk));
        p.caps = bcall_caps(&bk);
        if (bcall_platform(&bk))
            snprintf(p.platform, sizeof p.platform, "%s", bcall_platform(&bk));
        p.count = bcall_list_devices(&bk, p.dev, MAX_DEVICES, p.err, sizeof p.err);
        if (p.count > MAX_DEVICES)
            p.count = MAX_DEVICES;
    }
    child_write(fd, &p, sizeof p);
}

/* The child ran a driver: its answer is checked before anything reads it. -3 when it is
 * out of range. */
static int probe_valid(struct probe *p)
{
    if (p->count < -1 || p->count > MAX_DEVICES)
        return -3;
    for (int d = 0; d < p->count; d++) {
        struct hb_device_info *dev = &p->dev[d];
        if (dev->n_widths < 0 || dev->n_widths > HB_MAX_WIDTHS)
            return -3;
        dev->name[sizeof dev->name - 1] = dev->driver[sizeof dev->driver - 1] = 0;
        for (int w = 0; w < dev->n_widths; w++)
            if (dev->widths[w].width < 1 || dev->widths[w].width > 1024)
                return -3;
            else
                dev->widths[w].env[sizeof dev->widths[w].env - 1] = 0;
    }
    p->name[sizeof p->name - 1] = p->langs[sizeof p->langs - 1] = p->vendor[sizeof p->vendor - 1] = 0;
    p->platform[sizeof p->platform - 1] = p->err[sizeof p->err - 1] = 0;
    return 1;
}

void prb_probe(const char *name, struct probe *p)
{
    memset(p, 0, sizeof p[0]);
    snprintf(p->name, sizeof p->name, "%s", name);
    if (!ldr_is_built(name)) {
        p->count = -1;
        snprintf(p->err, sizeof p->err, "not built (its toolchain was missing at build time: see `make`)");
        return;
    }
    struct child ch;
    struct hb_err err = {{0}};
    int rc = child_spawn(&ch, probe_child, (void *)name, &err) ? -2 : child_read(ch.fd, p, sizeof *p, PROBE_TIMEOUT_MS);
    if (rc != 1)
        child_kill(&ch);
    child_reap(&ch);
    if (rc == 1)
        rc = probe_valid(p);
    if (rc != 1) {
        memset(p, 0, sizeof p[0]);
        snprintf(p->name, sizeof p->name, "%s", name);
        p->count = -1;
        snprintf(p->err, sizeof p->err, "device probe %s",
                 rc == -1   ? "hung"
                 : rc == -3 ? "answered nonsense"
                            : "crashed");
    }
    p->built = 1;
}
