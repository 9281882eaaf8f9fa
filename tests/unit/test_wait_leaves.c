/* Unit test: wait leaves of the OpenMP kind. Their labels ("[omp wait] explicit barrier", by
 * ompt_sync_region_t), the cut of a sample's frames at one wait frame, and the perf engine's
 * wait state by time when the end of a thread's wait comes before its begin (the encountering
 * thread writes the end of a worker's wait in the closing barrier in its own ring, which the
 * front end may read before the worker's). */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "collector/protocol.h"
#include "model/model.h"
#include "model/model_internal.h"
#include "session/session.h"

/* The label model_state_sym gives a wait frame of kind and id. */
static const char *label_of(struct model *m, int kind, int id)
{
    static struct sym_frame f;

    memset(&f, 0, sizeof(f));
    if (!model_state_sym(m, ROCSYS_WAIT_FRAME(kind, id), &f))
        return "(none)";
    return f.function;
}

int main(void)
{
    struct model *m = model_new();
    struct session_context *c = session_context_new();
    const uint64_t bar = ROCSYS_WAIT_FRAME(ROCSYS_WAIT_OMP, 3);
    uint64_t frames[6] = {0x10, 0x20, 0x30, 0x40, 0x50, 0x60};

    /* labels: OpenMP's sync regions by their ompt_sync_region_t; MPI's beside them */
    CHECK_STR(label_of(m, ROCSYS_WAIT_OMP, 3), "[omp wait] explicit barrier");
    CHECK_STR(label_of(m, ROCSYS_WAIT_OMP, 2), "[omp wait] implicit barrier");
    CHECK_STR(label_of(m, ROCSYS_WAIT_OMP, 9), "[omp wait] implicit barrier");
    CHECK_STR(label_of(m, ROCSYS_WAIT_OMP, 5), "[omp wait] taskwait");
    CHECK_STR(label_of(m, ROCSYS_WAIT_OMP, 6), "[omp wait] taskgroup");
    CHECK_STR(label_of(m, ROCSYS_WAIT_OMP, 99), "[omp wait] wait");
    CHECK(strncmp(label_of(m, ROCSYS_WAIT_MPI, 1), "[mpi wait] ", 11) == 0);

    /* the cut: frames 0..2 (the runtime's, innermost first) become the one wait frame */
    CHECK(rocsys_wait_cut(frames, 6, 2, bar) == 4);
    CHECK(frames[0] == bar && frames[1] == 0x40 && frames[3] == 0x60);
    CHECK(rocsys_wait_cut(frames, 4, 4, bar) == 4); /* no runtime frame: as it is */

    /* the wait's end (t 200) read before its begin (t 100): both apply in time order */
    session_context_wait(c, 1, 7, 200, 0);
    session_context_wait(c, 1, 7, 100, bar);
    CHECK(session_context_wait_at(c, 1, 7, 50) == 0);
    CHECK(session_context_wait_at(c, 1, 7, 150) == bar);
    CHECK(session_context_wait_at(c, 1, 7, 250) == 0);
    CHECK(session_context_wait_at(c, 1, 8, 150) == 0); /* another thread */
    /* a region opened at the same time as an event already there keeps its order after it */
    session_context_region(c, 1, 7, 300, 1, 0, 42);
    session_context_region(c, 1, 7, 300, 0, 0, 42);
    {
        uint64_t out[4];
        CHECK(session_context_at(c, 1, 7, 300, out, 4) == 0); /* opened, then closed */
        CHECK(session_context_at(c, 1, 7, 299, out, 4) == 0);
    }
    session_context_prune(c, 160);
    CHECK(session_context_wait_at(c, 1, 7, 170) == bar);
    CHECK(session_context_wait_at(c, 1, 7, 210) == 0);

    session_context_free(c);
    model_free(m);
    return check_summary();
}
