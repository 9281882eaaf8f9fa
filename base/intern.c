/* The base layer's string interning (base/intern.h): an open-addressing set of strings, each
 * copy carved out of 64 KiB chunks that live until the table is freed. */
#include "base/intern.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/hash.h"

#define INTERN_CHUNK_SIZE (64 * 1024) /* interned strings are carved out of chunks this big */

/* A block of string storage. */
struct intern_chunk {
    struct intern_chunk *next;
    size_t used, cap;
    char data[];
};

/* Copy str into chunk storage that lives until the table is freed. */
static const char *intern_store(struct intern_table *t, const char *str)
{
    size_t n = strlen(str) + 1;
    struct intern_chunk *c = t->chunks;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > INTERN_CHUNK_SIZE / 4 ? n : INTERN_CHUNK_SIZE;
        c = xmalloc(sizeof *c + cap);
        c->used = 0;
        c->cap = cap;
        if (cap == n && t->chunks) { /* oversized: keep the current chunk in front */
            c->next = t->chunks->next;
            t->chunks->next = c;
        } else {
            c->next = t->chunks;
            t->chunks = c;
        }
    }
    char *dst = c->data + c->used;
    memcpy(dst, str, n);
    c->used += n;
    return dst;
}

/* Double the slot array and rehash every interned string. */
static void intern_grow(struct intern_table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 1024;
    const char **slots = xcalloc(cap, sizeof *slots);
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->slots[i])
            continue;
        size_t j = hash_str(t->slots[i]) & (cap - 1);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = t->slots[i];
    }
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
}

const char *intern_str(struct intern_table *t, const char *str)
{
    if (!str)
        return NULL;
    if ((t->count + 1) * 2 > t->cap)
        intern_grow(t);
    size_t j = hash_str(str) & (t->cap - 1);
    while (t->slots[j]) {
        if (strcmp(t->slots[j], str) == 0)
            return t->slots[j];
        j = (j + 1) & (t->cap - 1);
    }
    t->slots[j] = intern_store(t, str);
    t->count++;
    return t->slots[j];
}

void intern_free(struct intern_table *t)
{
    free(t->slots);
    for (struct intern_chunk *c = t->chunks, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    *t = (struct intern_table){0};
}
