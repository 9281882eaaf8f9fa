/* Hash functions of the front end (base layer): splitmix64's finalizer to spread bits, and
 * FNV-1a over strings. One definition for every table and key in the front end. */
#ifndef ROCSYS_BASE_HASH_H
#define ROCSYS_BASE_HASH_H

#include <stdint.h>

#define HASH_FNV1A_SEED  0xcbf29ce484222325ull /* FNV-1a offset basis */
#define HASH_FNV1A_PRIME 0x100000001b3ull

/* Spread all input bits over the result (splitmix64's finalizer: a bijection, 0 maps to 0). */
static inline uint64_t hash_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

/* FNV-1a of the NUL-terminated s, continued from h (HASH_FNV1A_SEED to start). */
static inline uint64_t hash_fnv1a(uint64_t h, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = (h ^ *p) * HASH_FNV1A_PRIME;
    return h;
}

/* A well-mixed hash of the string s. */
static inline uint64_t hash_str(const char *s)
{
    return hash_mix64(hash_fnv1a(HASH_FNV1A_SEED, s));
}

#endif
