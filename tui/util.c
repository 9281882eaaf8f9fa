/* Pure helpers of the TUI: number formatting, fitting text into columns, sanitizing target
 * output, list navigation. No terminal and no model needed (unit-tested directly). */
#define _GNU_SOURCE 1
#include "tui/tui_internal.h"
#include "base/text.h"

#include <string.h>
#include <strings.h>

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

/* The TUI's names for base/text.c's fitting (tui_internal.h says what they do). */
int tui_text_width(const char *s, int utf8)
{
    return text_width(s, utf8);
}

int tui_fit(char *out, size_t outsz, const char *s, int width, int utf8)
{
    return text_fit(out, outsz, s, width, utf8);
}

int tui_fit_middle(char *out, size_t outsz, const char *s, int width, int utf8)
{
    return text_fit_middle(out, outsz, s, width, utf8);
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
