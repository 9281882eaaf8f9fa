/* Unit test of the spool's buffers (session/spool.c, base's xmap_resize): records appended
 * across many growths keep their bytes and order, a drain's fit gives memory back and keeps
 * what is left, and a freed buffer is empty and reusable. Prints every failed check. */
#include "base/base.h"
#include "session/session.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

/* Record i's length (8-byte multiples and not) and its bytes. */
static uint32_t rec_len(uint32_t i)
{
    return 1 + (i * 37) % 1500;
}
static uint8_t rec_byte(uint32_t i, uint32_t k)
{
    return (uint8_t)(i * 131 + k);
}

/* Walk b's records from record first on; the count that match, stopping at the first that
 * does not. */
static uint32_t matching(const struct session_spool_buf *b, uint32_t first)
{
    uint32_t i = first;
    for (size_t off = 0; off + sizeof(struct session_spool_rec) <= b->len; i++) {
        struct session_spool_rec r;
        memcpy(&r, b->data + off, sizeof(r));
        if (r.pid != i || r.len != rec_len(i))
            break;
        const uint8_t *p = b->data + off + sizeof(r);
        uint32_t k = 0;
        while (k < r.len && p[k] == rec_byte(i, k))
            k++;
        if (k != r.len)
            break;
        off += sizeof(r) + (((size_t)r.len + 7) & ~(size_t)7);
    }
    return i - first;
}

int main(void)
{
    struct session_spool_buf b = {0};
    uint8_t rec[1500];
    uint32_t n = 0;
    size_t grows = 0, cap = 0;

    /* 40 MiB of records: the buffer grows from 256 KiB through 64 MiB */
    while (b.len < 40u << 20) {
        struct session_spool_rec r = {.pid = n, .len = rec_len(n)};
        for (uint32_t k = 0; k < r.len; k++)
            rec[k] = rec_byte(n, k);
        size_t took = session_spool_buf_append(&b, &r, rec);
        CHECK_MSG(took == sizeof(r) + ((r.len + 7u) & ~7u), "record %u took %zu bytes", n, took);
        if (b.cap != cap)
            grows++, cap = b.cap;
        n++;
    }
    CHECK_MSG(grows >= 8, "grew %zu times to %zu bytes", grows, b.cap);
    CHECK_MSG(b.cap >= b.len && b.cap % 4096 == 0, "capacity %zu for %zu bytes", b.cap, b.len);
    uint32_t ok = matching(&b, 0);
    CHECK_MSG(ok == n, "%u of %u records intact after growing", ok, n);

    /* a drain that used most of it keeps it (the next burst finds room); the quiet drain
     * after, which used little, gives the memory back */
    size_t used = b.len;
    b.len = 0;
    session_spool_buf_fit(&b, used);
    CHECK_MSG(b.cap == cap && b.data != NULL, "kept after a busy drain: capacity %zu of %zu", b.cap,
              cap);
    session_spool_buf_fit(&b, 4096);
    CHECK_MSG(b.cap == 0 && b.data == NULL, "empty after a quiet drain: capacity %zu", b.cap);

    /* a small remainder of a big buffer: it shrinks and keeps the remainder */
    n = 0;
    while (b.len < 16u << 20) {
        struct session_spool_rec r = {.pid = n, .len = rec_len(n)};
        for (uint32_t k = 0; k < r.len; k++)
            rec[k] = rec_byte(n, k);
        session_spool_buf_append(&b, &r, rec);
        n++;
    }
    size_t big = b.cap;
    size_t keep = 0;
    uint32_t kept = 0;
    while (keep < 64 * 1024) { /* the first records stay, as a drain that held some back */
        keep += sizeof(struct session_spool_rec) + ((rec_len(kept) + 7u) & ~7u);
        kept++;
    }
    b.len = keep;
    session_spool_buf_fit(&b, keep);
    CHECK_MSG(b.cap < big && b.cap >= b.len, "fit: capacity %zu (was %zu) for %zu bytes", b.cap,
              big, b.len);
    ok = matching(&b, 0);
    CHECK_MSG(ok == kept, "%u of %u kept records intact after shrinking", ok, kept);

    session_spool_buf_free(&b);
    CHECK_MSG(b.data == NULL && b.len == 0 && b.cap == 0, "freed: %zu bytes left", b.cap);
    struct session_spool_rec r = {.pid = 0, .len = rec_len(0)};
    for (uint32_t k = 0; k < r.len; k++)
        rec[k] = rec_byte(0, k);
    session_spool_buf_append(&b, &r, rec);
    CHECK_MSG(matching(&b, 0) == 1, "a freed buffer takes records again");
    session_spool_buf_free(&b);
    session_spool_buf_free(&b); /* twice: nothing to free */
    return check_summary();
}
