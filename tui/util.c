/* Pure helpers of the TUI: number formatting, fitting text into columns, sanitizing target
 * output, list navigation. No terminal and no model needed (unit-tested directly). */
#define _GNU_SOURCE 1
#include "tui/tui_internal.h"

#include <string.h>
#include <strings.h>
#include <wchar.h>

double tui_pct(uint64_t part, uint64_t total)
{
    if (total == 0)
        return 0.0;
    return 100.0 * (double)part / (double)total;
}

void tui_format_pct(char *buf, size_t n, uint64_t part, uint64_t total)
{
    snprintf(buf, n, "%.1f", tui_pct(part, total));
}

void tui_format_bytes(char *buf, size_t n, uint64_t bytes)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)bytes;
    int u = -1;

    if (bytes < 1024) {
        snprintf(buf, n, "%llu B", (unsigned long long)bytes);
        return;
    }
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, n, "%.1f %s", v, units[u]);
}

void tui_format_duration(char *buf, size_t n, uint64_t ns)
{
    uint64_t s = ns / 1000000000ull;

    if (s < 60)
        snprintf(buf, n, "%.1fs", (double)ns / 1e9);
    else if (s < 3600)
        snprintf(buf, n, "%llum%02llus", (unsigned long long)(s / 60),
                 (unsigned long long)(s % 60));
    else
        snprintf(buf, n, "%lluh%02llum", (unsigned long long)(s / 3600),
                 (unsigned long long)(s / 60 % 60));
}

/* Decode one UTF-8 sequence at s; returns its length (>= 1) and the code point in *cp, or
 * -1 in *cp for an invalid or truncated sequence (length 1 then). */
static int utf8_decode(const unsigned char *s, long *cp)
{
    int len, i;
    long c;

    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    if (s[0] >= 0xc2 && s[0] <= 0xdf) {
        len = 2;
        c = s[0] & 0x1f;
    } else if (s[0] >= 0xe0 && s[0] <= 0xef) {
        len = 3;
        c = s[0] & 0x0f;
    } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
        len = 4;
        c = s[0] & 0x07;
    } else {
        *cp = -1;
        return 1;
    }
    for (i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            *cp = -1;
            return 1;
        }
        c = (c << 6) | (s[i] & 0x3f);
    }
    if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) ||
        (c >= 0xd800 && c <= 0xdfff)) {
        *cp = -1;
        return 1;
    }
    *cp = c;
    return len;
}

/* One display unit of s: its source length, its width, and whether it must be shown as '?'. */
struct unit {
    int len;
    int width;
    int replace;
};

/* Classify the character at s for display. */
static struct unit next_unit(const char *s, int utf8)
{
    const unsigned char *p = (const unsigned char *)s;
    struct unit u = {1, 1, 0};
    long cp;

    if (p[0] < 0x20 || p[0] == 0x7f) {
        u.replace = 1;
        return u;
    }
    if (p[0] < 0x80)
        return u;
    if (!utf8) {
        u.replace = 1;
        return u;
    }
    u.len = utf8_decode(p, &cp);
    if (cp < 0 || cp < 0xa0) { /* invalid, or a C1 control character */
        u.replace = 1;
        return u;
    }
    int w = wcwidth((wchar_t)cp);
    u.width = w < 0 ? 1 : w;
    return u;
}

int tui_text_width(const char *s, int utf8)
{
    int w = 0;

    while (*s) {
        struct unit u = next_unit(s, utf8);
        w += u.width;
        s += u.len;
    }
    return w;
}

int tui_fit(char *out, size_t outsz, const char *s, int width, int utf8)
{
    const char *ell = utf8 ? "\xe2\x80\xa6" : "...";
    int ell_w = utf8 ? 1 : 3;
    size_t o = 0;
    int used = 0, limit;

    if (outsz == 0)
        return 0;
    out[0] = '\0';
    if (width <= 0 || !s)
        return 0;
    if (tui_text_width(s, utf8) <= width) {
        limit = width;
        ell = NULL;
    } else if (width >= ell_w) {
        limit = width - ell_w;
    } else {
        limit = width; /* no room for the ASCII ellipsis: just cut */
        ell = NULL;
    }
    while (*s) {
        struct unit u = next_unit(s, utf8);
        size_t bytes = u.replace ? 1 : (size_t)u.len;
        if (used + u.width > limit || o + bytes + 1 > outsz)
            break;
        if (u.replace)
            out[o] = '?';
        else
            memcpy(out + o, s, bytes);
        o += bytes;
        used += u.width;
        s += u.len;
    }
    if (ell && o + strlen(ell) + 1 <= outsz) {
        memcpy(out + o, ell, strlen(ell));
        o += strlen(ell);
        used += ell_w;
    }
    out[o] = '\0';
    return used;
}

/* Copy the units of s from column from (inclusive) up to column to (exclusive) of its display
 * into out at *o (NUL-terminated; a unit that starts before from is left out); returns the
 * columns copied. */
static int copy_columns(char *out, size_t outsz, size_t *o, const char *s, int from, int to,
                        int utf8)
{
    int col = 0, used = 0;

    while (*s && col < to) {
        struct unit u = next_unit(s, utf8);
        size_t bytes = u.replace ? 1 : (size_t)u.len;
        if (col >= from) {
            if (col + u.width > to || *o + bytes + 1 > outsz)
                break;
            if (u.replace)
                out[*o] = '?';
            else
                memcpy(out + *o, s, bytes);
            *o += bytes;
            used += u.width;
        }
        col += u.width;
        s += u.len;
    }
    out[*o] = '\0';
    return used;
}

int tui_fit_middle(char *out, size_t outsz, const char *s, int width, int utf8)
{
    const char *ell = utf8 ? "\xe2\x80\xa6" : "...";
    int ell_w = utf8 ? 1 : 3, total, head, tail, used;
    size_t o = 0;

    if (!s || outsz == 0 || width < ell_w + 2 || (total = tui_text_width(s, utf8)) <= width)
        return tui_fit(out, outsz, s, width, utf8); /* it fits, or too narrow for a middle */
    head = (width - ell_w + 1) / 2;
    tail = width - ell_w - head;
    used = copy_columns(out, outsz, &o, s, 0, head, utf8);
    if (o + strlen(ell) + 1 > outsz)
        return used;
    memcpy(out + o, ell, strlen(ell) + 1);
    o += strlen(ell);
    used += ell_w;
    /* the tail: the last columns, starting at a unit boundary (a wide character that would
     * straddle it is left out) */
    used += copy_columns(out, outsz, &o, s, total - tail, total, utf8);
    return used;
}

int tui_columns_fit(const struct tui_column *c, int n, int width, int name_min, int *show)
{
    int used = 0;

    for (int i = 0; i < n; i++) {
        show[i] = 1;
        used += (int)strlen(c[i].heading);
    }
    while (width - used < name_min) { /* leave out the column with the highest drop rank */
        int worst = -1;
        for (int i = 0; i < n; i++)
            if (show[i] && c[i].drop > 0 && (worst < 0 || c[i].drop > c[worst].drop))
                worst = i;
        if (worst < 0)
            break;
        show[worst] = 0;
        used -= (int)strlen(c[worst].heading);
    }
    return width - used > 0 ? width - used : 0;
}

void tui_columns_join(char *out, size_t n, const char *const *cells, const int *show, int ncells)
{
    size_t o = 0;

    if (n == 0)
        return;
    out[0] = '\0';
    for (int i = 0; i < ncells; i++)
        if (show[i] && o < n)
            o += (size_t)snprintf(out + o, n - o, "%s", cells[i]);
}

void tui_sanitize(char *out, size_t outsz, const char *in)
{
    const unsigned char *p = (const unsigned char *)in;
    size_t o = 0;

    if (outsz == 0)
        return;
    while (*p && o + 1 < outsz) {
        if (*p == 0x1b) { /* ESC: skip CSI, OSC and two-byte sequences */
            p++;
            if (*p == '[') {
                p++;
                while (*p && !(*p >= 0x40 && *p <= 0x7e))
                    p++;
                if (*p)
                    p++;
            } else if (*p == ']') {
                p++;
                while (*p && *p != 0x07 && !(*p == 0x1b && p[1] == '\\'))
                    p++;
                if (*p == 0x07)
                    p++;
                else if (*p)
                    p += 2;
            } else if (*p) {
                p++;
            }
        } else if (*p == '\t') {
            do
                out[o++] = ' ';
            while (o % 8 != 0 && o + 1 < outsz);
            p++;
        } else if (*p == '\r') {
            p++;
            if (*p && *p != '\n')
                o = 0; /* like a terminal: what follows overwrites the line */
        } else if (*p == '\n') {
            p++;
        } else if (*p < 0x20 || *p == 0x7f) {
            out[o++] = '?';
            p++;
        } else {
            out[o++] = (char)*p++;
        }
    }
    out[o] = '\0';
}

const char *tui_basename(const char *path)
{
    const char *s;

    if (!path)
        return NULL;
    s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int tui_match(const char *hay, const char *needle)
{
    if (!needle || !*needle)
        return 1;
    if (!hay)
        return 0;
    return strcasestr(hay, needle) != NULL;
}

int tui_list_nav(struct tui_list *l, enum tui_nav nav, int count, int page)
{
    if (page < 1)
        page = 1;
    switch (nav) {
    case TUI_NAV_UP:
        l->sel--;
        break;
    case TUI_NAV_DOWN:
        l->sel++;
        break;
    case TUI_NAV_PGUP:
        l->sel -= page;
        l->top -= page;
        break;
    case TUI_NAV_PGDN:
        l->sel += page;
        l->top += page;
        break;
    case TUI_NAV_HOME:
        l->sel = 0;
        break;
    case TUI_NAV_END:
        l->sel = count - 1;
        break;
    default:
        return 0;
    }
    tui_list_fit(l, count, page);
    return 1;
}

void tui_list_fit(struct tui_list *l, int count, int page)
{
    if (page < 1)
        page = 1;
    if (l->sel >= count)
        l->sel = count - 1;
    if (l->sel < 0)
        l->sel = 0;
    if (l->top > count - page)
        l->top = count - page;
    if (l->top < 0)
        l->top = 0;
    if (l->sel < l->top)
        l->top = l->sel;
    if (l->sel >= l->top + page)
        l->top = l->sel - page + 1;
}

int tui_thread_in_rank(struct model *m, const struct model_filter *f, int thread)
{
    const struct model_thread *th = model_thread_at(m, thread);
    const struct model_process *p = th ? model_process_find(m, th->pid) : NULL;

    return !f->only_rank || (p && p->rank == f->only_rank - 1);
}
