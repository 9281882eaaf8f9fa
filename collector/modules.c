/* Module map: which ELF objects are mapped where, with their build-ids, so that the front end
 * can symbolize raw addresses (even after the target exited). Reported at start, and by a
 * helper thread ("rocsys-modmap") whenever the loader's add/remove counters change
 * (dlopen/dlclose), checked every 50 ms in normal context.
 *
 * The sampling handler never enters the loader: the thread it interrupted may hold the
 * loader's lock (inside dlopen, which cannot be wrapped without changing whose RUNPATH the
 * loader searches) or be unmapping a library. libunwind finds unwind tables through
 * dl_iterate_phdr, which is interposed: called from any unwind of ours (in the handler or not:
 * see collector_sampler_warm), it answers from a snapshot of
 * the loaded objects that normal-context code keeps fresh (at start, every 50 ms from the
 * helper thread, after every dlclose); while any thread is inside dlclose, samples are skipped.
 * Objects loaded since the last snapshot are not unwound through until the next one. */
#define _GNU_SOURCE
#include "collector.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

struct scan_ctx {
    struct collector_thread *ts;
    uint32_t generation;
    int first;
    int failed; /* a record did not fit: report this generation again later */
};

typedef int (*iterate_fn)(int (*)(struct dl_phdr_info *, size_t, void *), void *);
typedef int (*dlclose_fn)(void *);
static iterate_fn real_iterate;
static dlclose_fn real_dlclose;
static pthread_t helper;

#define SNAPSHOT_MAX 1024
/* Two snapshot buffers: the handler reads the current one; a refresh fills the other and
 * publishes it. Buffers are static and never freed, so a reader never touches freed memory. */
static struct dl_phdr_info snapshot[2][SNAPSHOT_MAX];
static int snapshot_n[2];
/* The program headers of the snapshot's objects, copied: an object unmapped behind our dlclose
 * (UCX patches the relocations of dlclose to its own hook) stays listed until the next refresh,
 * and an unwinder's walk over the list reads every object's headers; only the object holding
 * the address being unwound (mapped, as it runs) is read beyond them. */
#define SNAPSHOT_PHDRS 16384
static ElfW(Phdr) snapshot_phdr[2][SNAPSHOT_PHDRS];
static _Atomic int snapshot_cur;
static pthread_mutex_t snapshot_lock = PTHREAD_MUTEX_INITIALIZER;

struct snap_ctx {
    struct dl_phdr_info *out;
    ElfW(Phdr) * phdr; /* the pool the headers are copied into */
    int n, nphdr;
};

/* dl_iterate_phdr callback: copy one object's description. */
static int snapshot_one(struct dl_phdr_info *info, size_t size, void *data)
{
    struct snap_ctx *c = data;
    (void)size;
    if (c->n < SNAPSHOT_MAX) {
        c->out[c->n] = *info;
        c->out[c->n].dlpi_tls_data = NULL; /* per thread: not for other threads' unwinding */
        if (info->dlpi_phnum <= SNAPSHOT_PHDRS - c->nphdr) {
            memcpy(c->phdr + c->nphdr, info->dlpi_phdr, info->dlpi_phnum * sizeof(ElfW(Phdr)));
            c->out[c->n].dlpi_phdr = c->phdr + c->nphdr;
            c->nphdr += info->dlpi_phnum;
        }
        c->n++;
    }
    return 0;
}

void collector_modules_snapshot(void)
{
    struct snap_ctx c;

    if (!real_iterate)
        return;
    /* counted around the lock too: a fork must not copy it held */
    atomic_fetch_add(&collector_g.loader_users, 1);
    pthread_mutex_lock(&snapshot_lock);
    int next = 1 - atomic_load(&snapshot_cur);
    c.out = snapshot[next];
    c.phdr = snapshot_phdr[next];
    c.n = c.nphdr = 0;
    real_iterate(snapshot_one, &c);
    snapshot_n[next] = c.n;
    atomic_store(&snapshot_cur, next);
    pthread_mutex_unlock(&snapshot_lock);
    atomic_fetch_sub(&collector_g.loader_users, 1);
}

/* dl_iterate_phdr for the signal handler: the snapshot, no lock (AS-safe). */
static int iterate_snapshot(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data)
{
    int cur = atomic_load(&snapshot_cur);
    int rc = 0;
    for (int i = 0; i < snapshot_n[cur] && rc == 0; i++) {
        struct dl_phdr_info info = snapshot[cur][i];
        rc = cb(&info, sizeof(info), data);
    }
    return rc;
}

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
    /* no waiting here: this runs under the loader's lock. A record that does not fit is not
     * a drop: the whole generation is reported again later. */
    if (transport_write(&c->ts->ring, &u.rec) != 0)
        c->failed = 1;
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

void collector_modules_check(struct collector_thread *ts, int force)
{
    uint64_t gen = 0, seen;
    struct scan_ctx c;

    if (!ts->ring.ctl || !real_iterate)
        return;
    atomic_fetch_add(&collector_g.loader_users, 1);
    if (atomic_load(&collector_g.fork_pending)) { /* a fork waits for us to stay out */
        atomic_fetch_sub(&collector_g.loader_users, 1);
        return;
    }
    real_iterate(read_generation, &gen);
    seen = atomic_load(&collector_g.module_generation);
    if (!force && gen == seen) {
        atomic_fetch_sub(&collector_g.loader_users, 1);
        return;
    }
    c.ts = ts;
    c.generation = (uint32_t)gen;
    c.first = 1;
    c.failed = 0;
    ts->busy = 1;
    real_iterate(report_one, &c);
    ts->busy = 0;
    /* CPython may have come with this map (an embedding program): looked for while a fork
     * still waits for us (dlsym takes the loader's lock) */
    collector_python_check();
    collector_modules_snapshot(); /* still counted: a fork cannot slip in before it */
    atomic_fetch_sub(&collector_g.loader_users, 1);
    /* a map that did not fit is reported again at the next check */
    atomic_store(&collector_g.module_generation, c.failed ? 0 : gen);
}

/* The helper thread: no signals, no sampling; looks for dlopen/dlclose every 50 ms. */
static void *helper_main(void *arg)
{
    struct collector_thread *ts = &collector_tls;
    struct timespec period = {0, (long)COLLECTOR_MODULE_CHECK_NS};
    sigset_t all;

    (void)arg;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    prctl(PR_SET_NAME, ROCSYS_HELPER_THREAD, 0, 0, 0);
    ts->tid = collector_gettid();
    if (transport_claim(&collector_g.transport, collector_g.pid, ts->tid, collector_g.instance,
                        &ts->ring) != 0)
        return NULL;
    while (collector_g.enabled && collector_g.helper_pid == collector_g.pid) {
        nanosleep(&period, NULL);
        collector_modules_check(ts, 0);
        collector_python_watch();
    }
    transport_release(&ts->ring);
    return NULL;
}

void collector_modules_start_helper(void)
{
    pthread_attr_t attr;
    sigset_t all, old;

    if (collector_g.helper_pid == collector_g.pid)
        return;
    collector_g.helper_pid = collector_g.pid;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    /* the helper is born with every signal blocked: none of the target's may ever run on it */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    if (collector_thread_create_unsampled(&helper, &attr, helper_main, NULL) != 0)
        collector_g.helper_pid = 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
}

int collector_modules_init(void)
{
    real_iterate = (iterate_fn)dlsym(RTLD_NEXT, "dl_iterate_phdr");
    real_dlclose = (dlclose_fn)dlsym(RTLD_NEXT, "dlclose");
    return real_iterate && real_dlclose ? 0 : -1;
}

/* Interposed: from our unwinds (the sampling handler's and the normal-context ones), answer
 * from the snapshot without the loader's lock; from anywhere else, the real thing (counted,
 * for fork safety). */
COLLECTOR_EXPORT int dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data)
{
    int rc;

    if (collector_tls.unwinding)
        return iterate_snapshot(cb, data);
    if (!real_iterate)
        real_iterate = (iterate_fn)dlsym(RTLD_NEXT, "dl_iterate_phdr");
    atomic_fetch_add(&collector_g.loader_users, 1);
    rc = real_iterate(cb, data);
    atomic_fetch_sub(&collector_g.loader_users, 1);
    return rc;
}

/* Interposed: while any thread unmaps a library, samples are skipped (the snapshot may still
 * list it); the snapshot is refreshed when dlclose returns. */
COLLECTOR_EXPORT int dlclose(void *handle)
{
    int rc;

    if (!real_dlclose)
        real_dlclose = (dlclose_fn)dlsym(RTLD_NEXT, "dlclose");
    atomic_fetch_add(&collector_g.unmapping, 1);
    atomic_fetch_add(&collector_g.loader_users, 1);
    rc = real_dlclose(handle);
    if (collector_g.enabled) /* still counted: a fork cannot slip in before it */
        collector_modules_snapshot();
    atomic_fetch_sub(&collector_g.loader_users, 1);
    atomic_fetch_sub(&collector_g.unmapping, 1);
    return rc;
}
