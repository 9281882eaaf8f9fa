/* Fuzz target: the parsers of /proc/PID/stat and /proc/PID/status (model/procfs.c). The kernel
 * writes them, but a thread's name (comm, in stat between parentheses, and in status's Name:
 * line) is whatever the program set: spaces, parentheses, newlines. The input goes to both. */
#include "model/model_internal.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_strndup(data, size);
    struct model_procfs_stat st;
    struct model_procfs_status ss;

    if (model_procfs_parse_stat(text, &st) == 0)
        FUZZ_CHECK(memchr(st.comm, '\0', sizeof(st.comm)) != NULL);
    model_procfs_parse_status(text, &ss);
    free(text);
    return 0;
}
