/* Names of JIT code from /tmp/perf-PID.map, the file JIT runtimes write for perf
 * (node --perf-basic-prof, Python 3.12+ -X perf, the JVM with an agent, LuaJIT, ...): one line
 * per piece of code, "START SIZE NAME", START and SIZE in hex (with or without 0x). The file
 * grows while the program runs: what was added is read at each lookup (the symbolizer asks once
 * per address), and a later line for the same code wins over an earlier one (code moved or
 * recompiled). */
#include "base/base.h"
#include "symbols/symbols_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct jit_entry {
    uint64_t start, end;
    uint32_t seq; /* line number: the newest line wins */
    char *name;
};

struct symbolizer_jit {
    uint32_t pid;
    dev_t dev;
    ino_t ino;
    off_t parsed; /* bytes of the file read so far (whole lines) */
    struct jit_entry *e;
    size_t n, cap;
    int sorted;
};

/* Parse one line "START SIZE NAME"; 0 if it is not one. */
static int parse_line(char *line, struct jit_entry *out)
{
    char *end;
    uint64_t start = strtoull(line, &end, 16), size;

    if (end == line || *end != ' ')
        return 0;
    line = end + 1;
    size = strtoull(line, &end, 16);
    if (end == line || *end != ' ' || size == 0 || start + size < start)
        return 0;
    line = end + 1;
    line[strcspn(line, "\n")] = '\0';
    if (!*line)
        return 0;
    out->start = start;
    out->end = start + size;
    out->name = xstrdup(line);
    return 1;
}

/* Order by start, then line (the newest last). */
static int entry_cmp(const void *a, const void *b)
{
    const struct jit_entry *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Drop every entry (a new file: the pid was reused or the program started anew). */
static void jit_clear(struct symbolizer_jit *j)
{
    for (size_t i = 0; i < j->n; i++)
        free(j->e[i].name);
    j->n = 0;
    j->parsed = 0;
}

/* Read what the file gained since the last time; 1 if entries were added. */
static int jit_refresh(struct symbolizer_jit *j)
{
    char path[64], *line = NULL;
    size_t cap = 0;
    struct stat st;
    int added = 0;
    FILE *f;

    snprintf(path, sizeof(path), "/tmp/perf-%" PRIu32 ".map", j->pid);
    f = fopen(path, "re");
    if (!f)
        return 0;
    if (fstat(fileno(f), &st) != 0)
        goto out;
    if (st.st_dev != j->dev || st.st_ino != j->ino || st.st_size < j->parsed) {
        jit_clear(j);
        j->dev = st.st_dev;
        j->ino = st.st_ino;
    }
    if (st.st_size == j->parsed || fseeko(f, j->parsed, SEEK_SET) != 0)
        goto out;
    for (;;) {
        ssize_t len = getline(&line, &cap, f);
        if (len <= 0 || line[len - 1] != '\n') /* a line still being written: next time */
            break;
        j->parsed += len;
        struct jit_entry e = {.seq = (uint32_t)(j->n + 1)};
        if (!parse_line(line, &e))
            continue;
        xgrow(&j->e, &j->cap, j->n + 1, sizeof(*j->e));
        j->e[j->n++] = e;
        added = 1;
    }
    if (added)
        j->sorted = 0;
out:
    free(line);
    fclose(f);
    return added;
}

/* The newest entry covering pc, or NULL. */
static const struct jit_entry *jit_find(struct symbolizer_jit *j, uint64_t pc)
{
    if (!j->sorted && j->n) {
        qsort(j->e, j->n, sizeof(*j->e), entry_cmp);
        j->sorted = 1;
    }
    size_t lo = 0, hi = j->n; /* first entry with start > pc */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (j->e[mid].start <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    const struct jit_entry *best = NULL;
    /* entries starting at or below pc, nearest first; a few back for overlapping code */
    for (size_t i = lo, k = 0; i > 0 && k < 64; i--, k++) {
        const struct jit_entry *e = &j->e[i - 1];
        if (pc < e->end && (!best || e->seq > best->seq))
            best = e;
    }
    return best;
}

const char *symbolizer_jit_lookup(struct symbolizer_jit **jp, uint32_t pid, uint64_t pc)
{
    const struct jit_entry *e;

    if (!*jp) {
        *jp = xcalloc(1, sizeof(**jp));
        (*jp)->pid = pid;
    }
    jit_refresh(*jp); /* (each pc is asked once: the symbolizer keeps what it is told) */
    e = jit_find(*jp, pc);
    return e ? e->name : NULL;
}

void symbolizer_jit_free(struct symbolizer_jit *j)
{
    if (!j)
        return;
    jit_clear(j);
    free(j->e);
    free(j);
}
