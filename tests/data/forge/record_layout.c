/* record_layout.c: prints what forge_records.cu needs to speak the worker protocol of the
 * harness it is built with (HB_FORGE_RECORD): a record's size in bytes and the type codes of
 * BEGIN, RESULT and DONE. Built and run by tests/integration/trust.sh; no part of the harness. */
#include <stdio.h>

#include "protocol.h"

int main(void)
{
    printf("%zu %d %d %d\n", sizeof(struct msg), MSG_BEGIN, MSG_RESULT, MSG_DONE);
    return 0;
}
