/* The Perfetto reader's tracks (perfetto_read_internal.h): TrackDescriptors of processes,
 * threads, named (slice) and counter tracks, each uuid declared once, and the TrackEvents on
 * them: counter values, slices (begin/end, nested per track) and instants. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "perfetto_read_internal.h"

/* A named track (slices) or a counter track: its parent must be a declared process. */
static int parse_named_track(struct reader *r, uint64_t uuid, uint64_t parent, const uint8_t *name,
                             size_t name_n, const uint8_t *counter, size_t counter_n,
                             int is_counter)
{
    struct perfetto_summary *o = r->out;
    uint64_t info = 0, cv[8] = {0}, idx;
    int ch[8] = {0};
    const uint8_t *cs[8] = {0};
    size_t csn[8] = {0};

    if (is_counter && pfr_parse_flat(counter, counter_n, cv, ch, cs, csn, 8) < 0)
        return -1;
    if (pfr_rmap_get(&r->map, K_UUID, uuid, 0, &info) == 0) {
        if (info >> 32 != UUID_NAMED) {
            pfr_violation(r, "track uuid %llu reused for another track", (unsigned long long)uuid);
            return 0;
        }
        idx = (uint32_t)info;
    } else {
        xgrow(&o->tracks, &r->captracks, o->ntracks + 1, sizeof(*o->tracks));
        idx = o->ntracks++;
        o->tracks[idx] = (struct perfetto_read_track){.uuid = uuid};
        pfr_set_name(&o->tracks[idx].name, NULL, 0);
        pfr_set_name(&o->tracks[idx].unit, NULL, 0);
        pfr_rmap_put(&r->map, K_UUID, uuid, 0, UUID_NAMED << 32 | idx);
    }
    struct perfetto_read_track *t = &o->tracks[idx];
    if (name)
        pfr_set_name(&t->name, name, name_n);
    if (parent) {
        if (pfr_rmap_get(&r->map, K_UUID, parent, 0, &info) < 0 || info >> 32 != UUID_PROCESS)
            pfr_violation(r, "track %s: parent uuid %llu is not a declared process", t->name,
                          (unsigned long long)parent);
        else
            t->pid = (uint32_t)info;
    }
    t->counter = is_counter;
    if (is_counter && ch[PF_COUNTER_UNIT_NAME])
        pfr_set_name(&t->unit, cs[PF_COUNTER_UNIT_NAME], csn[PF_COUNTER_UNIT_NAME]);
    else if (is_counter && ch[PF_COUNTER_UNIT]) {
        uint64_t u = cv[PF_COUNTER_UNIT];
        const char *text = u == PF_UNIT_SIZE_BYTES ? "bytes" : u == PF_UNIT_TIME_NS ? "ns" : "";
        pfr_set_name(&t->unit, (const uint8_t *)text, strlen(text));
    }
    return 0;
}

/* The writer's process label, "host=NAME rank=N" (each part optional), into proc. */
static void parse_process_label(struct perfetto_read_process *proc, const uint8_t *p, size_t n)
{
    char text[160];
    const char *h, *rk;

    if (!p || n >= sizeof(text)) /* (a label sent as a varint has no bytes) */
        return;
    memcpy(text, p, n);
    text[n] = '\0';
    if ((h = strstr(text, "host=")) != NULL && (h == text || h[-1] == ' '))
        sscanf(h + 5, "%63[^ ]", proc->host);
    if ((rk = strstr(text, "rank=")) != NULL && (rk == text || rk[-1] == ' ')) {
        int v;
        if (sscanf(rk + 5, "%d", &v) == 1 && v >= 0)
            proc->rank = v;
    }
}

/* (perfetto_read_internal.h) A TrackDescriptor: a process, thread, named or counter track. */
int pfr_parse_track(struct reader *r, const uint8_t *p, size_t n)
{
    struct perfetto_summary *o = r->out;
    uint64_t v[16] = {0}, tv[9] = {0}, key, idx;
    int has[16] = {0}, th[9] = {0};
    const uint8_t *s[16] = {0}, *ts[9] = {0};
    size_t sn[16] = {0}, tsn[9] = {0};

    if (pfr_parse_flat(p, n, v, has, s, sn, 16) < 0)
        return -1;
    if (!has[PF_TRACK_UUID]) {
        pfr_violation(r, "track descriptor without uuid");
        return 0;
    }
    if (has[PF_TRACK_THREAD]) {
        if (pfr_parse_flat(s[PF_TRACK_THREAD], sn[PF_TRACK_THREAD], tv, th, ts, tsn, 8) < 0)
            return -1;
        if (!th[PF_THREAD_PID] || !th[PF_THREAD_TID]) {
            pfr_violation(r, "thread descriptor without pid or tid");
            return 0;
        }
        uint64_t pid = tv[PF_THREAD_PID], tid = tv[PF_THREAD_TID];
        key = pid << 32 | (uint32_t)tid;
        if (pfr_rmap_get(&r->map, K_THREAD, pid, tid, &idx) < 0) {
            xgrow(&o->threads, &r->capthreads, o->nthreads + 1, sizeof(*o->threads));
            idx = o->nthreads++;
            o->threads[idx] = (struct perfetto_read_thread){(uint32_t)pid, (uint32_t)tid};
            pfr_set_name(&o->threads[idx].name, NULL, 0);
            pfr_rmap_put(&r->map, K_THREAD, pid, tid, idx);
        }
        if (th[PF_THREAD_NAME])
            pfr_set_name(&o->threads[idx].name, ts[PF_THREAD_NAME], tsn[PF_THREAD_NAME]);
        pfr_rmap_put(&r->map, K_UUID, v[PF_TRACK_UUID], 0, UUID_THREAD << 32 | idx);
    } else if (has[PF_TRACK_PROCESS]) {
        if (pfr_parse_flat(s[PF_TRACK_PROCESS], sn[PF_TRACK_PROCESS], tv, th, ts, tsn, 9) < 0)
            return -1;
        if (!th[PF_PROCESS_PID]) {
            pfr_violation(r, "process descriptor without pid");
            return 0;
        }
        uint64_t pid = tv[PF_PROCESS_PID];
        key = pid << 32;
        if (pfr_rmap_get(&r->map, K_PROC, pid, 0, &idx) < 0) {
            xgrow(&o->processes, &r->capprocs, o->nprocesses + 1, sizeof(*o->processes));
            idx = o->nprocesses++;
            o->processes[idx] = (struct perfetto_read_process){.pid = (uint32_t)pid, .rank = -1};
            pfr_set_name(&o->processes[idx].name, NULL, 0);
            pfr_rmap_put(&r->map, K_PROC, pid, 0, idx);
        }
        if (th[PF_PROCESS_NAME])
            pfr_set_name(&o->processes[idx].name, ts[PF_PROCESS_NAME], tsn[PF_PROCESS_NAME]);
        if (th[PF_PROCESS_LABELS])
            parse_process_label(&o->processes[idx], ts[PF_PROCESS_LABELS], tsn[PF_PROCESS_LABELS]);
        pfr_rmap_put(&r->map, K_UUID, v[PF_TRACK_UUID], 0, UUID_PROCESS << 32 | (uint32_t)pid);
    } else {
        key = UINT64_MAX; /* a named or counter track */
        if (parse_named_track(
                r, v[PF_TRACK_UUID], has[PF_TRACK_PARENT_UUID] ? v[PF_TRACK_PARENT_UUID] : 0,
                s[PF_TRACK_NAME], has[PF_TRACK_NAME] ? sn[PF_TRACK_NAME] : 0, s[PF_TRACK_COUNTER],
                has[PF_TRACK_COUNTER] ? sn[PF_TRACK_COUNTER] : 0, has[PF_TRACK_COUNTER]) < 0)
            return -1;
    }
    if (pfr_rmap_get(&r->map, K_TRACK, v[PF_TRACK_UUID], 0, &idx) == 0 && idx != key)
        pfr_violation(r, "track uuid %llu reused for another track",
                      (unsigned long long)v[PF_TRACK_UUID]);
    pfr_rmap_put(&r->map, K_TRACK, v[PF_TRACK_UUID], 0, key);
    return 0;
}

/* Append the debug annotation {name, string/int/uint value} as a "key=value" line. */
static int append_annotation(char **args, const uint8_t *p, size_t n)
{
    uint64_t v[12] = {0};
    int has[12] = {0};
    const uint8_t *s[12] = {0};
    size_t sn[12] = {0}, old = strlen(*args);
    char val[32];
    const char *vp = val;
    size_t vn;

    if (pfr_parse_flat(p, n, v, has, s, sn, 12) < 0)
        return -1;
    const uint8_t *key = s[PF_ANNOTATION_NAME];
    size_t kn = sn[PF_ANNOTATION_NAME];
    if (!has[PF_ANNOTATION_NAME] || !key)
        return 0;
    if (has[PF_ANNOTATION_STRING] && s[PF_ANNOTATION_STRING]) {
        vp = (const char *)s[PF_ANNOTATION_STRING];
        vn = sn[PF_ANNOTATION_STRING];
    } else {
        vn = (size_t)snprintf(
            val, sizeof(val), "%lld",
            (long long)v[has[PF_ANNOTATION_INT] ? PF_ANNOTATION_INT : PF_ANNOTATION_UINT]);
    }
    *args = xrealloc(*args, old + kn + vn + 3);
    memcpy(*args + old, key, kn);
    (*args)[old + kn] = '=';
    memcpy(*args + old + kn + 1, vp, vn);
    (*args)[old + kn + 1 + vn] = '\n';
    (*args)[old + kn + 2 + vn] = '\0';
    return 0;
}

/* A TrackEvent: a counter value, a slice begin/end or an instant on a declared track. */
int pfr_parse_track_event(struct reader *r, const uint8_t *p, size_t n, int has_ts, uint64_t mono)
{
    struct perfetto_summary *o = r->out;
    const uint8_t *c = p, *cend = p + n;
    struct pb_field f;
    uint64_t type = 0, uuid = 0, info, top, flow_out = 0, flow_in = 0, ival = 0;
    const uint8_t *name = NULL, *cat = NULL;
    size_t name_n = 0, cat_n = 0;
    double value = 0;
    int have_value = 0, k;
    char *args = xstrdup("");

    while ((k = pb_next(&c, cend, &f)) > 0) {
        if (f.field == PF_EVENT_TYPE && f.wire == 0)
            type = f.v;
        else if (f.field == PF_EVENT_TRACK_UUID && f.wire == 0)
            uuid = f.v;
        else if (f.field == PF_EVENT_NAME && f.wire == 2)
            name = f.data, name_n = f.len;
        else if (f.field == PF_EVENT_CATEGORIES && f.wire == 2)
            cat = f.data, cat_n = f.len;
        else if (f.field == PF_EVENT_DOUBLE_COUNTER_VALUE && f.wire == 1) {
            memcpy(&value, &f.v, sizeof(value));
            have_value = 1;
        } else if (f.field == PF_EVENT_COUNTER_VALUE && f.wire == 0) {
            ival = f.v;
            value = (double)(int64_t)ival;
            have_value = 1;
        } else if (f.field == PF_EVENT_FLOW_IDS && f.wire == 1)
            flow_out = f.v;
        else if (f.field == PF_EVENT_TERMINATING_FLOW_IDS && f.wire == 1)
            flow_in = f.v;
        else if (f.field == PF_EVENT_DEBUG_ANNOTATIONS && f.wire == 2 &&
                 append_annotation(&args, f.data, f.len) < 0)
            k = -1;
        if (k < 0)
            break;
    }
    if (k < 0) {
        free(args);
        return -1;
    }
    if (!has_ts)
        pfr_violation(r, "track event without timestamp");
    if (pfr_rmap_get(&r->map, K_UUID, uuid, 0, &info) < 0 || info >> 32 == UUID_PROCESS) {
        pfr_violation(r, "track event on undeclared track uuid %llu", (unsigned long long)uuid);
        goto out;
    }
    int named = info >> 32 == UUID_NAMED;
    uint32_t idx = (uint32_t)info;
    if (type == PF_TYPE_COUNTER) {
        if (!named || !o->tracks[idx].counter || !have_value) {
            pfr_violation(r, "counter value on a non-counter track or without a value");
            goto out;
        }
        xgrow(&o->counters, &r->capcounters, o->ncounters + 1, sizeof(*o->counters));
        o->counters[o->ncounters++] = (struct perfetto_read_counter){idx, mono, value};
        goto out;
    }
    if (named && o->tracks[idx].counter) {
        pfr_violation(r, "slice on counter track %s", o->tracks[idx].name);
        goto out;
    }
    if (type == PF_TYPE_SLICE_END) { /* closes the innermost open slice of the track */
        if (pfr_rmap_get(&r->map, K_OPENTOP, uuid, 0, &top) < 0 || top == 0) {
            pfr_violation(r, "slice end without a begin on track uuid %llu",
                          (unsigned long long)uuid);
            goto out;
        }
        struct perfetto_read_slice *sl = &o->slices[top - 1];
        sl->end_ns = mono;
        if (mono < sl->start_ns)
            pfr_violation(r, "slice %s ends before it begins", sl->name);
        pfr_rmap_put(&r->map, K_OPENTOP, uuid, 0, (uint64_t)(sl->parent_open + 1));
        goto out;
    }
    if (type != PF_TYPE_SLICE_BEGIN && type != PF_TYPE_INSTANT) {
        pfr_violation(r, "track event of unknown type %llu", (unsigned long long)type);
        goto out;
    }
    xgrow(&o->slices, &r->capslices, o->nslices + 1, sizeof(*o->slices));
    struct perfetto_read_slice *sl = &o->slices[o->nslices];
    *sl = (struct perfetto_read_slice){.track = named ? (int32_t)idx : -1,
                                       .start_ns = mono,
                                       .flow_out = flow_out,
                                       .flow_in = flow_in,
                                       .instant = type == PF_TYPE_INSTANT,
                                       .parent_open = -1};
    if (!named) {
        sl->pid = o->threads[idx].pid;
        sl->tid = o->threads[idx].tid;
    } else {
        sl->pid = o->tracks[idx].pid;
    }
    pfr_set_name(&sl->name, name, name_n);
    pfr_set_name(&sl->category, cat, cat_n);
    if (!name)
        pfr_violation(r, "slice without a name");
    sl->args = args;
    args = NULL;
    if (type == PF_TYPE_SLICE_BEGIN) {
        if (pfr_rmap_get(&r->map, K_OPENTOP, uuid, 0, &top) == 0)
            sl->parent_open = (int32_t)top - 1;
        pfr_rmap_put(&r->map, K_OPENTOP, uuid, 0, o->nslices + 1);
    } else {
        sl->end_ns = mono;
    }
    o->nslices++;
out:
    free(args);
    return 0;
}
