/* record_layout.c: prints what forge_records.cu and forge_skip.cu need to speak the worker
 * protocol of the harness they are built with (HB_FORGE_RECORD): a record's size in bytes, the
 * type codes of BEGIN, RESULT, DONE and GROUP, where a record's return code lies, the code of
 * an unsupported load and where a record's reason lies. Built and run by
 * tests/integration/forge.sh; no part of the harness. */
#include <stddef.h>
#include <stdio.h>

#include "protocol.h"

int main(void)
{
    printf("%zu %d %d %d %d %zu %d %zu\n", sizeof(struct msg), MSG_BEGIN, MSG_RESULT, MSG_DONE, MSG_GROUP,
           offsetof(struct msg, rc), HB_UNSUPPORTED, offsetof(struct msg, why));
    return 0;
}
