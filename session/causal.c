/* Causal profiling's experiments (--causal), run from the front end's drain loop: choose a
 * function of the target's executable that carries samples (the one with the fewest
 * experiments so far among those with 2 % of the recent samples), a virtual speedup (0-100 % in
 * steps of 5, each as likely), hand both to the collector (protocol.h,
 * struct rocsys_causal_ctl), and read what it did: the progress points reached and the delays
 * inserted (subtracted from the elapsed time). Unlike Coz, an experiment alternates slices of
 * 0.1 s with the speedup and at 0 % (the collector switches as it is told): the 0 % slices are
 * its own baseline, taken at the same time, so that a machine whose load changes from one
 * second to the next (other programs) does not drown the effect; experiments at 0 % run
 * too. The length starts at 1 s (two halves of Coz's 0.5 s) and doubles (up to 8 s)
 * while the speedup's half sees fewer than 5 progress points, as in Coz. Results go to the model
 * (model/causal.h): the Causal view, batch frames, profile.coz. */
#include "session/causal.h"
#include "session/session_internal.h"

#include "collector/protocol.h"
#include "model/causal.h"
#include "model/model.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --progress kernel:NAME: NAME (the kernel), else NULL (--progress FUNC, or none). A C++
 * function named kernel::f stays a function. */
static const char *progress_kernel(const struct session *s)
{
    const char *p = s->o->progress;

    return p && strncmp(p, "kernel:", 7) == 0 && p[7] && p[7] != ':' ? p + 7 : NULL;
}

void session_causal_hsa_symbol(struct session *s, uint32_t pid, uint64_t kernel_object)
{
    struct session_causal *c = s->causal;
    const char *want = c ? progress_kernel(s) : NULL;
    const char *name;

    if (!want || pid != c->pid || !(name = model_kernel_object_name(s->m, pid, kernel_object)) ||
        !model_kernel_name_matches(name, want))
        return;
    uint32_t n = atomic_load(&c->ctl->nkernels);
    for (uint32_t i = 0; i < n; i++)
        if (c->ctl->kernel_object[i] == kernel_object)
            return;
    if (n >= ROCSYS_CAUSAL_KERNELS)
        return;
    c->ctl->kernel_object[n] = kernel_object;
    atomic_store_explicit(&c->ctl->nkernels, n + 1, memory_order_release);
}

/* Causal mode in the child, named before its exec: a progress point it reaches at once counts
 * (a latency point's end counted without its begin left the count in flight one low). */
void session_causal_before_exec(struct session *s, pid_t pid)
{
    if (!s->tr.hdr)
        return;
    struct rocsys_causal_ctl *ctl = &s->tr.hdr->causal;

    ctl->pid = (uint32_t)pid;
    ctl->enabled = 1;
}

void session_causal_start(struct session *s)
{
    struct session_causal *c = xcalloc(1, sizeof(*c));
    struct model_session *ms = model_session(s->m);

    c->ctl = &s->tr.hdr->causal;
    c->pid = (uint32_t)s->target.pid;
    const char *base = strrchr(s->o->target_argv[0], '/');
    snprintf(c->exe, sizeof(c->exe), "%s", base ? base + 1 : s->o->target_argv[0]);
    c->rng = model_clock_ns(CLOCK_MONOTONIC) | 1;
    c->kind = progress_kernel(s) ? ROCSYS_CAUSAL_PP_KERNEL
              : s->o->progress   ? ROCSYS_CAUSAL_PP_FUNC
                                 : -1;
    c->bp_silent = c->kind == ROCSYS_CAUSAL_PP_FUNC && session_perf_breakpoints_fire() == 0;
    c->len_ns = CAUSAL_LEN_MIN_NS;
    c->start_ns = model_clock_ns(CLOCK_MONOTONIC);
    ms->causal = model_causal_new();
    ms->causal->exp_len_ns = c->len_ns;
    if (progress_kernel(s))
        snprintf(ms->causal->progress, sizeof(ms->causal->progress), "completions of kernel %.120s",
                 progress_kernel(s));
    else if (s->o->progress)
        snprintf(ms->causal->progress, sizeof(ms->causal->progress), "calls of %s", s->o->progress);
    snprintf(ms->causal->note, sizeof(ms->causal->note), "waiting for samples in %.100s", c->exe);
    s->causal = c;
}

void session_causal_free(struct session *s)
{
    if (s->m && model_session(s->m)->causal) {
        model_causal_free(model_session(s->m)->causal);
        model_session(s->m)->causal = NULL;
    }
    free(s->causal);
    s->causal = NULL;
}

/* The collector's experiment block: nr ranges and speedup, under its sequence word. */
static void publish(struct rocsys_causal_ctl *ctl, uint32_t nr, const uint64_t *lo,
                    const uint64_t *hi, int pct, int python)
{
    atomic_fetch_add(&ctl->seq, 1); /* odd: being written */
    ctl->python = python ? 1 : 0;
    for (uint32_t i = 0; i < nr && i < ROCSYS_CAUSAL_RANGES; i++) {
        ctl->lo[i] = lo[i];
        ctl->hi[i] = hi[i];
    }
    ctl->speedup_pct = (uint32_t)pct;
    ctl->nranges = nr < ROCSYS_CAUSAL_RANGES ? nr : ROCSYS_CAUSAL_RANGES;
    atomic_fetch_add(&ctl->seq, 1);
}

/* The progress point to measure: --progress's, else the first kind the program reached. */
static int progress_kind(struct session *s)
{
    struct session_causal *c = s->causal;
    struct model_causal *mc = model_session(s->m)->causal;

    if (c->kind >= 0)
        return c->kind;
    if (atomic_load(&c->ctl->progress[ROCSYS_CAUSAL_PP_MARK]))
        c->kind = ROCSYS_CAUSAL_PP_MARK;
    else if (atomic_load(&c->ctl->progress[ROCSYS_CAUSAL_PP_END])) /* a request came through */
        c->kind = ROCSYS_CAUSAL_PP_BEGIN;
    else if (atomic_load(&c->ctl->progress[ROCSYS_CAUSAL_PP_REGION]))
        c->kind = ROCSYS_CAUSAL_PP_REGION;
    mc->latency = c->kind == ROCSYS_CAUSAL_PP_BEGIN;
    if (c->kind >= 0)
        snprintf(mc->progress, sizeof(mc->progress), "%s",
                 c->kind == ROCSYS_CAUSAL_PP_MARK ? "marks (rocsys_user_mark, roctxMarkA)"
                 : mc->latency ? "latency from rocsys_user_begin to rocsys_user_end"
                               : "region ends (user regions, ROCTx ranges)");
    return c->kind;
}

/* --progress FUNC: find the function in the executable (from a sampled pc of it) and hand
 * its address to the collector, which arms a breakpoint in each thread; --progress
 * kernel:NAME: wait until a kernel of that name is known. 1 while no progress can be counted
 * (the function or kernel is not found yet, or the breakpoint was refused or never fires on
 * this machine: no experiment runs, the note says why), else 0. */
static int resolve_progress(struct session *s, uint64_t now)
{
    struct session_causal *c = s->causal;
    struct model_causal *mc = model_session(s->m)->causal;
    int err = atomic_load(&c->ctl->progress_err);

    if (progress_kernel(s)) { /* kernel:NAME: its kernel objects, from the HSA symbols */
        if (atomic_load(&c->ctl->nkernels))
            return 0;
        if (now - c->start_ns > CAUSAL_PROGRESS_WAIT_NS)
            snprintf(mc->note, sizeof(mc->note),
                     "--progress %.60s: no GPU kernel of that name was loaded (yet)",
                     s->o->progress);
        return 1;
    }
    if (err) {
        snprintf(mc->note, sizeof(mc->note),
                 "--progress %.60s: the breakpoint was refused (%s): no progress is counted",
                 s->o->progress, strerror(err));
        return 1;
    }
    if (c->bp_silent) { /* the event opens and never fires: said, not counted as 0 calls */
        snprintf(mc->note, sizeof(mc->note),
                 "--progress %.40s: hardware breakpoints do not fire here (one on rocsys-top "
                 "counted 0 of 3 calls: a VM without debug registers?): no progress is counted",
                 s->o->progress);
        return 1;
    }
    if (atomic_load(&c->ctl->progress_addr))
        return 0;
    for (size_t i = 0; i < c->npcs; i++) {
        uint64_t lo, hi;
        char name[8], loc[8];
        if (model_causal_func_range(s->m, c->pid, c->pcs[i], c->exe, &lo, &hi, name, sizeof(name),
                                    loc, sizeof(loc)) != 1)
            continue;
        uint64_t at = model_causal_symbol(s->m, c->pid, c->pcs[i], s->o->progress);
        if (at) {
            atomic_store(&c->ctl->progress_addr, at);
            return 0;
        }
        break;
    }
    if (now - c->start_ns > CAUSAL_PROGRESS_WAIT_NS)
        snprintf(mc->note, sizeof(mc->note), "--progress %.60s: no such function in %.60s (yet)",
                 s->o->progress, c->exe);
    return 1; /* not found (yet): nothing to count */
}

/* The area under the latency points' count in flight, up to now (protocol.h): modulo 2^64,
 * the difference of two such areas is exact. */
static uint64_t latency_area(const struct rocsys_causal_ctl *ctl, uint64_t now)
{
    if (atomic_load(&ctl->own_clock)) /* on the program's own clock: summed at the samples */
        return atomic_load(&ctl->own_area_ns);
    uint64_t in = atomic_load(&ctl->progress[ROCSYS_CAUSAL_PP_BEGIN]) -
                  atomic_load(&ctl->progress[ROCSYS_CAUSAL_PP_END]);
    return atomic_load(&ctl->end_sum_ns) - atomic_load(&ctl->begin_sum_ns) + in * now;
}

/* The latency counters at a slice's start. */
static void latency_mark(struct session_causal *c, uint64_t now)
{
    c->area0 = latency_area(c->ctl, now);
    c->skip0 = atomic_load(&c->ctl->skipped_area_ns);
    c->dep0 = atomic_load(&c->ctl->progress[ROCSYS_CAUSAL_PP_END]);
}

/* Hand file (comm, schedstat) of each thread of process pid, opened, to fn in turn, until fn
 * returns nonzero; -1 when the process's thread list cannot be read. */
static int each_task_file(uint32_t pid, const char *file, int (*fn)(FILE *f, void *ctx), void *ctx)
{
    char path[96];
    struct dirent *de;
    DIR *d;
    int stop = 0;

    snprintf(path, sizeof(path), "/proc/%u/task", pid);
    if (!(d = opendir(path)))
        return -1;
    while (!stop && (de = readdir(d))) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        snprintf(path, sizeof(path), "/proc/%u/task/%.16s/%s", pid, de->d_name, file);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        stop = fn(f, ctx);
        fclose(f);
    }
    closedir(d);
    return 0;
}

/* each_task_file's step for task_times: a thread's schedstat into the sums ctx points at. */
static int add_task_times(FILE *f, void *ctx)
{
    uint64_t *sum = ctx; /* [0] on a CPU, [1] waiting for one */
    unsigned long long cpu, wait;

    if (fscanf(f, "%llu %llu", &cpu, &wait) == 2) {
        sum[0] += cpu;
        sum[1] += wait;
    }
    return 0;
}

/* The process's threads' times on a CPU and waiting for one, summed (the first two fields of
 * each /proc/PID/task/TID/schedstat). */
static void task_times(uint32_t pid, uint64_t *cpu_ns, uint64_t *wait_ns)
{
    uint64_t sum[2] = {0, 0};

    each_task_file(pid, "schedstat", add_task_times, sum);
    *cpu_ns = sum[0];
    *wait_ns = sum[1];
}

/* Close the running slice: what it did into its half's sums. */
static void close_slice(struct session_causal *c, uint64_t now)
{
    uint64_t g = atomic_load(&c->ctl->global_delay_ns);
    uint64_t p = atomic_load(&c->ctl->progress[c->kind]);
    uint64_t sel = atomic_load(&c->ctl->selected_samples);
    int h = c->on;

    uint64_t own = atomic_load(&c->ctl->own_ns);
    /* the program's own clock (protocol.h): what its samples stood for, less its waits for a
     * CPU; else wall time */
    c->sum[h].elapsed_ns += atomic_load(&c->ctl->own_clock) ? own - c->own0 : now - c->slice_ns;
    if (!atomic_load(&c->ctl->own_clock)) { /* (wall time only: the own clock's are not) */
        uint64_t cpu, wait;
        if (now - c->slice_ns > c->longest_ns)
            c->longest_ns = now - c->slice_ns;
        task_times(c->pid, &cpu, &wait); /* (a thread that ended takes its times away) */
        c->sum[h].cpu_ns += cpu > c->cpu0 ? cpu - c->cpu0 : 0;
        c->sum[h].wait_ns += wait > c->wait0 ? wait - c->wait0 : 0;
        c->cpu0 = cpu;
        c->wait0 = wait;
    }
    c->own0 = own;
    c->sum[h].delay_ns += g - c->g0;
    c->sum[h].delta += p - c->p0;
    c->sum[h].selected += sel - c->sel0;
    if (c->kind == ROCSYS_CAUSAL_PP_BEGIN) { /* the area in virtual time: less the delays' cut */
        uint64_t area = latency_area(c->ctl, now), skip = atomic_load(&c->ctl->skipped_area_ns);
        uint64_t dep = atomic_load(&c->ctl->progress[ROCSYS_CAUSAL_PP_END]);
        if (area - c->area0 > skip - c->skip0)
            c->sum[h].area_ns += (area - c->area0) - (skip - c->skip0);
        c->sum[h].departures += dep - c->dep0;
        c->area0 = area;
        c->skip0 = skip;
        c->dep0 = dep;
    }
    c->g0 = g;
    c->p0 = p;
    c->sel0 = sel;
    c->slice_ns = now;
}

/* The part of half h's threads' runnable time that they spent on a CPU (h->cpu_ns measured). */
static double cpu_share(const struct causal_half *h)
{
    return (double)h->cpu_ns / (double)(h->cpu_ns + h->wait_ns);
}

/* Wall time ns of half h as the program's share of the machine: scaled by the part of its
 * threads' runnable time that they spent on a CPU (wall time only; unscaled when not
 * measured). On a machine shared with other programs, the two halves of one experiment get
 * unequal parts of the CPUs by chance, and a program's progress follows the CPU time its
 * threads get. A delay's sleep is not runnable time: it leaves the share as it is. Measured
 * beside two busy loops (load 4-7, per-slice traces of the three pipeline programs, 8 runs):
 * the off-path functions' predictions at 100 % (truth 0) were -8.8, 10.0, 5.4, 1.2 (LOOP_B's
 * line), 2.6, -7.0 (stage_b), -6.8, 3.1 (post_process) in wall time, and -3.2, 1.0, 1.0,
 * 4.5, -1.6, 4.5, 2.0, -0.1 scaled: rms 6.3 points, 2.7 scaled. */
static uint64_t share_ns(const struct causal_half *h, uint64_t ns)
{
    return h->cpu_ns ? (uint64_t)((double)ns * cpu_share(h)) : ns;
}

/* One half's result into the model (when it made enough progress); 1 if it counted. */
static int keep(struct session *s, int pct, const struct causal_half *h)
{
    struct session_causal *c = s->causal;
    struct model_causal *mc = model_session(s->m)->causal;

    if (h->delay_ns >= h->elapsed_ns || h->delta < MODEL_CAUSAL_MIN_DELTA)
        return 0;
    struct model_causal_exp e = {
        .start_ns = c->t0,
        .speedup_pct = pct,
        .duration_ns = share_ns(h, h->elapsed_ns - h->delay_ns),
        .delta = h->delta,
        .selected = h->selected,
        .area_ns = share_ns(h, h->area_ns),
        .departures = h->departures,
    };
    if (mc->latency && e.area_ns == 0)
        return 0;
    model_causal_add(mc, &mc->f[c->func], &e);
    return 1;
}

/* Whether one half's threads got under half the share of their runnable time on a CPU that
 * the other half's got (wall time; 0 when not measured). */
static int starved(const struct causal_half *a, const struct causal_half *b)
{
    if (!a->cpu_ns || !b->cpu_ns)
        return 0;
    double sa = cpu_share(a), sb = cpu_share(b);
    return sa > 2 * sb || sb > 2 * sa;
}

/* End the running experiment: its halves' results into the model. */
static void finish(struct session *s, uint64_t now)
{
    struct session_causal *c = s->causal;
    struct model_causal *mc = model_session(s->m)->causal;

    close_slice(c, now);
    publish(c->ctl, 0, NULL, NULL, 0, 0);
    c->running = 0;
    c->next_ns = now + CAUSAL_COOL_NS;
    mc->experiments++;
    mc->paid_ns = atomic_load(&c->ctl->paid_ns);
    uint64_t delta = c->sum[1].delta; /* the speedup's half decides the length */
    if (c->longest_ns > CAUSAL_OVERRUN_NS || starved(&c->sum[0], &c->sum[1])) {
        /* a half stalled: a slice lasted 200 ms where 100-150 are due (the front end waited
         * for a CPU 50 ms or more, and so did the program then, in one half and not the other;
         * measured: a half that got 3 % of a CPU against 44 % in the other, a flat function
         * read -41 % at 5 %; the halves no longer alternated either), or one half's threads
         * ran for under half the share of their runnable time that the other half's did (the
         * program alone starved: stage_a_rest, truth 40, read -194 % at 80 % with 17 progress
         * points against 53): not counted, said in the header */
        mc->stalled++;
    } else if (c->pct == 0) { /* a baseline throughout */
        c->sum[0].elapsed_ns += c->sum[1].elapsed_ns;
        c->sum[0].delay_ns += c->sum[1].delay_ns;
        c->sum[0].delta += c->sum[1].delta;
        c->sum[0].selected += c->sum[1].selected;
        c->sum[0].area_ns += c->sum[1].area_ns; /* (a latency point's: the same halves) */
        c->sum[0].departures += c->sum[1].departures;
        c->sum[0].cpu_ns += c->sum[1].cpu_ns;
        c->sum[0].wait_ns += c->sum[1].wait_ns;
        mc->kept += keep(s, 0, &c->sum[0]);
    } else if (keep(s, c->pct, &c->sum[1])) {
        mc->kept++;
        keep(s, 0, &c->sum[0]); /* its own baseline, interleaved with it */
    }
    if (delta < MODEL_CAUSAL_MIN_DELTA) /* too little progress to measure: longer */
        c->len_ns = c->len_ns * 2 > CAUSAL_LEN_MAX_NS ? CAUSAL_LEN_MAX_NS : c->len_ns * 2;
    else if (delta > 2 * MODEL_CAUSAL_MIN_DELTA && c->len_ns >= 2 * CAUSAL_LEN_MIN_NS)
        c->len_ns /= 2;
    mc->exp_len_ns = c->len_ns;
}

/* The program's own clock (protocol.h, own_clock) while the process has one thread of its own
 * (the collector's rocsys-modmap thread aside): its waits for a CPU are not its own. With more
 * threads, whether one thread's wait delays the progress depends on what the others do
 * meanwhile: wall time, as Coz. */
/* each_task_file's step for own_clock: count a thread of the program's own (not the
 * collector's); stop at two. */
static int count_own_thread(FILE *f, void *ctx)
{
    int *threads = ctx;
    char name[32];

    if (!fgets(name, sizeof(name), f) || strcmp(name, ROCSYS_HELPER_THREAD "\n") != 0)
        ++*threads;
    return *threads >= 2;
}

static void own_clock(struct session_causal *c)
{
    int threads = 0;

    if (each_task_file(c->pid, "comm", count_own_thread, &threads) != 0)
        return;
    atomic_store(&c->ctl->own_clock, threads == 1 ? 1u : 0u);
}

void session_causal_tick(struct session *s)
{
    struct session_causal *c = s->causal;
    struct model_causal *mc;
    uint64_t now = model_clock_ns(CLOCK_MONOTONIC);

    if (!c)
        return;
    mc = model_session(s->m)->causal;
    causal_learn_exe(s);
    own_clock(c);
    int refused = s->o->progress && resolve_progress(s, now);
    if (c->kind >= 0)
        mc->progress_total = atomic_load(&c->ctl->progress[c->kind]);
    mc->paid_ns = atomic_load(&c->ctl->paid_ns);
    if (s->target_done) {
        if (c->running)
            publish(c->ctl, 0, NULL, NULL, 0, 0);
        c->running = 0;
        if (!refused) /* (else the refusal stays said) */
            snprintf(mc->note, sizeof(mc->note), "the program ended: no experiment runs");
        return;
    }
    if (refused)
        return;
    if (c->running) {
        if (now - c->t0 >= c->len_ns) {
            finish(s, now);
        } else if (now - c->slice_ns >= CAUSAL_SLICE_NS) { /* the other half */
            close_slice(c, now);
            c->on = !c->on;
            publish(c->ctl, c->nr, c->lo, c->hi, c->on ? c->pct : 0, c->python);
        }
        return;
    }
    if (now < c->next_ns)
        return;
    int kind = progress_kind(s);
    if (kind < 0) {
        if (!s->o->progress)
            snprintf(mc->note, sizeof(mc->note),
                     "waiting for a progress point: rocsys_user_mark, a region's end, or "
                     "--progress FUNC");
        return;
    }
    size_t f = causal_choose(s);
    if (f == SIZE_MAX || !causal_range_of(c, f))
        return;
    /* (Coz draws 0 % with a weight of 8 in 28, for its baselines: here each experiment has
     * its own, in its 0 % slices, and an experiment at 0 % adds nothing to the fitted line) */
    c->pct = (int)(causal_rand(c) % 21) * 5;
    c->func = f;
    c->kind = kind;
    memset(c->sum, 0, sizeof(c->sum));
    c->on = (int)(causal_rand(c) & 1); /* which half comes first */
    c->g0 = atomic_load(&c->ctl->global_delay_ns);
    c->sel0 = atomic_load(&c->ctl->selected_samples);
    c->p0 = atomic_load(&c->ctl->progress[kind]);
    c->t0 = c->slice_ns = now;
    c->longest_ns = 0;
    task_times(c->pid, &c->cpu0, &c->wait0);
    c->own0 = atomic_load(&c->ctl->own_ns);
    latency_mark(c, now);
    publish(c->ctl, c->nr, c->lo, c->hi, c->on ? c->pct : 0, c->python);
    c->running = 1;
    snprintf(mc->note, sizeof(mc->note), "now: %s virtually %d %% faster, for %.1f s",
             mc->f[f].name, c->pct, (double)c->len_ns / 1e9);
}
