/* --replay --live's GPU gauges: the GPUs of every host of a multi-rank job, from the recorded
 * machine-wide "GPU<i> <metric>" counter tracks. Ranks on one host record the same GPUs, so a
 * host's GPUs are read from the first rank seen there and the others' copies are skipped: 8
 * nodes of N GPUs show 8 x N devices, named "HOST GPU<i>" (at most GPU_MAX_DEVICES). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session/replay.h"

/* One device: GPU gpu of host, read from recording rec. */
struct live_dev {
    char host[64];
    int gpu;
    int rec;
};

struct live_gpus {
    struct live_dev devs[GPU_MAX_DEVICES];
    int ndevs;
    int shown;                       /* devices of the model's monitor */
    struct replay_reading *readings; /* every reading so far (dev: index into devs) */
    size_t n, cap;
    struct replay_reading pend[GPU_MAX_DEVICES]; /* a reading still gathering its metrics */
    int has_pend[GPU_MAX_DEVICES];
};

struct live_gpus *live_gpus_new(void)
{
    return xcalloc(1, sizeof(struct live_gpus));
}

/* The device of (host, gpu) read from rec: made when new, -1 when another recording of that
 * host provides its GPUs (or there is no room). */
static int device_of(struct live_gpus *g, int rec, const char *host, int gpu)
{
    for (int d = 0; d < g->ndevs; d++)
        if (strcmp(g->devs[d].host, host) == 0 && g->devs[d].rec != rec)
            return -1; /* the host's GPUs come from another rank */
    for (int d = 0; d < g->ndevs; d++)
        if (g->devs[d].rec == rec && g->devs[d].gpu == gpu)
            return d;
    if (g->ndevs == GPU_MAX_DEVICES)
        return -1;
    snprintf(g->devs[g->ndevs].host, sizeof(g->devs[0].host), "%s", host);
    g->devs[g->ndevs].gpu = gpu;
    g->devs[g->ndevs].rec = rec;
    return g->ndevs++;
}

/* Give the model a monitor with every device known (a new one when devices were added: the
 * readings in the range are pushed to it again). */
static void ensure_monitor(struct live_gpus *g, struct model *m)
{
    struct model_session *s = model_session(m);
    struct gpu_static info[GPU_MAX_DEVICES];
    uint32_t interval_ms = 0;

    if (g->ndevs == g->shown && s->gpu)
        return;
    memset(info, 0, sizeof(info));
    for (int d = 0; d < g->ndevs; d++)
        snprintf(info[d].name, sizeof(info[d].name), "%.63s GPU%d",
                 g->devs[d].host[0] ? g->devs[d].host : "?", g->devs[d].gpu);
    for (size_t i = 1; i < g->n && !interval_ms; i++) /* the gap of device 0's readings */
        if (g->readings[i].dev == 0)
            for (size_t k = 0; k < i && !interval_ms; k++)
                if (g->readings[k].dev == 0 && g->readings[i].s.time_ns > g->readings[k].s.time_ns)
                    interval_ms =
                        (uint32_t)((g->readings[i].s.time_ns - g->readings[k].s.time_ns) / 1000000);
    gpu_monitor_stop(s->gpu);
    s->gpu = gpu_monitor_replay(g->ndevs, info, interval_ms, 3600);
    g->shown = g->ndevs;
    for (size_t i = 0; i < g->n; i++)
        if (s->range_live || (g->readings[i].s.time_ns >= s->range_start_ns &&
                              g->readings[i].s.time_ns <= s->range_end_ns))
            gpu_monitor_replay_push(s->gpu, g->readings[i].dev, &g->readings[i].s);
}

/* Keep device d's gathered reading and show it. */
static void commit(struct live_gpus *g, struct model *m, int d)
{
    if (!g->has_pend[d])
        return;
    xgrow(&g->readings, &g->cap, g->n + 1, sizeof(*g->readings));
    g->readings[g->n++] = g->pend[d];
    g->has_pend[d] = 0;
    ensure_monitor(g, m);
    gpu_monitor_replay_push(model_session(m)->gpu, d, &g->readings[g->n - 1].s);
}

void live_gpus_feed(struct live_gpus *g, struct model *m, int rec, const char *host,
                    const struct perfetto_summary *sum, size_t *cursor)
{
    for (; *cursor < sum->ncounters; (*cursor)++) {
        const struct perfetto_read_counter *c = &sum->counters[*cursor];
        const struct perfetto_read_track *t = &sum->tracks[c->track];
        int gpu, pos = 0, metric, d;
        if (t->pid != 0 || sscanf(t->name, "GPU%d %n", &gpu, &pos) != 1 || pos == 0 || gpu < 0 ||
            (metric = gpu_metric_by_track(t->name + pos)) < 0 ||
            (d = device_of(g, rec, host, gpu)) < 0)
            continue;
        if (g->has_pend[d] && g->pend[d].s.time_ns != c->mono_ns)
            commit(g, m, d);
        if (!g->has_pend[d]) {
            memset(&g->pend[d], 0, sizeof(g->pend[d]));
            g->pend[d].dev = d;
            g->pend[d].s.time_ns = c->mono_ns;
            g->has_pend[d] = 1;
        }
        g->pend[d].s.v[metric] = c->value;
        g->pend[d].s.valid |= 1u << metric;
    }
    for (int d = 0; d < g->ndevs; d++) /* (a reading split across two feeds is two) */
        if (g->devs[d].rec == rec)
            commit(g, m, d);
}

void live_gpus_recount(struct live_gpus *g, struct model *m)
{
    struct model_session *s = model_session(m);

    if (!s->gpu)
        return;
    gpu_monitor_replay_clear(s->gpu);
    for (size_t i = 0; i < g->n; i++)
        if (s->range_live || (g->readings[i].s.time_ns >= s->range_start_ns &&
                              g->readings[i].s.time_ns <= s->range_end_ns))
            gpu_monitor_replay_push(s->gpu, g->readings[i].dev, &g->readings[i].s);
}

void live_gpus_free(struct live_gpus *g)
{
    if (!g)
        return;
    free(g->readings);
    free(g);
}
