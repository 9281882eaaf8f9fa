/* Settings like htop's: $XDG_CONFIG_HOME/rocsys-top/rocsys-toprc (else ~/.config/...), read at
 * start and written when the TUI closes. One const table holds every key (type, range,
 * default); the parser takes any bytes and either accepts the whole file or says in one line
 * why not (the defaults are used then, and the file is left as it is). */
#define _GNU_SOURCE
#include "tui/tui_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define SETTINGS_MAX_BYTES 65536

#define SOFF(f) offsetof(struct tui_settings, f)

const struct tui_setting_def tui_settings_table[] = {
    {"view", TUI_SET_VIEW, 0, 0, 0, NULL, SOFF(view), NULL, NULL, "View at start"},
    {"delay", TUI_SET_INT, 1, 600, 10, NULL, SOFF(delay_tenths), NULL, NULL,
     "Refresh delay (tenths of a second)"},
    {"window", TUI_SET_INT, 1, 60, 5, NULL, SOFF(window_s), NULL, NULL,
     "Sliding window 'w' (seconds)"},
    {"mouse", TUI_SET_BOOL, 0, 1, 1, NULL, SOFF(mouse), NULL, NULL, "Mouse"},
    {"sort_tree", TUI_SET_CHOICE, 0, 3, 0, "total self name gpu", SOFF(sort[0]), "Call tree",
     tui_calltree_sort, "Call tree: sort"},
    {"sort_hot", TUI_SET_CHOICE, 0, 2, 0, "self total name", SOFF(sort[1]), "Hot functions",
     tui_hot_sort_order, "Hot functions: sort"},
    {"sort_threads", TUI_SET_CHOICE, 0, 2, 0, "table cpu samples", SOFF(sort[2]), "Threads",
     tui_threads_sort, "Threads: sort"},
    {"sort_regions", TUI_SET_CHOICE, 0, 3, 0, "total count mean name", SOFF(sort[3]), "Regions",
     tui_regions_sort, "Regions: sort"},
    {"sort_kernels", TUI_SET_CHOICE, 0, 4, 0, "time calls avg max name", SOFF(sort[4]), "Kernels",
     tui_kernels_sort, "Kernels: sort"},
    {"sort_hipapi", TUI_SET_CHOICE, 0, 3, 0, "time calls errors name", SOFF(sort[5]), "HIP API",
     tui_hipapi_sort, "HIP API: sort"},
    {"kernel_columns", TUI_SET_COLUMNS, 0, 0, 0, TUI_KERNEL_OPTIONAL_COLUMNS,
     SOFF(kernel_columns_hidden), NULL, NULL, "Kernels: column"},
};
const int tui_settings_count = (int)(sizeof(tui_settings_table) / sizeof(tui_settings_table[0]));

/* The settings being used and where to write them (tui_settings_use). */
static struct tui_settings use_settings;
static int use_set;
static char use_path[4096];

int *tui_setting_field(struct tui_settings *s, const struct tui_setting_def *d)
{
    return (int *)((char *)s + d->offset);
}

void tui_settings_defaults(struct tui_settings *s)
{
    memset(s, 0, sizeof(*s));
    for (int i = 0; i < tui_settings_count; i++)
        *tui_setting_field(s, &tui_settings_table[i]) = tui_settings_table[i].def;
}

/* Word idx of a space-separated list into buf ("" past the end). */
static void word_at(const char *list, int idx, char *buf, size_t n)
{
    const char *p = list;
    for (int i = 0; *p; i++) {
        size_t len = strcspn(p, " ");
        if (i == idx) {
            snprintf(buf, n, "%.*s", (int)len, p);
            return;
        }
        p += len;
        while (*p == ' ')
            p++;
    }
    snprintf(buf, n, "%s", "");
}

/* Index of word w (len bytes, any case) in a space-separated list, or -1. */
static int word_index(const char *list, const char *w, size_t wlen)
{
    const char *p = list;
    for (int i = 0; *p; i++) {
        size_t len = strcspn(p, " ");
        if (len == wlen && strncasecmp(p, w, len) == 0)
            return i;
        p += len;
        while (*p == ' ')
            p++;
    }
    return -1;
}

void tui_setting_text(const struct tui_setting_def *d, int v, char *buf, size_t n)
{
    size_t o = 0;

    switch (d->type) {
    case TUI_SET_INT:
        snprintf(buf, n, "%d", v);
        return;
    case TUI_SET_BOOL:
        snprintf(buf, n, "%s", v ? "on" : "off");
        return;
    case TUI_SET_VIEW:
        snprintf(buf, n, "%s", v >= 0 && v < tui_view_count ? tui_views[v]->name : "?");
        return;
    case TUI_SET_CHOICE:
        word_at(d->choices, v, buf, n);
        return;
    case TUI_SET_COLUMNS: /* the columns shown */
        buf[0] = '\0';
        for (int i = 0; i < 32 && n; i++) {
            char w[32];
            word_at(d->choices, i, w, sizeof(w));
            if (!w[0])
                break;
            if (!((unsigned)v >> i & 1u) && o < n)
                o += (size_t)snprintf(buf + o, n - o, "%s%s", o ? "," : "", w);
        }
        return;
    }
}

/* Parse value v for d into *out; 0, or -1 with a reason. */
static int parse_value(const struct tui_setting_def *d, const char *v, int *out, char *err,
                       size_t n)
{
    char *end;
    long x;

    switch (d->type) {
    case TUI_SET_INT:
        errno = 0;
        x = strtol(v, &end, 10);
        if (!*v || *end || errno || x < d->min || x > d->max) {
            snprintf(err, n, "%s: '%.40s' is not a number from %d to %d", d->key, v, d->min,
                     d->max);
            return -1;
        }
        *out = (int)x;
        return 0;
    case TUI_SET_BOOL:
        if ((x = word_index("off on 0 1 no yes false true", v, strlen(v))) < 0) {
            snprintf(err, n, "%s: '%.40s' is not on or off", d->key, v);
            return -1;
        }
        *out = (int)(x & 1);
        return 0;
    case TUI_SET_VIEW:
        for (int i = 0; i < tui_view_count; i++)
            if (strcasecmp(tui_views[i]->name, v) == 0) {
                *out = i;
                return 0;
            }
        snprintf(err, n, "%s: '%.40s' is not a view", d->key, v);
        return -1;
    case TUI_SET_CHOICE:
        if ((x = word_index(d->choices, v, strlen(v))) < 0) {
            snprintf(err, n, "%s: '%.40s' is not one of: %s", d->key, v, d->choices);
            return -1;
        }
        *out = (int)x;
        return 0;
    case TUI_SET_COLUMNS: { /* the columns shown, comma-separated; the others hidden */
        unsigned shown = 0, all = 0;
        char w[32];
        for (int i = 0; i < 32; i++) {
            word_at(d->choices, i, w, sizeof(w));
            if (!w[0])
                break;
            all |= 1u << i;
        }
        for (const char *p = v; *p;) {
            size_t len = strcspn(p, ",");
            int i = word_index(d->choices, p, len);
            if (i < 0) {
                snprintf(err, n, "%s: '%.*s' is not one of: %s", d->key, (int)(len < 40 ? len : 40),
                         p, d->choices);
                return -1;
            }
            shown |= 1u << i;
            p += len;
            if (*p == ',')
                p++;
        }
        *out = (int)(all & ~shown);
        return 0;
    }
    }
    return -1;
}

/* Copy s into out, each byte that is not printable ASCII as '?' (for a one-line message). */
static void printable(char *out, size_t n, const char *s, size_t len)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 1 < n; i++)
        out[o++] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
    out[o] = '\0';
}

int tui_settings_parse(const char *text, size_t len, struct tui_settings *s, char *err, size_t n)
{
    struct tui_settings tmp;
    int line_no = 0;

    tui_settings_defaults(s);
    tui_settings_defaults(&tmp);
    if (memchr(text, '\0', len)) {
        snprintf(err, n, "not a text file");
        return -1;
    }
    for (size_t pos = 0; pos < len;) {
        const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
        size_t ll = nl ? (size_t)(nl - line) : len - pos;
        char buf[512], key[64], shown[64];
        pos += ll + (nl ? 1 : 0);
        line_no++;
        while (ll && (line[ll - 1] == '\r' || line[ll - 1] == ' ' || line[ll - 1] == '\t'))
            ll--;
        while (ll && (*line == ' ' || *line == '\t'))
            line++, ll--;
        if (ll == 0 || *line == '#')
            continue;
        if (ll >= sizeof(buf)) {
            snprintf(err, n, "line %d: too long", line_no);
            return -1;
        }
        memcpy(buf, line, ll);
        buf[ll] = '\0';
        char *eq = strchr(buf, '=');
        if (!eq) {
            printable(shown, sizeof(shown), buf, strlen(buf));
            snprintf(err, n, "line %d: '%s' is not key=value", line_no, shown);
            return -1;
        }
        char *k = buf, *v = eq + 1;
        *eq = '\0';
        for (char *e = eq; e > k && (e[-1] == ' ' || e[-1] == '\t');)
            *--e = '\0';
        while (*v == ' ' || *v == '\t')
            v++;
        const struct tui_setting_def *d = NULL;
        for (int i = 0; i < tui_settings_count && !d; i++)
            if (strcmp(tui_settings_table[i].key, k) == 0)
                d = &tui_settings_table[i];
        if (!d) {
            printable(key, sizeof(key), k, strlen(k));
            snprintf(err, n, "line %d: unknown key '%s'", line_no, key);
            return -1;
        }
        char why[200];
        printable(shown, sizeof(shown), v, strlen(v));
        if (parse_value(d, shown, tui_setting_field(&tmp, d), why, sizeof(why)) != 0) {
            snprintf(err, n, "line %d: %s", line_no, why);
            return -1;
        }
    }
    *s = tmp;
    return 0;
}

size_t tui_settings_format(const struct tui_settings *s, char *buf, size_t cap)
{
    size_t o = 0;

    if (cap == 0)
        return 0;
    buf[0] = '\0';
    o += (size_t)snprintf(buf, cap,
                          "# rocsys-top settings: written when the display closes, read at start "
                          "(F2 changes them; --no-config ignores this file)\n");
    for (int i = 0; i < tui_settings_count && o < cap; i++) {
        const struct tui_setting_def *d = &tui_settings_table[i];
        char v[256];
        tui_setting_text(d, *tui_setting_field((struct tui_settings *)s, d), v, sizeof(v));
        o += (size_t)snprintf(buf + o, cap - o, "%s=%s\n", d->key, v);
    }
    return o < cap ? o : cap - 1;
}

int tui_settings_path(char *buf, size_t cap)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    int w;

    if (xdg && xdg[0] == '/') /* the spec: a relative path is to be ignored */
        w = snprintf(buf, cap, "%s/rocsys-top/rocsys-toprc", xdg);
    else if (home && home[0] == '/')
        w = snprintf(buf, cap, "%s/.config/rocsys-top/rocsys-toprc", home);
    else
        return -1;
    return w > 0 && (size_t)w < cap ? 0 : -1;
}

int tui_settings_load(const char *path, struct tui_settings *s, char *err, size_t n)
{
    char *text = xmalloc(SETTINGS_MAX_BYTES + 1);
    size_t len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), rc = -1;
    struct stat st;

    tui_settings_defaults(s);
    if (fd < 0) {
        free(text);
        if (errno == ENOENT)
            return 0;
        snprintf(err, n, "%s", strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, n, "not a regular file");
        goto out;
    }
    for (ssize_t r; len < SETTINGS_MAX_BYTES + 1; len += (size_t)r) {
        r = read(fd, text + len, SETTINGS_MAX_BYTES + 1 - len);
        if (r < 0 && errno == EINTR) {
            r = 0;
            continue;
        }
        if (r <= 0)
            break;
    }
    if (len > SETTINGS_MAX_BYTES) {
        snprintf(err, n, "larger than %d bytes", SETTINGS_MAX_BYTES);
        goto out;
    }
    rc = tui_settings_parse(text, len, s, err, n) == 0 ? 1 : -1;
out:
    close(fd);
    free(text);
    return rc;
}

/* mkdir -p of path's directory (0700 for what is made). */
static int make_parents(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s", path);
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return 0;
}

int tui_settings_save(const char *path, const struct tui_settings *s, char *err, size_t n)
{
    char text[4096], tmp[4200];
    size_t len = tui_settings_format(s, text, sizeof(text));
    int fd;

    snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
    if (make_parents(path) != 0 || (fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
        snprintf(err, n, "%s", strerror(errno));
        return -1;
    }
    fchmod(fd, 0644);
    ssize_t w = write(fd, text, len);
    if (w != (ssize_t)len || fsync(fd) != 0 || close(fd) != 0 || rename(tmp, path) != 0) {
        snprintf(err, n, "%s", w < 0 || w == (ssize_t)len ? strerror(errno) : "short write");
        unlink(tmp);
        return -1;
    }
    return 0;
}

void tui_settings_use(const struct tui_settings *s, const char *path)
{
    use_settings = *s;
    use_set = 1;
    snprintf(use_path, sizeof(use_path), "%s", path ? path : "");
}

/* The settings the TUI starts from, and the file to write at the end ("" none). */
const char *tui_settings_current(struct tui_settings *out)
{
    if (use_set)
        *out = use_settings;
    else
        tui_settings_defaults(out);
    return use_set ? use_path : "";
}
