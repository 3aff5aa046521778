/* outputs.c: see outputs.h. */
#include "outputs.h"

#include "html.h"
#include "run.h"

int out_finish(const struct out_opts *o, const struct rep_sink *s, int code, struct hb_err *err)
{
    if (o->html && html_write(o->html, s, err)) {
        code = EXIT_USAGE;
    } else if (o->record && base_record(o->record, s, err)) {
        code = EXIT_USAGE;
    } else if (o->compare) {
        int failing = base_compare(o->compare, s, &o->base, stdout, err);
        if (failing < 0)
            code = EXIT_USAGE;
        else if (failing && code == EXIT_OK)
            code = EXIT_FAILURES;
    }
    rep_print_summary(stdout, s);
    return code;
}
