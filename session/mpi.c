/* The collector's MPI_CALL records in the session: validated, counted in the model, and each
 * call a slice on its thread's track in the recording (category "mpi", named by the call, with
 * result, bytes, peer, comm_size and call_path, the functions it was called from, root first,
 * as arguments: what a replay reads back). A slice whose call path is not resolved yet waits
 * with the HIP slices (session/kernels.c). */
#include "session/session.h"

#include <stdio.h>
#include <time.h>

#include "collector/protocol.h"
#include "model/model.h"
#include "model/mpi.h"
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

void session_mpi_summary(FILE *out, struct model *m, int max_rows)
{
    struct model_mpi_stats calls[MODEL_MPI_CALLS];
    uint64_t span_ns, total_ns = 0, ncalls = 0;
    int n;

    if (!model_mpi_seen(m))
        return;
    n = model_mpi_totals(m, 0, model_clock_ns(CLOCK_MONOTONIC), calls, &span_ns);
    for (int i = 0; i < n; i++) {
        total_ns += calls[i].time.total_ns;
        ncalls += calls[i].time.calls;
    }
    fprintf(out, "MPI: %.1f%% of the MPI span (%.3f ms in %llu calls); top calls:\n",
            span_ns ? 100.0 * (double)total_ns / (double)span_ns : 0.0, (double)total_ns / 1e6,
            (unsigned long long)ncalls);
    for (int i = 0; i < n && i < max_rows; i++)
        fprintf(out, "  %5.1f%%  %10.3f ms  %6llu calls  %s\n",
                span_ns ? 100.0 * (double)calls[i].time.total_ns / (double)span_ns : 0.0,
                (double)calls[i].time.total_ns / 1e6, (unsigned long long)calls[i].time.calls,
                calls[i].name);
}
