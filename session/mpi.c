/* The collector's MPI_CALL records in the session: validated, counted in the model, and each
 * call a slice on its thread's track in the recording (category "mpi", named by the call, with
 * result, bytes, peer and comm_size as arguments: what a replay reads back). */
#include "session/session.h"

#include <stdio.h>

#include "collector/protocol.h"
#include "model/model.h"
#include "record/record.h"

void session_mpi_record(struct model *m, struct record_set *rec, const struct rocsys_ring_ctl *ctl,
                        const struct rocsys_rec_header *h)
{
    const struct rocsys_rec_mpi_call *r = (const void *)h;
    char args[160];

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
                                .comm_size = r->comm_size};
    model_mpi_call(m, &c);
    snprintf(args, sizeof(args), "result=%d\nbytes=%llu\npeer=%d\ncomm_size=%u", (int)r->result,
             (unsigned long long)r->bytes, (int)r->peer, (unsigned)r->comm_size);
    struct record_event ev = {.type = RECORD_EV_SLICE,
                              .time_ns = c.start_ns,
                              .end_ns = c.end_ns,
                              .pid = c.pid,
                              .tid = c.tid,
                              .category = "mpi",
                              .name = model_mpi_call_name(r->call),
                              .args = args};
    record_set_event(rec, &ev);
}
