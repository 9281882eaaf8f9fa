/* Private to session/: replay's decoding of a recording into the model, shared by --replay
 * (replay.c) and --replay --live (replay_live.c). */
#ifndef ROCSYS_SESSION_REPLAY_H
#define ROCSYS_SESSION_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu.h"
#include "model/model.h"
#include "record/perfetto_read.h"

/* What a trace slice or mark feeds into the model. */
enum replay_kind { RK_DISPATCH, RK_HIP, RK_COPY, RK_REGION, RK_MARK, RK_MPI };

/* A slice or mark of the trace, decoded once; recounts feed the ones inside the range. */
struct replay_event {
    enum replay_kind kind;
    uint32_t pid, tid;
    uint64_t start_ns, end_ns;
    const char *name;  /* region name (owned by the trace) */
    uint32_t name_id;  /* kernel name id (1 + index into names), 0: none */
    uint32_t agent;    /* dispatch: GPU ordinal */
    uint64_t queue_id; /* dispatch */
    uint64_t bytes;    /* HIP call or copy */
    int api, result, copy_kind, closed_at_exit;
    uint32_t grid[3], block[3];
    uint32_t launch_path; /* HIP launch, MPI call: the call path it was made from (0: none) */
    uint64_t flow;        /* HIP launch: its flow out; dispatch: its flow in (0: none) */
    uint64_t wait_cpu_ns; /* HIP call that waits for the device: CPU time burned inside */
    int peer;             /* MPI call (api: its id, bytes, result): the peer rank (-1: none) */
    uint32_t comm_size;   /* MPI call: the communicator's size */
};

/* One GPU reading: every metric of one device read at one time. */
struct replay_reading {
    int dev;
    struct gpu_sample s;
};

struct replay {
    struct model *m;
    struct perfetto_summary trace;
    char *json; /* session.json, "" if missing */
    struct replay_event *events;
    size_t nevents;
    char **names; /* distinct kernel names of the events */
    size_t nnames;
    struct replay_reading *readings; /* per device in time order */
    size_t nreadings;
    /* the pid the model knows a pid of session.json by (--live renumbers pids that two ranks
     * share), or NULL: the same */
    uint32_t (*pid_of)(void *ctx, uint32_t pid);
    void *pid_ctx;
};

/* The whole file at path, NUL-terminated (NULL if it cannot be read); *len its size. */
char *replay_slurp(const char *path, size_t *len);
/* session.json, read by hand (the writer's own layout): the string value at p (after its
 * opening quote) into out, returning what follows it; the value of key, or NULL. */
const char *replay_json_string(const char *p, char *out, size_t cap);
const char *replay_json_find(const char *json, const char *key);
void replay_json_get_string(const char *json, const char *key, char *out, size_t cap);
/* A number in [lo, hi], else dflt. */
double replay_json_get_number(const char *json, const char *key, double lo, double hi, double dflt);
/* The recorded command line joined with spaces. */
void replay_json_get_command(const char *json, char *out, size_t cap);
/* session.json's per-process statuses applied to the model; processes still running end at t. */
void replay_end_processes(struct replay *r, uint64_t t);
/* Feed one decoded slice or mark to the model, as the live session would have. */
void replay_feed_event(struct model *m, const struct replay_event *e);
/* Each process's CPU % and RSS from its counter tracks over the model's range. */
void replay_recount_process_metrics(struct replay *r);
/* Decode slice sl of r's trace into e; 0 when it is nothing the views count. */
int replay_decode_slice(struct replay *r, const struct perfetto_read_slice *sl,
                        struct replay_event *e);
/* The trace's slices and marks as events for the model. */
void replay_load_events(struct replay *r);
/* The GPU readings of the trace's counter tracks, and a GPU monitor to show them. */
void replay_load_gpu(struct replay *r);

/* --replay --live's GPU gauges (replay_live_gpu.c): every host's GPUs, from the first rank
 * seen on each, as devices "HOST GPU<i>" of a replay monitor in the model. */
struct live_gpus;
struct live_gpus *live_gpus_new(void);
/* The GPU readings among recording rec's counters from *cursor on (rec: its index, host: its
 * host); skipped when another recording of that host provides them. */
void live_gpus_feed(struct live_gpus *g, struct model *m, int rec, const char *host,
                    const struct perfetto_summary *sum, size_t *cursor);
/* The range changed: the monitor shows the readings inside it again. */
void live_gpus_recount(struct live_gpus *g, struct model *m);
void live_gpus_free(struct live_gpus *g);

#endif
