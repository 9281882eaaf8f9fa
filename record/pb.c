/* Protocol buffers encoding helpers (pb.h): shared by the recording's protobuf writers. */
#include "pb.h"

#include <stdlib.h>
#include <string.h>

#include "model/model.h"

void pb_reserve(struct pb *b, size_t more)
{
    if (b->n + more <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + more)
        cap *= 2;
    b->p = xrealloc(b->p, cap);
    b->cap = cap;
}

size_t pb_varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

size_t pb_put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

void pb_varint(struct pb *b, uint64_t v)
{
    pb_reserve(b, 10);
    b->n += pb_put_varint(b->p + b->n, v);
}

void pb_uint(struct pb *b, uint32_t field, uint64_t v)
{
    pb_varint(b, PB_TAG(field, 0));
    pb_varint(b, v);
}

void pb_bytes(struct pb *b, uint32_t field, const void *data, size_t n)
{
    pb_varint(b, PB_TAG(field, 2));
    pb_varint(b, n);
    pb_reserve(b, n);
    if (n)
        memcpy(b->p + b->n, data, n);
    b->n += n;
}

void pb_fixed64(struct pb *b, uint32_t field, uint64_t v)
{
    pb_varint(b, PB_TAG(field, 1));
    pb_reserve(b, 8);
    for (int i = 0; i < 8; i++)
        b->p[b->n++] = (uint8_t)(v >> (8 * i));
}

void pb_append(struct pb *b, const struct pb *src)
{
    pb_reserve(b, src->n);
    if (src->n)
        memcpy(b->p + b->n, src->p, src->n);
    b->n += src->n;
}

void pb_free(struct pb *b)
{
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

int pb_read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t x = 0;

    for (int shift = 0; shift < 64 && *p < end; shift += 7) {
        uint8_t c = *(*p)++;
        x |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

int pb_next(const uint8_t **p, const uint8_t *end, struct pb_field *f)
{
    uint64_t tag;

    if (*p >= end)
        return 0;
    if (pb_read_varint(p, end, &tag) != 0 || (tag >> 3) == 0 || (tag >> 3) > UINT32_MAX)
        return -1;
    f->field = (uint32_t)(tag >> 3);
    f->wire = (int)(tag & 7);
    f->data = NULL;
    f->len = 0;
    f->v = 0;
    switch (f->wire) {
    case 0:
        return pb_read_varint(p, end, &f->v) == 0 ? 1 : -1;
    case 1:
        if (end - *p < 8)
            return -1;
        for (int i = 0; i < 8; i++)
            f->v |= (uint64_t)(*p)[i] << (8 * i);
        *p += 8;
        return 1;
    case 2:
        if (pb_read_varint(p, end, &f->v) != 0 || f->v > (uint64_t)(end - *p))
            return -1;
        f->data = *p;
        f->len = (size_t)f->v;
        *p += f->len;
        return 1;
    case 5:
        if (end - *p < 4)
            return -1;
        for (int i = 0; i < 4; i++)
            f->v |= (uint64_t)(*p)[i] << (8 * i);
        *p += 4;
        return 1;
    default:
        return -1;
    }
}
