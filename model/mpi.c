/* MPI calls of the profiled processes (the collector's MPI_CALL records, or a replayed trace's
 * "mpi" slices): per process and per call, counts, time, bytes, errors and the largest
 * communicator; per process the span MPI percentages are shares of, as mpiP counts it: from the
 * start of MPI_Init (its first MPI call) to the end of MPI_Finalize (or to now while it runs);
 * and per process, call and calling stack (the collector's launch stack keys, resolved into
 * call paths when asked: model_launch_stack_path) the calls, time and bytes. */
#include "model_internal.h"
#include "mpi.h"

#include "collector/protocol.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(MODEL_MPI_CALLS == ROCSYS_MPI_CALL_MAX, "one table size");

/* One process's MPI state. */
struct mpi_proc {
    uint32_t pid;
    uint64_t first_ns, last_ns; /* start of its first call, end of its latest */
    int finalized;              /* MPI_Finalize returned */
    uint64_t total_ns;
    struct model_mpi_stats calls[ROCSYS_MPI_CALL_MAX];
};

/* One call of one process from one calling stack. */
struct mpi_site {
    uint32_t pid;
    int call;
    uint64_t key; /* launch stack key (a replay: the path itself), 0: none */
    struct model_duration time;
    uint64_t bytes;
};

struct model_mpi {
    struct mpi_proc *procs;
    size_t n, cap;
    struct mpi_site *sites;
    size_t nsites, sites_cap, last_site;
};

void model_mpi_free(struct model *m)
{
    if (!m->mpi)
        return;
    free(m->mpi->procs);
    free(m->mpi->sites);
    free(m->mpi);
    m->mpi = NULL;
}

void model_mpi_clear(struct model *m)
{
    if (m->mpi)
        m->mpi->n = m->mpi->nsites = m->mpi->last_site = 0;
}

const char *model_mpi_call_name(int id)
{
    switch (id) {
#define MPI_CALL_NAME(cid, name, waits)                                                            \
    case cid:                                                                                      \
        return #name;
        ROCSYS_MPI_CALL_LIST(MPI_CALL_NAME)
#undef MPI_CALL_NAME
    default:
        return "MPI_?";
    }
}

int model_mpi_call_id(const char *name)
{
    for (int id = 1; id < ROCSYS_MPI_CALL_MAX; id++)
        if (strcmp(model_mpi_call_name(id), name) == 0)
            return id;
    return -1;
}

/* The state of pid, created on first use. */
static struct mpi_proc *proc_of(struct model *m, uint32_t pid)
{
    struct model_mpi *s = m->mpi;

    if (!s)
        s = m->mpi = xcalloc(1, sizeof(*s));
    for (size_t i = 0; i < s->n; i++)
        if (s->procs[i].pid == pid)
            return &s->procs[i];
    xgrow(&s->procs, &s->cap, s->n + 1, sizeof(*s->procs));
    struct mpi_proc *p = &s->procs[s->n++];
    memset(p, 0, sizeof(*p));
    p->pid = pid;
    return p;
}

/* The site of (pid, call, key), created on first use (the last one found is tried first:
 * loops call from the same place). */
static struct mpi_site *site_of(struct model_mpi *s, uint32_t pid, int call, uint64_t key)
{
    struct mpi_site *x;

    if (s->last_site < s->nsites) {
        x = &s->sites[s->last_site];
        if (x->pid == pid && x->call == call && x->key == key)
            return x;
    }
    for (size_t i = 0; i < s->nsites; i++) {
        x = &s->sites[i];
        if (x->pid == pid && x->call == call && x->key == key) {
            s->last_site = i;
            return x;
        }
    }
    xgrow(&s->sites, &s->sites_cap, s->nsites + 1, sizeof(*s->sites));
    x = &s->sites[s->nsites];
    memset(x, 0, sizeof(*x));
    x->pid = pid;
    x->call = call;
    x->key = key;
    s->last_site = s->nsites++;
    return x;
}

void model_mpi_call(struct model *m, const struct model_mpi_input *c)
{
    struct mpi_site *site;
    struct mpi_proc *p;
    struct model_mpi_stats *st;
    uint64_t ns = c->end_ns > c->start_ns ? c->end_ns - c->start_ns : 0;

    if (c->call <= 0 || c->call >= ROCSYS_MPI_CALL_MAX)
        return;
    p = proc_of(m, c->pid);
    st = &p->calls[c->call];
    st->name = model_mpi_call_name(c->call);
    st->call = c->call;
    st->waits = rocsys_mpi_call_waits(c->call);
    model_duration_add(&st->time, ns);
    st->bytes += c->bytes;
    st->errors += c->result != 0;
    st->comm_size = c->comm_size > st->comm_size ? c->comm_size : st->comm_size;
    p->total_ns += ns;
    if (!p->first_ns || c->start_ns < p->first_ns)
        p->first_ns = c->start_ns;
    if (c->end_ns > p->last_ns)
        p->last_ns = c->end_ns;
    if (c->call == 3 /* MPI_Finalize */)
        p->finalized = 1;
    site = site_of(m->mpi, c->pid, c->call, c->stack_key);
    model_duration_add(&site->time, ns);
    site->bytes += c->bytes;
}

/* Whether process pid counts for only_rank (0: every process). */
static int rank_keeps(const struct model *m, uint32_t pid, int only_rank)
{
    const struct model_process *pr;

    if (!only_rank)
        return 1;
    pr = model_process_find(m, pid);
    return pr && pr->rank == only_rank - 1;
}

/* Order call paths by time, then call name, then path (qsort). */
static int path_by_time(const void *a, const void *b)
{
    const struct model_mpi_path *x = a, *y = b;
    int d;

    if (x->time.total_ns != y->time.total_ns)
        return x->time.total_ns > y->time.total_ns ? -1 : 1;
    d = strcmp(x->name, y->name);
    return d ? d : (x->path > y->path) - (x->path < y->path);
}

struct model_mpi_path *model_mpi_paths(struct model *m, int only_rank, int *n)
{
    size_t count = m->mpi ? m->mpi->nsites : 0;
    struct model_mpi_path *out = xcalloc(count + 1, sizeof(*out));
    int k = 0;

    for (size_t i = 0; i < count; i++) {
        const struct mpi_site *s = &m->mpi->sites[i];
        uint32_t path;
        int j;
        if (!rank_keeps(m, s->pid, only_rank))
            continue;
        path = s->key ? model_launch_stack_path(m, s->pid, s->key) : 0;
        for (j = 0; j < k; j++)
            if (out[j].path == path && strcmp(out[j].name, model_mpi_call_name(s->call)) == 0)
                break;
        if (j == k) {
            out[k].name = model_mpi_call_name(s->call);
            out[k++].path = path;
        }
        out[j].time.calls += s->time.calls;
        out[j].time.total_ns += s->time.total_ns;
        out[j].time.max_ns =
            s->time.max_ns > out[j].time.max_ns ? s->time.max_ns : out[j].time.max_ns;
        out[j].bytes += s->bytes;
    }
    qsort(out, (size_t)k, sizeof(*out), path_by_time);
    *n = k;
    return out;
}

int model_mpi_seen(const struct model *m)
{
    return m->mpi && m->mpi->n > 0;
}

/* Order statistics by time, then name (qsort). */
static int by_time(const void *a, const void *b)
{
    const struct model_mpi_stats *x = a, *y = b;

    if (x->time.total_ns != y->time.total_ns)
        return x->time.total_ns > y->time.total_ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

int model_mpi_totals(const struct model *m, int only_rank, uint64_t now_ns,
                     struct model_mpi_stats out[MODEL_MPI_CALLS], uint64_t *span_ns)
{
    int n = 0;

    memset(out, 0, sizeof(*out) * ROCSYS_MPI_CALL_MAX);
    *span_ns = 0;
    for (size_t i = 0; m->mpi && i < m->mpi->n; i++) {
        const struct mpi_proc *p = &m->mpi->procs[i];
        uint64_t total, span;
        if (!rank_keeps(m, p->pid, only_rank))
            continue;
        model_mpi_process(m, p->pid, now_ns, &total, &span, NULL);
        *span_ns += span;
        for (int c = 1; c < ROCSYS_MPI_CALL_MAX; c++) {
            const struct model_mpi_stats *s = &p->calls[c];
            struct model_mpi_stats *o = &out[c];
            if (!s->time.calls)
                continue;
            if (!o->time.calls) {
                *o = *s;
                continue;
            }
            o->time.calls += s->time.calls;
            o->time.total_ns += s->time.total_ns;
            o->time.min_ns = s->time.min_ns < o->time.min_ns ? s->time.min_ns : o->time.min_ns;
            o->time.max_ns = s->time.max_ns > o->time.max_ns ? s->time.max_ns : o->time.max_ns;
            o->time.sum_sq_ns += s->time.sum_sq_ns;
            o->bytes += s->bytes;
            o->errors += s->errors;
            o->comm_size = s->comm_size > o->comm_size ? s->comm_size : o->comm_size;
        }
    }
    for (int c = 1; c < ROCSYS_MPI_CALL_MAX; c++)
        if (out[c].time.calls)
            out[n++] = out[c];
    qsort(out, (size_t)n, sizeof(*out), by_time);
    return n;
}

int model_mpi_process(const struct model *m, uint32_t pid, uint64_t now_ns, uint64_t *total_ns,
                      uint64_t *span_ns, const struct model_mpi_stats **top)
{
    *total_ns = *span_ns = 0;
    if (top)
        *top = NULL;
    for (size_t i = 0; m->mpi && i < m->mpi->n; i++) {
        const struct mpi_proc *p = &m->mpi->procs[i];
        uint64_t end;
        if (p->pid != pid)
            continue;
        end = p->finalized || now_ns < p->last_ns ? p->last_ns : now_ns;
        *total_ns = p->total_ns;
        *span_ns = end - p->first_ns;
        for (int c = 1; top && c < ROCSYS_MPI_CALL_MAX; c++)
            if (p->calls[c].time.calls &&
                (!*top || p->calls[c].time.total_ns > (*top)->time.total_ns))
                *top = &p->calls[c];
        return 1;
    }
    return 0;
}
