/* Fuzz target: the front end's reading of what the injected collector writes into shared
 * memory, which a target program can overwrite with anything: a ring's records as the spool
 * drains them (collector/transport.c: sizes checked, each record copied before it is used) and
 * their decoding into the model (session/source_rings.c: processes, threads, modules, samples,
 * regions, Python code; session/kernels.c: HIP calls, kernel names, dispatches, copies); then
 * the deferred samples are given up on and the views printed, as at the end of a session. The
 * input is the ring's owner (pid, tid, instance: 3 x 4 bytes, then 4 unused) and the ring's
 * data (at most FUZZ_RING_BYTES). The seeds are records of real sessions (docs/fuzzing.md). */
#define _GNU_SOURCE
#include <unistd.h>

#include "model/model.h"
#include "record/record.h"
#include "session/session_internal.h"
#include "tests/fuzz/fuzz.h"
#include "tui/tui.h"

#define FUZZ_RING_BYTES 65536u

static struct transport tr;

/* The shared memory: one thread ring, made once in /dev/shm as a session's (the file is
 * unlinked at once, the mapping stays). */
static void setup(void)
{
    char path[128];

    snprintf(path, sizeof(path), "/dev/shm/rocsys-fuzz-%d", (int)getpid());
    if (transport_create(&tr, path, 1, FUZZ_RING_BYTES, 0, 0) != 0) {
        snprintf(path, sizeof(path), "/tmp/rocsys-fuzz-%d", (int)getpid());
        if (transport_create(&tr, path, 1, FUZZ_RING_BYTES, 0, 0) != 0)
            abort();
    }
    unlink(path);
}

/* Make the module paths in the ring's records relative ("\1...") so that no file is opened:
 * an input costs its decoding, not libdwfl reading a real library's symbols and DWARF (that
 * is libdwfl's parsing, not the front end's; it made an input take 5 ms). */
static void no_files(uint8_t *ring, size_t size)
{
    const size_t path_at = sizeof(struct rocsys_rec_module);
    struct rocsys_rec_header h;

    for (size_t off = 0; off + sizeof(h) <= size; off += h.size) {
        memcpy(&h, ring + off, sizeof(h));
        if (h.size < sizeof(h) || h.size > size - off)
            break;
        if (h.type == ROCSYS_REC_MODULE && h.size > path_at)
            ring[off + path_at] = 1;
    }
}

/* transport_drain_ring's callback: a record as the spool would hand it to the main loop. */
static void decode(void *ctx, const struct rocsys_ring_ctl *ctl, const struct rocsys_rec_header *h)
{
    struct session_spool_rec r = {.pid = ctl->pid,
                                  .tid = ctl->tid,
                                  .instance = ctl->instance,
                                  .source = SESSION_SRC_RINGS,
                                  .len = h->size};

    session_source_rings.decode(ctx, &r, (const uint8_t *)h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rocsys_ring_ctl *c;
    struct session s = {0};
    uint32_t owner[4] = {0};

    if (!tr.hdr)
        setup();
    if (size < sizeof(owner))
        return 0;
    memcpy(owner, data, sizeof(owner));
    data += sizeof(owner);
    size -= sizeof(owner);
    if (size > FUZZ_RING_BYTES)
        size = FUZZ_RING_BYTES;
    c = &tr.rings[0];
    c->pid = owner[0];
    c->tid = owner[1];
    c->instance = owner[2];
    memcpy(tr.data, data, size);
    no_files(tr.data, size);
    atomic_store(&c->tail, 0);
    atomic_store(&c->head, size);

    s.m = model_new();
    s.rec = record_set_new();
    s.ctx = session_context_new();
    model_regions_set_sink(s.m, session_region_span, &s);
    model_python_hide_interpreter(s.m, 1);
    model_set_root_pid(s.m, owner[0]);
    transport_drain_ring(&tr, 0, decode, &s);
    for (size_t i = 0; i < s.ndef; i++) { /* as session_drain does once the target is done */
        struct deferred *d = &s.def[i];
        model_sample_weighted(s.m, d->pid, d->tid, d->time_ns, d->frames, d->n, d->weight, 1);
        free(d->frames);
    }
    tui_batch_frame(fuzz_devnull(), s.m, 1, 0);
    free(s.def);
    free(s.inst);
    session_context_free(s.ctx);
    record_set_close(s.rec, s.m, NULL, NULL, 0);
    model_free(s.m);
    return 0;
}
