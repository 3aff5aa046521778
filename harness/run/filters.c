/* SPDX-License-Identifier: MIT */
/* filters.c: which backends, widths, kernels and cases a run's options select, and the check
 * that every filter could select something: a --kernel, --case, --device or --width that
 * matches nothing here is a mistake on the command line (exit 2, with the closest names or
 * what there is), not a run in which nothing happened to match. The run and `run --list`
 * share it, so both say the same. Globs in a comma list select; a '-GLOB' item deselects. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"

int plan_lang_listed(const char *langs, const char *lang)
{
    size_t n = strlen(lang);
    for (const char *p = langs; (p = strstr(p, lang)); p += n)
        if ((p == langs || p[-1] == ' ') && (p[n] == 0 || p[n] == ' '))
            return 1;
    return 0;
}

int plan_race_detector(const struct run_opts *o) { return o->sanitize && !strcmp(o->sanitize, "racecheck"); }

int plan_id_selected(const struct run_opts *o, const char *backend, int width, const char *lang, const char *kernel,
                     const char *case_name)
{
    struct sel_key key = {backend, -1, NULL, width, lang, kernel, case_name};
    return sel_match(&o->ids, &key);
}

/* Whether a name (or its lang/name form, when given) is selected by a glob list: by any
 * positive item (every name, when there is none), and by no '-' item. */
static int plan_globs_select(const char *const *globs, int n, const char *name, const char *full)
{
    int positives = 0, hit = 0;
    for (int i = 0; i < n; i++) {
        const char *g = globs[i][0] == '-' ? globs[i] + 1 : globs[i];
        int match = !fnmatch(g, name, 0) || (full && !fnmatch(g, full, 0));
        if (globs[i][0] == '-' && match)
            return 0;
        positives += globs[i][0] != '-';
        hit |= globs[i][0] != '-' && match;
    }
    return !positives || hit;
}

int plan_width_selected(const struct run_opts *o, int w)
{
    if (!plan_id_selected(o, NULL, w, NULL, NULL, NULL))
        return 0;
    if (!o->n_widths)
        return 1;
    for (int i = 0; i < o->n_widths; i++)
        if (o->widths[i] == w)
            return 1;
    return 0;
}

int plan_kernel_selected(const struct run_opts *o, const char *lang, const char *name)
{
    if (!plan_id_selected(o, NULL, -1, lang, name, NULL))
        return 0;
    char full[128];
    snprintf(full, sizeof full, "%s/%s", lang, name);
    return plan_globs_select(o->kernel_globs, o->n_kernel_globs, name, full);
}

int plan_case_selected(const struct run_opts *o, const char *name)
{
    return plan_globs_select(o->case_globs, o->n_case_globs, name, NULL);
}

int plan_backend_selected(const struct run_opts *o, const char *name)
{
    if (!plan_id_selected(o, name, -1, NULL, NULL, NULL))
        return 0;
    for (int i = 0; i < o->n_backends; i++)
        if (!strcmp(o->backends[i], name))
            return 1;
    return !o->n_backends;
}

static char *plan_join(const char *lang, const char *name)
{
    char full[160];
    snprintf(full, sizeof full, "%s/%s", lang, name);
    return xstrdup(full);
}

int plan_vendor_selected(const struct run_opts *o, const struct probe *probes, int n_probes, const char *case_name)
{
    for (int b = 0; b < n_probes; b++)
        if (probes[b].vendor[0] && plan_kernel_selected(o, "vendor", probes[b].vendor) &&
            plan_id_selected(o, NULL, -1, "vendor", probes[b].vendor, case_name))
            return 1;
    return 0;
}

/* The kernels' names as --kernel takes them: lang/name, the vendor libraries as vendor/NAME
 * (malloc'd, with the array; free both). Returns the count. */
static int plan_kernel_names(const struct run_ctx *cx, const struct probe *probes, int n_probes, char ***out)
{
    char **names = xcalloc((size_t)cx->kernels.n + (size_t)n_probes + 1, sizeof *names);
    int n = 0;
    for (int i = 0; i < cx->kernels.n; i++)
        names[n++] = plan_join(cx->kernels.k[i].lang, cx->kernels.k[i].name);
    for (int b = 0; b < n_probes; b++)
        if (probes[b].vendor[0])
            names[n++] = plan_join("vendor", probes[b].vendor);
    *out = names;
    return n;
}

/* The name closest to g, whole or (lang/name forms) by the part after the '/'. */
static const char *plan_closest(const char *g, const char *const *names, int n, int bare)
{
    const char *near = str_closest(g, names, n);
    if (near || !bare)
        return near;
    const char **tails = xcalloc((size_t)n + 1, sizeof *tails);
    for (int k = 0; k < n; k++)
        tails[k] = strchr(names[k], '/') ? strchr(names[k], '/') + 1 : names[k];
    const char *tail = str_closest(g, tails, n);
    for (int k = 0; tail && k < n; k++)
        if (tails[k] == tail)
            near = names[k];
    free(tails);
    return near;
}

/* A glob of `list` (a '-' item by what follows it) that selects none of names[] (with
 * `bare`, by the part after their '/' too): -1 with the option, the glob and the closest. */
static int plan_glob_unmatched(const char *option, const char *const *list, int n_list, const char *const *names, int n,
                               int bare, struct hb_err *err)
{
    for (int i = 0; i < n_list; i++) {
        const char *g = list[i][0] == '-' ? list[i] + 1 : list[i];
        int found = 0;
        for (int k = 0; k < n && !found; k++) {
            const char *slash = bare ? strchr(names[k], '/') : NULL;
            found = !fnmatch(g, names[k], 0) || (slash && !fnmatch(g, slash + 1, 0));
        }
        if (found)
            continue;
        const char *near = plan_closest(g, names, n, bare);
        err_set(err, "%s %s: matches no %s here%s%s%s", option, list[i], bare ? "kernel" : "case",
                near ? " (did you mean " : " (`harness list` names them)", near ? near : "", near ? "?)" : "");
        return -1;
    }
    return 0;
}

/* --device and --width against what the probes found. */
static int plan_check_devices(const struct run_opts *o, const struct probe *probes, int n, struct hb_err *err)
{
    char have[512] = "";
    int any = 0, device_found = o->device < 0;
    for (int b = 0; b < n; b++) {
        any |= probes[b].count > 0;
        device_found |= probes[b].count > o->device;
        snprintf(have + strlen(have), sizeof have - strlen(have), "%s%.15s: %d device(s)", b ? "; " : "",
                 probes[b].name, probes[b].count > 0 ? probes[b].count : 0);
    }
    if (any && !device_found)
        return err_set(err, "--device %d: no selected backend has that device (%s)", o->device, have), -1;
    for (int i = 0; any && i < o->n_widths; i++) {
        int found = 0;
        have[0] = 0;
        for (int b = 0; b < n; b++)
            for (int d = 0; d < probes[b].count; d++)
                for (int w = 0; (o->device < 0 || o->device == d) && w < probes[b].dev[d].n_widths; w++) {
                    found |= probes[b].dev[d].widths[w].width == o->widths[i];
                    snprintf(have + strlen(have), sizeof have - strlen(have), " %.15s:%d", probes[b].name,
                             probes[b].dev[d].widths[w].width);
                }
        if (!found)
            return err_set(err, "--width %d: no selected device runs that width (there are:%s)", o->widths[i], have),
                   -1;
    }
    return 0;
}

int plan_check_selection(const struct run_ctx *cx, const struct probe *probes, int n_probes, struct hb_err *err)
{
    char **names;
    int n = plan_kernel_names(cx, probes, n_probes, &names);
    int rc = plan_glob_unmatched("--kernel", cx->o->kernel_globs, cx->o->n_kernel_globs, (const char *const *)names, n,
                                 1, err);
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    const char **cases = xcalloc((size_t)cx->cases.n + 1, sizeof *cases);
    for (int i = 0; i < cx->cases.n; i++)
        cases[i] = cx->cases.c[i].name;
    rc = rc ? rc : plan_glob_unmatched("--case", cx->o->case_globs, cx->o->n_case_globs, cases, cx->cases.n, 0, err);
    free(cases);
    return rc ? rc : plan_check_devices(cx->o, probes, n_probes, err);
}
