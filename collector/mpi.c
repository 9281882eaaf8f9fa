/* MPI interposition through the standard profiling interface (PMPI): the collector (LD_PRELOAD)
 * defines the MPI entry points of ROCSYS_MPI_CALL_LIST (the C bindings; mpi_calls.c); each
 * finds PMPI_NAME, which every MPI library (Open MPI, MPICH and its derivatives) defines, on
 * first use, calls it with the same arguments and returns its result unchanged (errno too).
 * Every completed call becomes an MPI_CALL record in the calling thread's ring: call id,
 * start/end, result, bytes, peer, communicator size and the key of the call stack it was made
 * from (launch_stack.c, as HIP launches: a thread sends each stack once; --launch-stacks off:
 * none), so calls are counted per call path too. A call that waits for other ranks
 * (rocsys_mpi_call_waits) is a wait leaf meanwhile: samples inside it end in "[mpi wait] NAME"
 * (protocol.h, ROCSYS_WAIT_MPI), as GPU waits do.
 *
 * A program without MPI pays nothing: nothing is resolved, allocated or sent before its first
 * MPI call. Calls the MPI library makes to MPI_* itself (and a tool layered below us) are
 * forwarded untraced: one traced call per thread at a time. Fortran bindings that call the C
 * MPI_* functions are traced through them; those that call PMPI_* or internal functions are
 * not. */
#define _GNU_SOURCE
#include "mpi_wrap.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <string.h>

#define MPI_OBJECTS_MAX 1024 /* loaded objects searched for a PMPI_ function, at most */

static _Atomic int snapshot_taken; /* the module snapshot was refreshed at the first call */

/* 1 while the calling thread is inside a traced MPI call */
static __thread int mpi_depth __attribute__((tls_model("initial-exec")));

/* The loaded objects' names (dl_iterate_phdr's callback). */
struct mpi_objects {
    const char *name[MPI_OBJECTS_MAX];
    int n;
};

static int list_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct mpi_objects *o = arg;

    (void)size;
    if (info->dlpi_name && info->dlpi_name[0] && o->n < MPI_OBJECTS_MAX)
        o->name[o->n++] = info->dlpi_name;
    return 0;
}

/* name in any loaded object, those loaded RTLD_LOCAL too (an MPI library under a Python
 * extension module: the module's calls of MPI_NAME reach our definition first, in the global
 * scope, and PMPI_NAME is in the module's local scope only). NULL when none defines it. */
static void *find_anywhere(const char *name)
{
    static struct mpi_objects o; /* static: 8 KiB is much for a thread's stack */
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    void *f = NULL;

    pthread_mutex_lock(&lock);
    o.n = 0;
    dl_iterate_phdr(list_object, &o); /* dlopen below, outside the loader's iteration */
    for (int i = 0; i < o.n && !f; i++) {
        void *h = dlopen(o.name[i], RTLD_LAZY | RTLD_NOLOAD);
        if (!h)
            continue;
        f = dlsym(h, name);
        dlclose(h); /* the program's own reference keeps it loaded */
    }
    pthread_mutex_unlock(&lock);
    return f;
}

void *mpi_resolve(struct mpi_real *r)
{
    void *f = atomic_load_explicit(&r->fn, memory_order_acquire);
    int saved = errno;

    if (f)
        return f;
    f = dlsym(RTLD_NEXT, r->name);
    if (!f) /* a library loaded with dlopen after us, outside RTLD_NEXT's reach */
        f = dlsym(RTLD_DEFAULT, r->name);
    if (!f) /* ... with RTLD_LOCAL */
        f = find_anywhere(r->name);
    if (f && collector_g.enabled && !atomic_exchange(&snapshot_taken, 1))
        collector_modules_snapshot(); /* the handler unwinds through the library: a program
                                         that loaded it with dlopen did so since the last one */
    if (f)
        atomic_store_explicit(&r->fn, f, memory_order_release);
    errno = saved;
    return f;
}

uint64_t mpi_begin(int id, uint64_t *stack)
{
    uint64_t t0;
    int saved = errno;

    if (!collector_g.enabled || mpi_depth)
        return 0;
    mpi_depth = 1;
    *stack = collector_launch_stack(); /* before the clock: not in the call's time */
    errno = saved;
    t0 = collector_now_ns();
    if (rocsys_mpi_call_waits(id))
        collector_wait_begin(ROCSYS_WAIT_MPI, id, t0);
    return t0;
}

void mpi_end(int id, uint64_t t0, int result, uint64_t bytes, int peer, uint32_t comm_size,
             uint64_t stack)
{
    int saved = errno;
    struct rocsys_rec_mpi_call r;

    if (rocsys_mpi_call_waits(id))
        collector_wait_end();
    memset(&r, 0, sizeof(r));
    r.h.type = ROCSYS_REC_MPI_CALL;
    r.h.size = sizeof(r);
    r.call = (uint16_t)id;
    r.result = result;
    r.start_ns = t0;
    r.end_ns = collector_now_ns();
    r.bytes = bytes;
    r.peer = peer;
    r.comm_size = comm_size;
    r.stack = stack;
    collector_write_any(&r);
    mpi_depth = 0;
    errno = saved;
}

uint64_t mpi_bytes(int count, mpi_handle dt)
{
    static struct mpi_real type_size = {NULL, "PMPI_Type_size"};
    int (*fn)(mpi_handle, int *) = (int (*)(mpi_handle, int *))mpi_resolve(&type_size);
    int size = 0;

    if (count <= 0 || !fn || fn(dt, &size) != 0 || size < 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

uint32_t mpi_comm_size(mpi_handle comm)
{
    static struct mpi_real comm_size = {NULL, "PMPI_Comm_size"};
    int (*fn)(mpi_handle, int *) = (int (*)(mpi_handle, int *))mpi_resolve(&comm_size);
    int size = 0;

    if (!fn || fn(comm, &size) != 0 || size < 0)
        return 0;
    return (uint32_t)size;
}
