/* The fuzz targets (tests/fuzz/fuzz_*.c): each defines libFuzzer's entry point, which
 * replay_main.c also calls to replay the corpora and the regression inputs in the normal
 * build. Helpers they share are static inline here. */
#ifndef ROCSYS_TESTS_FUZZ_FUZZ_H
#define ROCSYS_TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One input: a crash, a sanitizer report or a failed check is a finding; returns 0. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* data[0..size) as a NUL-terminated string (text parsers take strings; a NUL in the input
 * ends it, as it would end the file's text for them). Free it. */
static inline char *fuzz_strndup(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);

    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* A sink for what a parser prints (/dev/null, opened once). */
static inline FILE *fuzz_devnull(void)
{
    static FILE *f;

    if (!f)
        f = fopen("/dev/null", "w");
    if (!f)
        abort();
    return f;
}

/* An invariant the callers of a parser rely on; a failure is a finding. */
#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

#endif
