/* A small open-addressing hash map from a non-zero uint64 key to a uint32 value, used by the
 * front end (base layer). Keys are expected to be well mixed by the caller (hashmap_mix). */
#ifndef ROCSYS_BASE_HASHMAP_H
#define ROCSYS_BASE_HASHMAP_H

#include <stdint.h>
#include <stdlib.h>

#include "base/base.h"
#include "base/hash.h"

struct hashmap {
    uint64_t *keys; /* 0 = empty slot */
    uint32_t *vals;
    size_t cap; /* power of two */
    size_t count;
};

/* Mix bits (hash_mix64) so that clustered keys spread over the table; never 0 (empty). */
static inline uint64_t hashmap_mix(uint64_t x)
{
    x = hash_mix64(x);
    return x ? x : 1;
}

static inline void hashmap_free(struct hashmap *h)
{
    free(h->keys);
    free(h->vals);
    h->keys = NULL;
    h->vals = NULL;
    h->cap = h->count = 0;
}

static inline uint32_t *hashmap_slot(struct hashmap *h, uint64_t key, int insert);

/* Grow the table to twice its size (or 64 slots) and re-insert everything. */
static inline void hashmap_grow(struct hashmap *h)
{
    struct hashmap old = *h;
    h->cap = old.cap ? old.cap * 2 : 64;
    h->keys = xcalloc(h->cap, sizeof(*h->keys));
    h->vals = xcalloc(h->cap, sizeof(*h->vals));
    h->count = 0;
    for (size_t i = 0; i < old.cap; i++)
        if (old.keys[i])
            *hashmap_slot(h, old.keys[i], 1) = old.vals[i];
    free(old.keys);
    free(old.vals);
}

/* The value slot of key; with insert, created (value 0) when absent; without, NULL if absent. */
static inline uint32_t *hashmap_slot(struct hashmap *h, uint64_t key, int insert)
{
    if (insert && (h->count + 1) * 4 >= h->cap * 3)
        hashmap_grow(h);
    if (h->cap == 0)
        return NULL;
    size_t mask = h->cap - 1;
    for (size_t i = key & mask;; i = (i + 1) & mask) {
        if (h->keys[i] == key)
            return &h->vals[i];
        if (h->keys[i] == 0) {
            if (!insert)
                return NULL;
            h->keys[i] = key;
            h->vals[i] = 0;
            h->count++;
            return &h->vals[i];
        }
    }
}

#endif
