/* The model's core: processes, threads, functions, addresses symbolized into function ids, and
 * samples turned into function sequences (stacks.c counts them and builds the views' data).
 * Memory grows with distinct addresses and stacks, not with run time. */
#define _GNU_SOURCE
#include "model.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "collector/protocol.h"
#include "base/hashmap.h"
#include "model_internal.h"

#define MAX_SYM_FRAMES 16              /* inlined frames per address, at most */
#define MAX_SEQ        MODEL_MAX_STACK /* functions per symbolized stack */

/* Symbolized address: its function ids, innermost first, in m->addr_funcs; the line record
 * of its innermost function (lines.c) when it is a leaf's exact pc. */
struct addr_entry {
    uint32_t off;
    uint32_t len;
    uint32_t line;
};

struct model *model_new(void)
{
    struct model *m = xcalloc(1, sizeof(*m));
    m->sym = symbolizer_new();
    m->session.window_seconds = 5;
    m->session.rank = -1;
    m->session.python_status = -1;
    m->session.hsa_table_status = -1;
    m->session.mode = "cpu";
    m->session.profile_min_pct = MODEL_PROFILE_MIN_PCT;
    snprintf(m->session.status_text, sizeof(m->session.status_text), "starting");
    return m;
}

void model_free(struct model *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->nproc; i++) {
        free(m->procs[i].exe);
        free(m->procs[i].cmdline);
    }
    free(m->procs);
    free(m->threads);
    free(m->funcs);
    free(m->addrs);
    free(m->addr_funcs);
    model_stacks_free(m);
    hashmap_free(&m->thread_map);
    hashmap_free(&m->func_map);
    hashmap_free(&m->name_map);
    for (size_t i = 0; i < m->nnames; i++)
        free(m->names[i]);
    free(m->names);
    hashmap_free(&m->addr_map);
    model_output_free(m);
    model_procfs_free(m);
    model_regions_free(m);
    model_omp_free(m);
    model_kernels_free(m);
    model_mpi_free(m);
    model_launches_free(m);
    model_python_free(m);
    model_lines_free(m);
    model_states_free(m);
    symbolizer_free(m->sym);
    free(m);
}

struct model_session *model_session(struct model *m)
{
    return &m->session;
}

int model_session_gpu_only(const struct model_session *s)
{
    return s->mode && strcmp(s->mode, MODEL_MODE_GPU) == 0;
}

struct symbolizer *model_symbolizer(struct model *m)
{
    return m->sym;
}

/* ---- processes and threads ---- */

/* Index of process pid, or -1. */
static int proc_index(const struct model *m, uint32_t pid)
{
    for (int i = m->nproc - 1; i >= 0; i--)
        if (m->procs[i].pid == pid)
            return i;
    return -1;
}

void model_proc_start(struct model *m, uint32_t pid, uint32_t ppid, const char *exe,
                      const char *cmdline, uint64_t time_ns)
{
    int i = proc_index(m, pid);
    struct model_process *p;

    if (i >= 0 && m->procs[i].state == MODEL_PROC_RUNNING) {
        /* exec in a known process: the old image's threads are gone, its code ids too */
        model_python_exec(m, pid);
        for (int k = 0; k < m->nthreads; k++)
            if (m->threads[k].pid == pid && m->threads[k].alive)
                model_thread_exit(m, pid, m->threads[k].tid, time_ns);
        p = &m->procs[i];
        free(p->exe);
        free(p->cmdline);
    } else {
        xgrow(&m->procs, &m->proc_cap, (size_t)m->nproc + 1, sizeof(*m->procs));
        p = &m->procs[m->nproc++];
        memset(p, 0, sizeof(*p));
        p->pid = p->real_pid = pid;
        p->rank = -1;
        p->start_ns = time_ns;
        p->is_root = (pid == m->root_pid);
    }
    p->ppid = ppid;
    p->exe = xstrdup(exe ? exe : "");
    p->cmdline = xstrdup(cmdline ? cmdline : "");
    p->state = MODEL_PROC_RUNNING;
    p->end_ns = 0;
    p->no_collector[0] = '\0'; /* its new program announced itself */
}

void model_proc_set_no_collector(struct model *m, uint32_t pid, const char *why)
{
    struct model_process *p = model_process_mut(m, pid);

    if (p)
        snprintf(p->no_collector, sizeof(p->no_collector), "%s", why ? why : "");
}

int model_proc_no_collector_count(const struct model *m, const struct model_process **first)
{
    int n = 0;

    if (first)
        *first = NULL;
    for (int i = 0; i < m->nproc; i++)
        if (m->procs[i].no_collector[0] && n++ == 0 && first)
            *first = &m->procs[i];
    return n;
}

void model_proc_set_rank(struct model *m, uint32_t pid, int rank, const char *host,
                         uint32_t real_pid)
{
    struct model_process *p = model_process_mut(m, pid);

    if (!p)
        return;
    p->rank = rank;
    p->real_pid = real_pid;
    snprintf(p->host, sizeof(p->host), "%s", host ? host : "");
}

void model_proc_end(struct model *m, uint32_t pid, enum model_proc_state how, int code,
                    uint64_t time_ns)
{
    int i = proc_index(m, pid);
    if (i < 0)
        return;
    struct model_process *p = &m->procs[i];
    if (code == -1 && p->state != MODEL_PROC_RUNNING)
        return; /* an "ended, status unknown" after a more precise report */
    p->state = how;
    p->exit_code = how == MODEL_PROC_EXITED ? code : 0;
    p->term_signal = how == MODEL_PROC_KILLED ? code : 0;
    if (!p->end_ns)
        p->end_ns = time_ns;
    p->metrics.cpu_pct = 0;
    for (int k = 0; k < m->nthreads; k++)
        if (m->threads[k].pid == pid && m->threads[k].alive)
            model_thread_exit(m, pid, m->threads[k].tid, time_ns);
}

void model_proc_set_recorded(struct model *m, uint32_t pid, double cpu_pct, uint64_t rss_bytes,
                             uint64_t peak_rss_bytes)
{
    int i = proc_index(m, pid);
    if (i < 0)
        return;
    struct model_proc_metrics *x = &m->procs[i].metrics;
    memset(x, 0, sizeof(*x));
    x->valid = x->recorded = 1;
    x->cpu_pct = cpu_pct;
    x->rss_bytes = rss_bytes;
    x->peak_rss_bytes = peak_rss_bytes;
}

void model_proc_final_usage(struct model *m, uint32_t pid, const struct rusage *ru)
{
    int i = proc_index(m, pid);
    if (i < 0 || !ru)
        return;
    struct model_proc_metrics *x = &m->procs[i].metrics;
    x->cpu_time_ns =
        (uint64_t)ru->ru_utime.tv_sec * 1000000000ull + (uint64_t)ru->ru_utime.tv_usec * 1000ull +
        (uint64_t)ru->ru_stime.tv_sec * 1000000000ull + (uint64_t)ru->ru_stime.tv_usec * 1000ull;
    if ((uint64_t)ru->ru_maxrss * 1024 > x->peak_rss_bytes)
        x->peak_rss_bytes = (uint64_t)ru->ru_maxrss * 1024;
    x->minor_faults = (uint64_t)ru->ru_minflt;
    x->major_faults = (uint64_t)ru->ru_majflt;
    x->vol_ctx_switches = (uint64_t)ru->ru_nvcsw;
    x->invol_ctx_switches = (uint64_t)ru->ru_nivcsw;
    x->cpu_pct = 0;
    x->valid = 1;
}

void model_set_root_pid(struct model *m, uint32_t pid)
{
    m->root_pid = pid;
    for (int i = 0; i < m->nproc; i++)
        m->procs[i].is_root = (m->procs[i].pid == pid);
}

/* Index of the live thread (pid, tid), creating it if unknown. */
uint32_t model_thread_discover(struct model *m, uint32_t pid, uint32_t tid, uint64_t time_ns)
{
    uint64_t key = hashmap_mix(((uint64_t)pid << 32) | tid);
    uint32_t *slot = hashmap_slot(&m->thread_map, key, 0);

    if (slot && *slot)
        return *slot - 1; /* known, alive or not: /proc may list a thread a moment after it ended */
    return model_thread_get(m, pid, tid, time_ns);
}

uint32_t model_thread_get(struct model *m, uint32_t pid, uint32_t tid, uint64_t time_ns)
{
    uint64_t key = hashmap_mix(((uint64_t)pid << 32) | tid);
    uint32_t *slot = hashmap_slot(&m->thread_map, key, 1);

    if (*slot != 0 && m->threads[*slot - 1].alive)
        return *slot - 1;
    xgrow(&m->threads, &m->thread_cap, (size_t)m->nthreads + 1, sizeof(*m->threads));
    struct model_thread *t = &m->threads[m->nthreads];
    memset(t, 0, sizeof(*t));
    t->pid = pid;
    t->tid = tid;
    t->alive = 1;
    t->state = '?';
    t->start_ns = time_ns;
    model_procfs_thread_name(pid, tid, t->name, sizeof(t->name));
    *slot = (uint32_t)++m->nthreads;
    return *slot - 1;
}

void model_thread_seen(struct model *m, uint32_t pid, uint32_t tid, const char *name,
                       uint64_t time_ns)
{
    uint32_t i = model_thread_discover(m, pid, tid, time_ns); /* may move m->threads */
    struct model_thread *t = &m->threads[i];
    if (name && *name)
        snprintf(t->name, sizeof(t->name), "%s", name);
}

void model_thread_start(struct model *m, uint32_t pid, uint32_t tid, const char *name,
                        uint64_t time_ns)
{
    uint32_t i = model_thread_get(m, pid, tid, time_ns); /* a new entry if the tid was reused */
    struct model_thread *t = &m->threads[i];
    if (name && *name)
        snprintf(t->name, sizeof(t->name), "%s", name);
}

void model_thread_exit(struct model *m, uint32_t pid, uint32_t tid, uint64_t time_ns)
{
    uint64_t key = hashmap_mix(((uint64_t)pid << 32) | tid);
    uint32_t *slot = hashmap_slot(&m->thread_map, key, 0);
    if (!slot || *slot == 0)
        return;
    struct model_thread *t = &m->threads[*slot - 1];
    if (!t->alive)
        return;
    t->alive = 0;
    t->state = '-';
    t->cpu_pct = 0;
    t->end_ns = time_ns;
}

void model_module(struct model *m, uint32_t pid, const char *path, uint64_t load_bias,
                  uint64_t start, uint64_t end, const uint8_t *build_id, size_t build_id_len)
{
    symbolizer_add_module(m->sym, pid, path, load_bias, start, end, build_id, build_id_len);
}

/* ---- functions and addresses ---- */

/* Function id of (name, module): the symbolizer interns strings, so pointers identify them. */
static uint32_t func_id(struct model *m, const struct sym_frame *f)
{
    /* a Python function at each of its current lines is one entry (as py-spy shows them) */
    int py = f->module == model_python_module;
    const char *file = py ? f->decl_file : NULL;
    int line = py ? f->decl_line : 0;
    uint64_t key =
        hashmap_mix((uint64_t)(uintptr_t)f->function * 31 ^ (uint64_t)(uintptr_t)f->module ^
                    ((uint64_t)(uintptr_t)file << 7) ^ ((uint64_t)(uint32_t)line << 40));
    uint32_t *slot = hashmap_slot(&m->func_map, key, 1);

    for (;;) {
        if (*slot == 0)
            break;
        struct model_func *e = &m->funcs[*slot - 1];
        if (e->name == f->function && e->module == f->module &&
            (!py || (e->file == file && e->line == line)))
            return *slot - 1;
        /* a rare collision of mixed keys: probe with the next key */
        key = hashmap_mix(key + 1);
        slot = hashmap_slot(&m->func_map, key, 1);
    }
    xgrow(&m->funcs, &m->func_cap, (size_t)m->nfuncs + 1, sizeof(*m->funcs));
    struct model_func *e = &m->funcs[m->nfuncs];
    e->name = f->function;
    e->module = f->module;
    e->file = f->decl_file ? f->decl_file : f->file;
    e->line = f->decl_file ? f->decl_line : 0;
    e->inlined = f->inlined;
    *slot = (uint32_t)++m->nfuncs;
    return *slot - 1;
}

/* On a final try, an address no module of pid covers, named from the modules of its parent: a
 * sample taken in execve (or between a vfork and its exec) has the pc of the image before the
 * exec, the parent's (posix_spawn's child shares its memory), while pid's modules are already
 * the new image's. Each process of a build had about one such sample, [unknown] before (2.4 to
 * 2.8 % of a build's samples beside two busy loops, where execve takes longer). The launched
 * program's parent is this front end, whose fork it was until its exec: its pc then is in our
 * own modules, read once (the perf engine's events, enabled at the exec, took 1 or 2 such
 * samples in 4 of 10 runs of a loaded test). 0: none; -1: its file is being loaded. */
static int before_exec_lookup(struct model *m, uint32_t pid, uint64_t pc, int is_ret,
                              struct sym_frame *fr)
{
    const struct model_process *p = model_process_find(m, pid);

    if (!p || !p->ppid || p->ppid == pid)
        return 0;
    if (p->ppid == (uint32_t)getpid() && !m->own_maps_read) {
        m->own_maps_read = 1;
        symbolizer_load_maps(m->sym, p->ppid);
    }
    if (!symbolizer_has_module(m->sym, p->ppid, pc))
        return 0;
    return symbolizer_lookup(m->sym, p->ppid, pc, is_ret, fr, MAX_SYM_FRAMES);
}

/* Function ids of one address (innermost first); NULL when no module covers it yet. */
static const struct addr_entry *addr_lookup(struct model *m, uint32_t pid, uint64_t pc, int is_ret,
                                            int final_try)
{
    static const char unknown_name[] = "[unknown]";
    uint64_t key = hashmap_mix(hashmap_mix(pc) ^ ((uint64_t)pid << 1) ^ (uint64_t)is_ret);
    uint32_t *slot;
    struct sym_frame fr[MAX_SYM_FRAMES];

    if (ROCSYS_IS_PY_FRAME(pc))
        key = hashmap_mix(key ^ model_python_salt(m, pid, pc));
    slot = hashmap_slot(&m->addr_map, key, 0);
    int n;

    if (slot)
        return &m->addrs[*slot - 1];
    n = model_regions_frame(m, pid, pc, final_try, &fr[0]); /* a user region's pseudo-frame */
    if (n == 0)
        n = model_state_sym(m, pc, &fr[0]); /* a thread state */
    if (n == 0)
        n = model_python_frame(m, pid, pc, final_try, &fr[0]); /* a Python frame */
    if (n < 0)
        return NULL;
    if (n == 0)
        n = symbolizer_lookup(m->sym, pid, pc, is_ret, fr, MAX_SYM_FRAMES);
    if (n < 0) /* its file is being loaded: the sample waits, even on its final try */
        return NULL;
    if (n == 0 && final_try)
        n = before_exec_lookup(m, pid, pc, is_ret, fr);
    if (n < 0) /* the parent's file is being loaded (our own, at the program's start) */
        return NULL;
    if (n == 0) {
        if (!final_try)
            return NULL;
        memset(&fr[0], 0, sizeof(fr[0]));
        fr[0].function = unknown_name;
        fr[0].module = unknown_name;
        n = 1;
    }
    xgrow(&m->addrs, &m->addr_cap, m->naddrs + 1, sizeof(*m->addrs));
    xgrow(&m->addr_funcs, &m->addr_funcs_cap, m->naddr_funcs + (size_t)n, sizeof(*m->addr_funcs));
    struct addr_entry *a = &m->addrs[m->naddrs];
    a->off = (uint32_t)m->naddr_funcs;
    a->len = (uint32_t)n;
    for (int i = 0; i < n; i++)
        m->addr_funcs[m->naddr_funcs++] = func_id(m, &fr[i]);
    a->line = is_ret ? 0 : model_lines_intern(m, m->addr_funcs[a->off], fr[0].file, fr[0].line);
    *hashmap_slot(&m->addr_map, key, 1) = (uint32_t)++m->naddrs;
    return a;
}

/* The function ids of a sample whose addresses all resolve, root first, into seq (MAX_SEQ).
 * Python frames take the place of the interpreter's evaluation frames (model/python.c). */
static uint32_t resolved_seq(struct model *m, uint32_t pid, const uint64_t *frames,
                             uint32_t nframes, uint32_t *seq)
{
    enum {
        MERGE_MAX = 4 * MAX_SEQ, /* merged before the cut to MAX_SEQ, which keeps the root */
        /* native frames: a perf sample's unwind (as deep as the model keeps), its [truncated]
         * root and its thread state */
        NATIVE_MAX = MAX_SEQ + 2
    };
    const uint32_t *nat[NATIVE_MAX], *pyf[MAX_SEQ];
    uint32_t nlen[NATIVE_MAX], plen[MAX_SEQ], tmp[MERGE_MAX];
    int pentry[MAX_SEQ];
    uint32_t pat[MAX_SEQ]; /* per frame: the native frame its group runs in (PY_AT), or unknown */
    uint32_t nn = 0, np = 0, len = 0, i = 0, later = 0;
    int kept = 0; /* the last Python frame read was stored */
    const struct addr_entry *a;

    while (i < nframes && !ROCSYS_IS_PY_WORD(frames[i]) && !ROCSYS_IS_REGION_FRAME(frames[i]))
        i++;
    if (i == nframes || !ROCSYS_IS_PY_FRAME(frames[i]) || i > NATIVE_MAX) {
        /* no Python frames (or none that can be merged): root first, each address's functions
         * outermost first; Python's placement words are no addresses */
        for (uint32_t k = nframes; k-- > 0 && len < MAX_SEQ;) {
            if (ROCSYS_IS_PY_AT(frames[k]) || ROCSYS_IS_PY_REPEAT(frames[k]))
                continue;
            a = addr_lookup(m, pid, frames[k], k > 0, 1);
            for (uint32_t j = a->len; j-- > 0 && len < MAX_SEQ;)
                if (!model_python_hidden_alone(m, m->addr_funcs[a->off + j]))
                    seq[len++] = m->addr_funcs[a->off + j];
        }
        return len;
    }
    for (uint32_t k = 0; k < i; k++) {
        a = addr_lookup(m, pid, frames[k], k > 0, 1);
        nat[nn] = &m->addr_funcs[a->off];
        nlen[nn++] = a->len;
    }
    for (uint32_t k = i; k < nframes && ROCSYS_IS_PY_WORD(frames[k]); k++)
        later += ROCSYS_IS_PY_FRAME(frames[k]) != 0;
    for (; i < nframes && ROCSYS_IS_PY_WORD(frames[i]); i++) {
        if (ROCSYS_IS_PY_AT(frames[i])) { /* the group just ended runs in this native frame */
            if (kept && pentry[np - 1])
                pat[np - 1] = ROCSYS_PY_AT_NATIVE(frames[i]);
            continue;
        }
        if (ROCSYS_IS_PY_REPEAT(frames[i])) { /* the frame before, again: as many times as leave
                                                 room for the frames after (the callers) */
            for (uint32_t k = ROCSYS_PY_REPEAT_COUNT(frames[i]);
                 k > 0 && np > 0 && np + later < MAX_SEQ; k--, np++) {
                pyf[np] = pyf[np - 1];
                plen[np] = plen[np - 1];
                pentry[np] = pentry[np - 1];
                pat[np] = pat[np - 1];
            }
            continue;
        }
        later--;
        kept = np < MAX_SEQ;
        if (!kept)
            continue;
        int none = ROCSYS_PY_FRAME_CODE(frames[i]) == ROCSYS_PY_CODE_NONE;
        a = none ? NULL : addr_lookup(m, pid, frames[i], i > 0, 1);
        pyf[np] = a ? &m->addr_funcs[a->off] : NULL;
        plen[np] = a ? a->len : 0;
        pat[np] = ROCSYS_PY_AT_UNKNOWN;
        pentry[np++] = (frames[i] & ROCSYS_PY_FRAME_ENTRY) != 0;
    }
    /* a cut native stack's [truncated] root stays the root: the Python callers it does not
     * reach go below it, not above as top-level functions */
    const char *root = nn > 0 && nlen[nn - 1] == 1 ? m->funcs[nat[nn - 1][0]].name : NULL;
    int cut = root && root[0] == '[' && strcmp(root, MODEL_TRUNCATED_FRAME) == 0;
    len = model_python_merge(m, nat, nlen, nn - (uint32_t)cut, pyf, plen, pentry, pat, np, tmp,
                             MERGE_MAX);
    if (cut && len < MERGE_MAX)
        tmp[len++] = nat[nn - 1][0];
    for (; i < nframes && len < MERGE_MAX; i++) { /* user regions, innermost first */
        a = addr_lookup(m, pid, frames[i], i > 0, 1);
        for (uint32_t j = 0; j < a->len && len < MERGE_MAX; j++)
            tmp[len++] = m->addr_funcs[a->off + j];
    }
    /* root first; deeper than MAX_SEQ (a deep recursion): the middle goes, the root and the
     * leaf side stay */
    for (uint32_t k = 0; k < len && k < MAX_SEQ; k++)
        seq[k] = tmp[len <= MAX_SEQ || k < MAX_SEQ / 2 ? len - 1 - k : MAX_SEQ - 1 - k];
    return len < MAX_SEQ ? len : MAX_SEQ;
}

/* Whether every address of a sample resolves (looked up, and cached, on the way). Every
 * address is looked up even after one failed, so that all the files still to load start
 * loading now, not one after the other in later tries. */
static int all_resolve(struct model *m, uint32_t pid, const uint64_t *frames, uint32_t n,
                       int final_try)
{
    int ok = 1;

    for (uint32_t i = 0; i < n; i++)
        if (!ROCSYS_IS_PY_REPEAT(frames[i]) && !ROCSYS_IS_PY_AT(frames[i]) &&
            !addr_lookup(m, pid, frames[i], i > 0, final_try))
            ok = 0;
    return ok;
}

uint32_t model_sample_path(struct model *m, uint32_t pid, const uint64_t *frames, uint32_t n)
{
    return model_sample_path_try(m, pid, frames, n, 1);
}

uint32_t model_sample_path_try(struct model *m, uint32_t pid, const uint64_t *frames, uint32_t n,
                               int final_try)
{
    uint32_t seq[MAX_SEQ], len;

    if (!all_resolve(m, pid, frames, n, final_try))
        return 0;
    len = resolved_seq(m, pid, frames, n, seq);
    return len ? model_path_intern(m, seq, len) : 0;
}

int model_sample(struct model *m, uint32_t pid, uint32_t tid, uint64_t time_ns,
                 const uint64_t *frames, uint32_t nframes, int final_try)
{
    return model_sample_weighted(m, pid, tid, time_ns, frames, nframes, 1, final_try);
}

int model_sample_weighted(struct model *m, uint32_t pid, uint32_t tid, uint64_t time_ns,
                          const uint64_t *frames, uint32_t nframes, uint32_t weight, int final_try)
{
    uint32_t seq[MAX_SEQ];
    uint32_t len = 0;

    /* resolve every frame first: nothing is counted unless the whole stack resolves */
    if (!all_resolve(m, pid, frames, nframes, final_try))
        return -EAGAIN;
    len = resolved_seq(m, pid, frames, nframes, seq);
    if (len == 0)
        return 0;
    uint32_t thread = model_thread_discover(m, pid, tid, time_ns);
    model_stack_count(m, thread, seq, len, weight ? weight : 1);
    const struct addr_entry *leaf = addr_lookup(m, pid, frames[0], 0, final_try);
    if (leaf) /* the leaf's line (cached with its address) */
        model_lines_count(m, leaf->line, seq[len - 1], weight ? weight : 1);
    return 0;
}

/* The model's own copy of a string (one pointer per distinct string). */
const char *model_intern(struct model *m, const char *name)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *c = name; *c; c++)
        h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
    uint64_t key = hashmap_mix(h);
    uint32_t *slot = hashmap_slot(&m->name_map, key, 1);

    while (*slot && strcmp(m->names[*slot - 1], name) != 0) {
        key = hashmap_mix(key + 1); /* a collision of mixed keys: probe with the next key */
        slot = hashmap_slot(&m->name_map, key, 1);
    }
    if (*slot)
        return m->names[*slot - 1];
    xgrow(&m->names, &m->names_cap, m->nnames + 1, sizeof(*m->names));
    m->names[m->nnames] = xstrdup(name);
    *slot = (uint32_t)++m->nnames;
    return m->names[m->nnames - 1];
}

uint32_t model_func_named(struct model *m, const char *name)
{
    struct sym_frame f = {.function = model_intern(m, name)};

    return func_id(m, &f);
}

uint32_t model_names_path(struct model *m, const char *const *functions, uint32_t n)
{
    uint32_t seq[MAX_SEQ];
    uint32_t len = 0;

    for (uint32_t i = 0; i < n && len < MAX_SEQ; i++) {
        struct sym_frame f = {.function = model_intern(m, functions[i])};
        seq[len++] = func_id(m, &f);
    }
    return len ? model_path_intern(m, seq, len) : 0;
}

int model_sample_symbolized(struct model *m, uint32_t pid, uint32_t tid, uint64_t time_ns,
                            const char *const *functions, uint32_t n, uint32_t weight)
{
    uint32_t seq[MAX_SEQ];
    uint32_t len = 0;

    for (uint32_t i = 0; i < n && len < MAX_SEQ; i++) {
        struct sym_frame f = {.function = model_intern(m, functions[i])};
        seq[len++] = func_id(m, &f);
    }
    if (len == 0)
        return 0;
    uint32_t thread = model_thread_discover(m, pid, tid, time_ns);
    model_stack_count(m, thread, seq, len, weight ? weight : 1);
    return 0;
}

/* ---- tables ---- */

int model_process_count(const struct model *m)
{
    return m->nproc;
}

const struct model_process *model_process_at(const struct model *m, int i)
{
    return i >= 0 && i < m->nproc ? &m->procs[i] : NULL;
}

struct model_process *model_process_mut(struct model *m, uint32_t pid)
{
    int i = proc_index(m, pid);
    return i >= 0 ? &m->procs[i] : NULL;
}

const struct model_process *model_process_find(const struct model *m, uint32_t pid)
{
    int i = proc_index(m, pid);
    return i >= 0 ? &m->procs[i] : NULL;
}

void model_count_unannounced(struct model *m)
{
    struct hashmap seen = {0};
    uint64_t procs = 0, samples = 0;

    for (int i = 0; i < m->nthreads; i++) {
        const struct model_thread *t = &m->threads[i];
        if (!t->samples || !t->pid || model_process_find(m, t->pid))
            continue;
        samples += t->samples;
        uint32_t *slot = hashmap_slot(&seen, hashmap_mix(t->pid), 1);
        procs += *slot == 0;
        *slot = 1;
    }
    hashmap_free(&seen);
    m->session.procs_unannounced = procs;
    m->session.samples_unannounced = samples;
}

int model_thread_count(const struct model *m)
{
    return m->nthreads;
}

const struct model_thread *model_thread_at(const struct model *m, int i)
{
    return i >= 0 && i < m->nthreads ? &m->threads[i] : NULL;
}

int model_func_count(const struct model *m)
{
    return m->nfuncs;
}

const struct model_func *model_func_at(const struct model *m, int i)
{
    return i >= 0 && i < m->nfuncs ? &m->funcs[i] : NULL;
}
