/* OpenMP in the model: the parallel regions' instances the collector reported through OMPT
 * (OMP_PARALLEL records), summed per (process, region): count, wall time, threads, the
 * threads' work and waits, hence the imbalance across threads; and whether a process runs
 * GCC's libgomp, which has no tool interface (its regions are named from sampled frames only). */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/protocol.h"
#include "base/hashmap.h"
#include "model_internal.h"

struct model_omp {
    struct model_omp_stats *stats;
    size_t n, cap;
    struct hashmap map; /* (pid, id) -> index + 1 */
    int gomp;           /* a process loaded libgomp */
};

/* The model's OpenMP state, created on first use. */
static struct model_omp *omp(struct model *m)
{
    if (!m->omp)
        m->omp = xcalloc(1, sizeof(*m->omp));
    return m->omp;
}

void model_omp_free(struct model *m)
{
    if (!m->omp)
        return;
    free(m->omp->stats);
    hashmap_free(&m->omp->map);
    free(m->omp);
    m->omp = NULL;
}

void model_omp_parallel(struct model *m, uint32_t pid, const struct rocsys_rec_omp_parallel *r)
{
    struct model_omp *o = omp(m);
    uint32_t *slot = hashmap_slot(&o->map, hashmap_mix(((uint64_t)pid << 32) ^ r->id), 1);
    struct model_omp_stats *s;
    uint64_t wall = r->end_ns > r->begin_ns ? r->end_ns - r->begin_ns : 0;

    if (*slot == 0) {
        xgrow(&o->stats, &o->cap, o->n + 1, sizeof(*o->stats));
        memset(&o->stats[o->n], 0, sizeof(o->stats[0]));
        o->stats[o->n].pid = pid;
        o->stats[o->n].id = r->id;
        *slot = (uint32_t)++o->n;
    }
    s = &o->stats[*slot - 1];
    s->count++;
    s->wall_ns += wall;
    if (r->nthreads > s->threads)
        s->threads = r->nthreads;
    s->work_max_ns += r->work_max_ns;
    s->work_mean_ns += r->nthreads ? r->work_sum_ns / r->nthreads : 0;
    s->work_ns += r->work_sum_ns;
    s->barrier_ns += r->barrier_ns;
    s->taskwait_ns += r->taskwait_ns;
    s->thread_ns += wall * r->nthreads;
}

const struct model_omp_stats *model_omp_stats(struct model *m, int *count)
{
    struct model_omp *o = m->omp;

    *count = o ? (int)o->n : 0;
    for (int i = 0; i < *count; i++) /* a region's name may have been resolved since */
        o->stats[i].name = model_region_name_of(m, o->stats[i].pid, o->stats[i].id);
    return o ? o->stats : NULL;
}

double model_omp_imbalance_pct(const struct model_omp_stats *s)
{
    if (!s->work_max_ns || s->work_mean_ns > s->work_max_ns)
        return 0;
    return 100.0 * (double)(s->work_max_ns - s->work_mean_ns) / (double)s->work_max_ns;
}

double model_omp_barrier_pct(const struct model_omp_stats *s)
{
    return s->thread_ns ? 100.0 * (double)s->barrier_ns / (double)s->thread_ns : 0;
}

void model_omp_module(struct model *m, const char *path)
{
    const char *base = strrchr(path, '/');

    base = base ? base + 1 : path;
    if (strncmp(base, "libgomp.so", 10) == 0)
        omp(m)->gomp = 1;
}

int model_omp_notice(const struct model *m, char *buf, size_t n)
{
    if (!m->omp || !m->omp->gomp)
        return 0;
    snprintf(buf, n,
             "OpenMP: GCC's libgomp has no tool interface (OMPT): regions are named from "
             "sampled frames (FUNC [omp parallel N]); no barrier or imbalance times");
    return 1;
}

const char *model_omp_wait_name(int id)
{
    /* by ompt_sync_region_t: the implicit barriers of a worksharing construct's end and of a
     * region's end are one "implicit barrier" to the user, whichever the runtime reports */
    static const char *const names[ROCSYS_OMP_WAIT_IDS] = {
        [1] = "barrier",         [2] = "implicit barrier", [3] = "explicit barrier",
        [4] = "runtime barrier", [5] = "taskwait",         [6] = "taskgroup",
        [7] = "reduction",       [8] = "implicit barrier", [9] = "implicit barrier",
        [10] = "teams barrier",
    };

    return id > 0 && id < ROCSYS_OMP_WAIT_IDS && names[id] ? names[id] : "wait";
}
