/* Fuzz target: the reader of the JIT maps runtimes write, /tmp/perf-PID.map (symbols/perfmap.c),
 * as the symbolizer uses it: the input is written to the map file of this process's pid in two
 * parts (the file grows while the program runs; the second part may finish a line the first
 * left unfinished), each followed by lookups of the addresses the lines name and next to them. */
#include <unistd.h>

#include "symbols/symbols_internal.h"
#include "tests/fuzz/fuzz.h"

static char map_path[64];

/* Write len bytes to the map file (appended, or the file truncated first). */
static void write_map(const uint8_t *data, size_t len, int append)
{
    FILE *f = fopen(map_path, append ? "ab" : "wb");

    if (!f)
        abort();
    if (len)
        fwrite(data, 1, len, f);
    fclose(f);
}

/* Look up the first address of each of the first 32 lines of text (and either side of it),
 * and of its end (each lookup reads the file again, as the symbolizer's do). */
static void lookups(struct symbolizer_jit **jit, uint32_t pid, const char *text)
{
    int lines = 0;

    for (const char *p = text; p && *p && lines++ < 32; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        char *end;
        uint64_t start = strtoull(p, &end, 16), size = strtoull(end, NULL, 16);
        const char *name;
        for (int d = -1; d <= 1; d++) {
            name = symbolizer_jit_lookup(jit, pid, start + (uint64_t)d);
            FUZZ_CHECK(!name || strlen(name) < 1u << 20);
        }
        symbolizer_jit_lookup(jit, pid, start + size);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint32_t pid = (uint32_t)getpid();
    struct symbolizer_jit *jit = NULL;
    size_t half = size ? data[0] * size / 256 : 0;
    char *text = fuzz_strndup(data, size);

    if (!map_path[0])
        snprintf(map_path, sizeof(map_path), "/tmp/perf-%u.map", pid);
    write_map(data, half, 0);
    lookups(&jit, pid, text);
    write_map(data + half, size - half, 1);
    lookups(&jit, pid, text);
    symbolizer_jit_free(jit);
    free(text);
    unlink(map_path); /* (libFuzzer may end with _Exit: no atexit handler) */
    return 0;
}
