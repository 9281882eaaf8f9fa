/* The collector's MPI_CALL records in the session: validated, counted in the model, and each
 * call a slice on its thread's track in the recording (category "mpi", named by the call, with
 * result, bytes, peer, comm_size and call_path, the functions it was called from, root first,
 * as arguments: what a replay reads back). A slice whose call path is not resolved yet waits
 * with the HIP slices (session/kernels.c). */
#include "session/session.h"

#include <stdio.h>

#include "collector/protocol.h"
#include "model/model.h"
#include "record/record.h"

void session_mpi_emit(struct model *m, struct record_set *rec, uint32_t pid, uint32_t tid,
                      const struct rocsys_rec_mpi_call *r)
{
    char args[160 + 4096];
    uint32_t path = model_launch_stack_path(m, pid, r->stack);
    int n =
        snprintf(args, sizeof(args), "result=%d\nbytes=%llu\npeer=%d\ncomm_size=%u", (int)r->result,
                 (unsigned long long)r->bytes, (int)r->peer, (unsigned)r->comm_size);

    if (path) {
        n += snprintf(args + n, sizeof(args) - (size_t)n, "\ncall_path=");
        model_path_names(m, path, ";", 0, args + n, sizeof(args) - (size_t)n);
    }
    struct record_event ev = {.type = RECORD_EV_SLICE,
                              .time_ns = r->start_ns,
                              .end_ns = r->end_ns >= r->start_ns ? r->end_ns : r->start_ns,
                              .pid = pid,
                              .tid = tid,
                              .category = "mpi",
                              .name = model_mpi_call_name(r->call),
                              .args = args};
    record_set_event(rec, &ev);
}

void session_mpi_record(struct model *m, struct record_set *rec, const struct rocsys_ring_ctl *ctl,
                        const struct rocsys_rec_header *h)
{
    const struct rocsys_rec_mpi_call *r = (const void *)h;

    if (h->size < sizeof(*r) || r->call == 0 || r->call >= ROCSYS_MPI_CALL_MAX)
        return;
    struct model_mpi_input c = {.pid = ctl->pid,
                                .tid = ctl->tid,
                                .call = r->call,
                                .result = r->result,
                                .start_ns = r->start_ns,
                                .end_ns = r->end_ns >= r->start_ns ? r->end_ns : r->start_ns,
                                .bytes = r->bytes,
                                .peer = r->peer,
                                .comm_size = r->comm_size,
                                .stack_key = r->stack};
    model_mpi_call(m, &c);
    if (model_launch_stack_pending(m, ctl->pid, r->stack))
        session_kernels_defer(ctl->pid, ctl->tid, h, sizeof(*r));
    else
        session_mpi_emit(m, rec, ctl->pid, ctl->tid, r);
}
