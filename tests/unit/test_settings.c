/* Unit test: the settings file (tui/settings.c). A written file reads back the same; each kind
 * of bad line is refused in one line with the defaults; and fuzz-like: random bytes, and valid
 * files with bytes flipped, cut or spliced, never crash, never give a value out of its range,
 * and either parse whole or give the defaults with a one-line reason. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tui/tui.h"
#include "tui/tui_internal.h"

/* Every key of s within the table's range. */
static int in_range(struct tui_settings *s)
{
    for (int i = 0; i < tui_settings_count; i++) {
        const struct tui_setting_def *d = &tui_settings_table[i];
        int v = *tui_setting_field(s, d);
        switch (d->type) {
        case TUI_SET_INT:
        case TUI_SET_BOOL:
        case TUI_SET_CHOICE:
            if (v < d->min || v > d->max)
                return 0;
            break;
        case TUI_SET_VIEW:
            if (v < 0 || v >= tui_view_count)
                return 0;
            break;
        case TUI_SET_COLUMNS:
            if ((unsigned)v >> 6) /* six optional columns */
                return 0;
            break;
        }
    }
    return 1;
}

/* A small deterministic generator (xorshift). */
static uint64_t rng = 88172645463325252ull;
static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

/* Parse len bytes of t and check the contract; returns the parse status. */
static int parse_checked(const char *t, size_t len, struct tui_settings *s)
{
    char err[256];
    struct tui_settings def;
    err[0] = '\0';
    int rc = tui_settings_parse(t, len, s, err, sizeof(err));
    tui_settings_defaults(&def);
    CHECK(rc == 0 || rc == -1);
    CHECK(in_range(s));
    if (rc != 0) {
        CHECK_MSG(memcmp(s, &def, sizeof(def)) == 0, "not the defaults after: %s", err);
        CHECK_MSG(err[0] && !strchr(err, '\n'), "reason: '%s'", err);
        for (const char *p = err; *p; p++)
            if ((unsigned char)*p < 0x20) {
                CHECK_MSG(0, "control character in the reason '%s'", err);
                break;
            }
    }
    return rc;
}

int main(void)
{
    struct tui_settings s, back, def;
    char text[4096], err[256];

    /* defaults, written and read back */
    tui_settings_defaults(&def);
    CHECK(def.delay_tenths == 10 && def.window_s == 5 && def.mouse == 1 && def.view == 0);
    size_t len = tui_settings_format(&def, text, sizeof(text));
    CHECK(parse_checked(text, len, &back) == 0 && memcmp(&back, &def, sizeof(def)) == 0);

    /* every value changed, written and read back */
    s = def;
    s.view = tui_view_find("Kernels");
    s.delay_tenths = 25;
    s.window_s = 30;
    s.mouse = 0;
    s.sort[1] = 2;
    s.sort[4] = 3;
    s.kernel_columns_hidden = 0x5;
    len = tui_settings_format(&s, text, sizeof(text));
    CHECK(strstr(text, "view=Kernels\n") && strstr(text, "sort_hot=name\n") &&
          strstr(text, "kernel_columns=min,hip,grid,block\n") && strstr(text, "mouse=off\n"));
    CHECK(parse_checked(text, len, &back) == 0 && memcmp(&back, &s, sizeof(s)) == 0);

    /* forms: comments, blanks, CRLF, spaces, case, a missing final newline */
    const char *ok =
        "# c\r\n\r\n  delay = 7 \r\nmouse=OFF\nview=hot functions\nkernel_columns=\nwindow=60";
    CHECK(parse_checked(ok, strlen(ok), &back) == 0);
    CHECK(back.delay_tenths == 7 && back.mouse == 0 &&
          back.view == tui_view_find("Hot functions") && back.kernel_columns_hidden == 0x3f &&
          back.window_s == 60);

    /* refused, each in one line */
    static const char *const bad[] = {
        "delay=0\n",      "delay=601\n",          "delay=1x\n",
        "delay=\n",       "window=99999999999\n", "mouse=maybe\n",
        "view=Nowhere\n", "sort_hot=fastest\n",   "kernel_columns=avg,zzz\n",
        "[section]\n",    "colour=1\n",           "=3\n",
        "delay=5\0\n",    "\xff\xfe=1\n"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        size_t n = i == 12 ? 8 : strlen(bad[i]);
        CHECK_MSG(parse_checked(bad[i], n, &back) == -1, "accepted: %s", bad[i]);
    }
    CHECK(tui_settings_parse("colour=1\n", 9, &back, err, sizeof(err)) == -1 &&
          strstr(err, "line 1") && strstr(err, "unknown key 'colour'"));
    /* a long line is refused, not cut into a key */
    memset(text, 'a', 3000);
    memcpy(text, "delay=", 6);
    CHECK(parse_checked(text, 3000, &back) == -1);

    /* fuzz-like: random bytes */
    for (int round = 0; round < 20000; round++) {
        size_t n = next() % 300;
        for (size_t i = 0; i < n; i++) {
            uint32_t r = next();
            /* mostly text that looks like settings, sometimes any byte */
            static const char alphabet[] = "=\n#delaywindowmousesort_hotview 0123456789,-\r\t";
            text[i] = (r & 7) ? alphabet[(r >> 3) % (sizeof(alphabet) - 1)] : (char)(r >> 8);
        }
        parse_checked(text, n, &back);
    }
    /* fuzz-like: a valid file flipped, cut and spliced */
    char valid[4096];
    size_t vlen = tui_settings_format(&s, valid, sizeof(valid));
    for (int round = 0; round < 20000; round++) {
        memcpy(text, valid, vlen);
        size_t n = vlen;
        int edits = 1 + (int)(next() % 4);
        for (int e = 0; e < edits; e++) {
            uint32_t r = next();
            size_t at = r % n;
            switch ((r >> 16) % 3) {
            case 0:
                text[at] = (char)(next() & 0xff);
                break;
            case 1:
                n = at + 1;
                break;
            case 2: /* splice a piece of the file elsewhere */
                if (n + 16 < sizeof(text)) {
                    size_t from = next() % vlen, k = next() % 16;
                    if (from + k > vlen)
                        k = vlen - from;
                    memmove(text + at + k, text + at, n - at);
                    memcpy(text + at, valid + from, k);
                    n += k;
                }
                break;
            }
        }
        parse_checked(text, n, &back);
    }
    return check_summary();
}
