/* A second HSA tools library for the coexistence test: it patches hsa_queue_create,
 * hsa_signal_create and hsa_executable_freeze (where the layout the collector would choose puts
 * them) with wrappers that count calls and call the pointers they replaced; tool2_report()
 * prints the counts. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "collector/hsa_abi.h"
#include "collector/hsa_layout.h"

typedef rocsys_hsa_status_t (*queue_create_fn)(rocsys_hsa_agent_t, uint32_t, uint32_t, void *,
                                               void *, uint32_t, uint32_t, void **);
typedef rocsys_hsa_status_t (*signal_create_fn)(int64_t, uint32_t, const void *,
                                                rocsys_hsa_signal_t *);
typedef rocsys_hsa_status_t (*freeze_fn)(rocsys_hsa_executable_t, const char *);

static queue_create_fn next_queue_create;
static signal_create_fn next_signal_create;
static freeze_fn next_freeze;
static _Atomic int queue_creates, signal_creates, freezes;

_Bool OnLoad(void *table, uint64_t runtime_version, uint64_t failed_count,
             const char *const *failed);
void tool2_report(void);

static rocsys_hsa_status_t queue_create_wrap(rocsys_hsa_agent_t a, uint32_t size, uint32_t type,
                                             void *cb, void *data, uint32_t p, uint32_t g, void **q)
{
    queue_creates++;
    return next_queue_create(a, size, type, cb, data, p, g, q);
}

static rocsys_hsa_status_t signal_create_wrap(int64_t v, uint32_t n, const void *c,
                                              rocsys_hsa_signal_t *s)
{
    signal_creates++;
    return next_signal_create(v, n, c, s);
}

static rocsys_hsa_status_t freeze_wrap(rocsys_hsa_executable_t e, const char *o)
{
    freezes++;
    return next_freeze(e, o);
}

_Bool OnLoad(void *table, uint64_t runtime_version, uint64_t failed_count,
             const char *const *failed)
{
    const struct rocsys_hsa_layout *l;
    struct rocsys_hsa_seen seen;
    char why[128], *core;
    void *p;

    (void)runtime_version;
    (void)failed_count;
    (void)failed;
    rocsys_hsa_layout_pick(table, &l, &seen, why, sizeof(why)); /* the collector's choice */
    if (!l) {
        printf("tool2: declined: %s\n", why);
        return 0;
    }
    memcpy(&core, (char *)table + l->root_core, sizeof(core));
    uint16_t q = l->core_off[ROCSYS_HSA_CORE_QUEUE_CREATE];
    uint16_t s = l->core_off[ROCSYS_HSA_CORE_SIGNAL_CREATE];
    uint16_t f = l->core_off[ROCSYS_HSA_CORE_EXECUTABLE_FREEZE];
    memcpy(&next_queue_create, core + q, sizeof(void *));
    memcpy(&next_signal_create, core + s, sizeof(void *));
    memcpy(&next_freeze, core + f, sizeof(void *));
    p = (void *)queue_create_wrap;
    memcpy(core + q, &p, sizeof(p));
    p = (void *)signal_create_wrap;
    memcpy(core + s, &p, sizeof(p));
    p = (void *)freeze_wrap;
    memcpy(core + f, &p, sizeof(p));
    return 1;
}

void tool2_report(void)
{
    printf("tool2: queue_create %d signal_create %d freeze %d\n", queue_creates, signal_creates,
           freezes);
}
