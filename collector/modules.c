/* Module map: which ELF objects are mapped where, with their build-ids, so that the front end
 * can symbolize raw addresses (even after the target exited). Reported at start and whenever
 * the loader's add/remove counters change (dlopen/dlclose), checked at every sample. */
#define _GNU_SOURCE
#include "collector.h"

#include <elf.h>
#include <link.h>
#include <string.h>

struct scan_ctx {
    struct collector_thread *ts;
    uint32_t generation;
    int first;
};

/* Copy the GNU build-id of a loaded object out of its PT_NOTE segments (AS-safe). */
static int find_build_id(const struct dl_phdr_info *info, uint8_t *out)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
        const uint8_t *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            size_t name_sz = (nh->n_namesz + 3u) & ~3u;
            size_t desc_sz = (nh->n_descsz + 3u) & ~3u;
            const uint8_t *name = p + sizeof(*nh);
            const uint8_t *desc = name + name_sz;
            if (desc + desc_sz > end)
                break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
                size_t n = nh->n_descsz > ROCSYS_MAX_BUILD_ID ? ROCSYS_MAX_BUILD_ID : nh->n_descsz;
                memcpy(out, desc, n);
                return (int)n;
            }
            p = desc + desc_sz;
        }
    }
    return 0;
}

/* dl_iterate_phdr callback: one MODULE record per loaded object. */
static int report_one(struct dl_phdr_info *info, size_t size, void *data)
{
    struct scan_ctx *c = data;
    union {
        struct rocsys_rec_module rec;
        uint8_t bytes[sizeof(struct rocsys_rec_module) + ROCSYS_MAX_PATH + 8];
    } u;
    const char *path = info->dlpi_name;
    uint64_t lo = UINT64_MAX, hi = 0;
    size_t len;

    (void)size;
    if (c->first && (!path || !*path))
        path = collector_g.exe; /* the main executable has an empty name */
    c->first = 0;
    if (!path || !*path)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uint64_t a = info->dlpi_addr + ph->p_vaddr;
        if (a < lo)
            lo = a;
        if (a + ph->p_memsz > hi)
            hi = a + ph->p_memsz;
    }
    if (hi == 0)
        return 0;
    memset(&u.rec, 0, sizeof(u.rec));
    len = strnlen(path, ROCSYS_MAX_PATH);
    u.rec.h.type = ROCSYS_REC_MODULE;
    u.rec.h.size = rocsys_rec_align((uint32_t)(sizeof(u.rec) + len));
    u.rec.pid = collector_g.pid;
    u.rec.generation = c->generation;
    u.rec.load_bias = info->dlpi_addr;
    u.rec.start = lo;
    u.rec.end = hi;
    u.rec.build_id_len = (uint8_t)find_build_id(info, u.rec.build_id);
    u.rec.path_len = (uint32_t)len;
    memcpy(u.bytes + sizeof(u.rec), path, len);
    if (transport_write(&c->ts->ring, &u.rec) != 0)
        atomic_fetch_add_explicit(&c->ts->ring.ctl->dropped_records, 1, memory_order_relaxed);
    return 0;
}

/* dl_iterate_phdr callback that only reads the loader's add/remove counters. */
static int read_generation(struct dl_phdr_info *info, size_t size, void *data)
{
    uint64_t *g = data;
    (void)size;
    *g = (uint64_t)info->dlpi_adds + ((uint64_t)info->dlpi_subs << 32) + 1;
    return 1;
}

void collector_modules_check(struct collector_thread *ts, int force, uint64_t now_ns)
{
    uint64_t gen = 0, seen;
    struct scan_ctx c;

    if (!ts->ring.ctl)
        return;
    if (!force && now_ns - ts->modules_checked_ns < COLLECTOR_MODULE_CHECK_NS)
        return;
    ts->modules_checked_ns = now_ns;
    dl_iterate_phdr(read_generation, &gen);
    seen = atomic_load_explicit(&collector_g.module_generation, memory_order_relaxed);
    if (!force && gen == seen)
        return;
    if (!atomic_compare_exchange_strong(&collector_g.module_generation, &seen, gen) && !force)
        return; /* another thread is reporting this generation */
    c.ts = ts;
    c.generation = (uint32_t)gen;
    c.first = 1;
    dl_iterate_phdr(report_one, &c);
}
