/* String interning for the front end (base layer): one stable copy of each distinct string,
 * valid until the table is freed (zero-initialized = empty). Not thread-safe. */
#ifndef ROCSYS_BASE_INTERN_H
#define ROCSYS_BASE_INTERN_H

#include <stddef.h>

struct intern_chunk;

struct intern_table {
    const char **slots; /* open addressing; cap is a power of two */
    size_t cap, count;
    struct intern_chunk *chunks;
};

/* The one stable copy of str (NULL stays NULL). */
const char *intern_str(struct intern_table *t, const char *str);
/* Free every copy and the table (it is empty again). */
void intern_free(struct intern_table *t);

#endif
