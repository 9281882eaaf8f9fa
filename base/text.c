/* Text for fixed-width columns, shared by the TUI, the batch frames and the model's text
 * tables: display width of UTF-8 text (wcwidth), and fitting it into a number of columns with
 * an ellipsis. Control characters become '?'. Pure: no terminal, no model. */
#define _GNU_SOURCE 1
#include "base/text.h"

#include <string.h>
#include <wchar.h>

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

int text_width(const char *s, int utf8)
{
    int w = 0;

    while (*s) {
        struct unit u = next_unit(s, utf8);
        w += u.width;
        s += u.len;
    }
    return w;
}

int text_fit(char *out, size_t outsz, const char *s, int width, int utf8)
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
    if (text_width(s, utf8) <= width) {
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

int text_fit_middle(char *out, size_t outsz, const char *s, int width, int utf8)
{
    const char *ell = utf8 ? "\xe2\x80\xa6" : "...";
    int ell_w = utf8 ? 1 : 3, total, head, tail, used;
    size_t o = 0;

    if (!s || outsz == 0 || width < ell_w + 2 || (total = text_width(s, utf8)) <= width)
        return text_fit(out, outsz, s, width, utf8); /* it fits, or too narrow for a middle */
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
