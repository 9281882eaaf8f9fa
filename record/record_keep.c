/* --keep DURATION|SIZE (rolling recordings): the strict parser of the value and its short
 * text for the files that say what was kept. */
#include "record.h"

#include <stdio.h>
#include <string.h>

struct keep_unit {
    char suffix;
    int is_size;
    uint64_t mult; /* ns or bytes per unit */
};

static const struct keep_unit keep_units[] = {
    {'s', 0, 1000000000ull},
    {'m', 0, 60ull * 1000000000ull},
    {'h', 0, 3600ull * 1000000000ull},
    {'d', 0, 86400ull * 1000000000ull},
    {'K', 1, 1ull << 10},
    {'M', 1, 1ull << 20},
    {'G', 1, 1ull << 30},
    {'T', 1, 1ull << 40},
};

#define KEEP_NUNITS (sizeof(keep_units) / sizeof(keep_units[0]))

int record_keep_parse(const char *s, struct record_keep *k, char *err, size_t errlen)
{
    uint64_t v = 0;
    const char *c = s;

    memset(k, 0, sizeof(*k));
    for (; *c >= '0' && *c <= '9'; c++) {
        if (v > (UINT64_MAX - 9) / 10) {
            snprintf(err, errlen, "--keep: '%.40s' is too large", s);
            return -1;
        }
        v = v * 10 + (uint64_t)(*c - '0');
    }
    for (size_t i = 0; c > s && c[0] && !c[1] && i < KEEP_NUNITS; i++) {
        const struct keep_unit *u = &keep_units[i];
        if (*c != u->suffix)
            continue;
        if (v > UINT64_MAX / u->mult ||
            v * u->mult > (u->is_size ? 1ull << 50 : 366ull * 86400 * 1000000000ull)) {
            snprintf(err, errlen, "--keep: '%.40s' is too large", s);
            return -1;
        }
        v *= u->mult;
        if (u->is_size && v < RECORD_KEEP_MIN_BYTES) {
            snprintf(err, errlen, "--keep: %.40s is too small (64K at least)", s);
            return -1;
        }
        if (!u->is_size && v < RECORD_KEEP_MIN_NS) {
            snprintf(err, errlen, "--keep: %.40s is too short (2s at least)", s);
            return -1;
        }
        if (u->is_size)
            k->bytes = v;
        else
            k->ns = v;
        return 0;
    }
    snprintf(err, errlen,
             "--keep: '%.40s' is neither a duration (30s, 10m, 2h, 1d) nor a size (64K, 500M, 2G)",
             s);
    return -1;
}

void record_keep_text(const struct record_keep *k, char *buf, size_t n)
{
    uint64_t v = k->ns ? k->ns : k->bytes;
    const struct keep_unit *best = NULL;

    for (size_t i = 0; i < KEEP_NUNITS; i++)
        if ((keep_units[i].is_size == (k->ns == 0)) && v % keep_units[i].mult == 0)
            best = &keep_units[i];
    if (best)
        snprintf(buf, n, "%llu%c", (unsigned long long)(v / best->mult), best->suffix);
    else
        snprintf(buf, n, "%llu%s", (unsigned long long)v, k->ns ? "ns" : " bytes");
}
