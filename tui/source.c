/* Pure helpers of the Source view: mapping build paths to local ones (--source-path), per-line
 * counts of one file, which lines are hot and where the next one is. No terminal needed. */
#include "tui/tui_internal.h"

#include <string.h>

int tui_source_map_path(const char *spec, const char *path, char *out, size_t n)
{
    const char *p = spec;

    while (p && *p) {
        const char *end = p + strcspn(p, ","), *eq = memchr(p, '=', (size_t)(end - p));
        size_t olen = eq ? (size_t)(eq - p) : 0;

        /* OLD is a prefix of path that ends at a directory boundary */
        if (olen && strncmp(path, p, olen) == 0 &&
            (path[olen] == '/' || path[olen] == '\0' || p[olen - 1] == '/')) {
            snprintf(out, n, "%.*s%s", (int)(end - eq - 1), eq + 1, path + olen);
            return 1;
        }
        p = *end ? end + 1 : end;
    }
    snprintf(out, n, "%s", path);
    return 0;
}

int tui_source_spec_check(const char *spec, char *err, size_t n)
{
    const char *p = spec;

    do {
        const char *end = p + strcspn(p, ","), *eq = memchr(p, '=', (size_t)(end - p));
        if (!eq || eq == p) {
            snprintf(
                err, n,
                "--source-path: '%.*s' is not OLD=NEW (a build path prefix and where it is here)",
                (int)(end - p), p);
            return -1;
        }
        p = *end ? end + 1 : end;
    } while (*p);
    return 0;
}

const char *tui_source_main_file(const struct model_line_count *lc, int n)
{
    const char *best = NULL;
    uint64_t best_count = 0;

    for (int i = 0; i < n; i++) { /* files are interned: equal paths are equal pointers */
        uint64_t c = 0;
        for (int j = 0; j < n; j++)
            c += lc[j].file == lc[i].file ? lc[j].count : 0;
        if (c > best_count) {
            best_count = c;
            best = lc[i].file;
        }
    }
    return best;
}

uint64_t tui_source_line_counts(const struct model_line_count *lc, int n, const char *file,
                                uint64_t *counts, int nlines)
{
    uint64_t other = 0;

    memset(counts, 0, (size_t)nlines * sizeof(*counts));
    for (int i = 0; i < n; i++) {
        if (lc[i].file == file && lc[i].line >= 1 && lc[i].line <= nlines)
            counts[lc[i].line - 1] += lc[i].count;
        else
            other += lc[i].count;
    }
    return other;
}

int tui_source_is_hot(uint64_t count, uint64_t max, uint64_t total)
{
    return count > 0 && (count == max || count * 10 >= total);
}

int tui_source_next_hot(const uint64_t *counts, int nlines, int from, int dir, uint64_t min_count)
{
    for (int i = from + (dir < 0 ? -1 : 1); i >= 0 && i < nlines; i += dir < 0 ? -1 : 1)
        if (counts[i] && counts[i] >= min_count)
            return i;
    return -1;
}
