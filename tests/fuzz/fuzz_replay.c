/* Fuzz target: --replay's reading of a recording (session/replay.c, replay_decode.c): the
 * trace, session.json and output.log become the model, whose views are printed as one batch
 * frame. The input is the three files' contents separated by FUZZ_SEPARATOR (a part left out:
 * that file is missing); the seeds are real recordings joined this way. */
#define _GNU_SOURCE /* memmem */
#include "session/session.h"
#include "tests/fuzz/fuzz.h"

#define FUZZ_SEPARATOR "\n#rocsys-fuzz-file#\n"

/* The next part of [*p, end) up to the separator (or the end); NULL when there is none. */
static const uint8_t *next_part(const uint8_t **p, const uint8_t *end, size_t *len)
{
    const size_t sep = sizeof(FUZZ_SEPARATOR) - 1;
    const uint8_t *start = *p, *at;

    if (!start)
        return NULL;
    at = memmem(start, (size_t)(end - start), FUZZ_SEPARATOR, sep);
    *len = at ? (size_t)(at - start) : (size_t)(end - start);
    *p = at ? at + sep : NULL;
    return start;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *p = data, *end = data + size, *trace, *json, *out;
    size_t trace_len = 0, json_len = 0, out_len = 0;
    char *json_text = NULL;

    trace = next_part(&p, end, &trace_len);
    json = next_part(&p, end, &json_len);
    out = next_part(&p, end, &out_len);
    if (json)
        json_text = fuzz_strndup(json, json_len);
    session_replay_buffers(trace, trace_len, json_text, (const char *)out, out ? out_len : 0,
                           fuzz_devnull());
    free(json_text);
    return 0;
}
