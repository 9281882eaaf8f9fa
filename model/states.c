/* Thread states as leaf pseudo-frames: "[blocked] nanosleep", "[preempted]" below the stack
 * where a thread stopped running (wall mode measured from context switches), and "[gpu wait]
 * hipStreamSynchronize" where it waited for the device inside a HIP call ("[mpi wait] MPI_Barrier":
 * for other ranks inside an MPI call; "[omp wait] explicit barrier": in an OpenMP barrier or task
 * wait; any kind of wait leaf, ROCSYS_WAIT_FRAME). A blocked call is
 * named by the first frame from the leaf that says what it is, past glibc's cancellation
 * wrappers. */
#include "model_internal.h"
#include "mpi.h"

#include "collector/protocol.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char state_module[] = "[state]";

/* libc entry points and the system call they wait in (the first match wins). */
static const struct {
    const char *part, *call;
} wait_calls[] = {
    {"nanosleep", "nanosleep"},
    {"epoll", "epoll_wait"},
    {"poll", "poll"},
    {"select", "select"},
    {"futex", "futex"},
    {"lll_lock", "futex"},
    {"pthread_cond", "futex"},
    {"sem_", "futex"},
    {"pthread_join", "futex"},
    {"ioctl", "ioctl"},
    {"accept", "accept"},
    {"recv", "recv"},
    {"send", "send"},
    {"connect", "connect"},
    {"wait4", "wait"},
    {"waitpid", "wait"},
    {"waitid", "wait"},
    {"sigsuspend", "sigsuspend"},
    {"sigtimedwait", "sigtimedwait"},
    {"pause", "pause"},
    {"fsync", "fsync"},
    {"pread", "pread"},
    {"pwrite", "pwrite"},
    {"readv", "readv"},
    {"writev", "writev"},
    {"read", "read"},
    {"write", "write"},
    {"openat", "open"},
    {"open", "open"},
    {"flock", "flock"},
    {"fcntl", "fcntl"},
    {"msgrcv", "msgrcv"},
    {"semop", "semop"},
    {"sched_yield", "sched_yield"},
    {"mmap", "mmap"},
    {"munmap", "munmap"},
};

uint64_t model_state_frame(struct model *m, const char *label)
{
    size_t i;

    for (i = 0; i < m->nstates; i++)
        if (strcmp(m->states[i], label) == 0)
            return MODEL_STATE_FRAME(i);
    xgrow(&m->states, &m->states_cap, m->nstates + 1, sizeof(*m->states));
    m->states[m->nstates] = xstrdup(label);
    return MODEL_STATE_FRAME(m->nstates++);
}

/* The label of a wait leaf frame (ROCSYS_WAIT_FRAME): "[KIND wait] CALL", the call named by its
 * kind's table. A new kind of wait leaf: one row here. */
static void wait_label(uint64_t frame, char *label, size_t n)
{
    int id = ROCSYS_WAIT_FRAME_ID(frame);

    switch (ROCSYS_WAIT_FRAME_KIND(frame)) {
    case ROCSYS_WAIT_GPU: /* waiting for the device in a HIP call */
        snprintf(label, n, "[gpu wait] %s", model_hip_api_name(id));
        break;
    case ROCSYS_WAIT_MPI: /* waiting for other ranks in an MPI call */
        snprintf(label, n, "[mpi wait] %s", model_mpi_call_name(id));
        break;
    case ROCSYS_WAIT_OMP: /* an OpenMP barrier or task wait */
        snprintf(label, n, "[omp wait] %s", model_omp_wait_name(id));
        break;
    default:
        snprintf(label, n, "[wait %d] #%d", ROCSYS_WAIT_FRAME_KIND(frame), id);
        break;
    }
}

int model_state_sym(struct model *m, uint64_t pc, struct sym_frame *out)
{
    uint32_t id = (uint32_t)(pc & 0xffffffffu);
    char label[96];

    if (ROCSYS_IS_WAIT_FRAME(pc)) { /* the collector's: waiting inside a wrapped call */
        wait_label(pc, label, sizeof(label));
        id = (uint32_t)(model_state_frame(m, label) & 0xffffffffu);
    } else if (!MODEL_IS_STATE_FRAME(pc) || id >= m->nstates) {
        return 0;
    }
    memset(out, 0, sizeof(*out));
    out->function = m->states[id];
    out->module = state_module;
    return 1;
}

/* glibc's frames between a call and its system call that say nothing of the call: the
 * cancellation wrappers every cancellable call goes through since glibc 2.41 (the leaf frame of
 * a blocked thread there), by the names its symbols give them. */
static const char *const cancel_wrappers[] = {
    "__syscall_cancel_arch",     "__syscall_cancel_arch_start",
    "__syscall_cancel_arch_end", "__internal_syscall_cancel",
    "__syscall_cancel",          "__syscall_do_cancel",
};

/* Whether module (a file's basename) is the C library: glibc's libc.so.6, libc-2.NN.so, and
 * libpthread, which held the thread functions before glibc 2.34. */
static int libc_module(const char *module)
{
    return module && (strncmp(module, "libc.so", 7) == 0 || strncmp(module, "libc-", 5) == 0 ||
                      strncmp(module, "libpthread", 10) == 0);
}

/* Whether f is a cancellation wrapper, or a C library function without a name (its symbols are
 * not installed: "libc.so.6@0x8f340"): neither says what the thread waits for. */
static int says_nothing(const struct sym_frame *f)
{
    const char *name = f->function;
    size_t len, mlen = f->module ? strlen(f->module) : 0;

    if (strncmp(name, "__GI_", 5) == 0) /* glibc's internal alias of the same function */
        name += 5;
    len = strcspn(name, "."); /* without a compiler's suffix: ".constprop.0", ".isra.0" */
    for (size_t i = 0; i < sizeof(cancel_wrappers) / sizeof(cancel_wrappers[0]); i++)
        if (strlen(cancel_wrappers[i]) == len && strncmp(name, cancel_wrappers[i], len) == 0)
            return 1;
    return libc_module(f->module) && mlen && strncmp(f->function, f->module, mlen) == 0 &&
           (f->function[mlen] == '@' || f->function[mlen] == '+');
}

/* The system call that function name f says it waits in, or NULL. */
static const char *call_of(const char *f)
{
    for (size_t i = 0; i < sizeof(wait_calls) / sizeof(wait_calls[0]); i++)
        if (strstr(f, wait_calls[i].part))
            return wait_calls[i].call;
    return strncmp(f, "syscall", 7) == 0 ? "syscall" : NULL;
}

int model_blocked_step(const struct sym_frame *f, int leaf, const char **call)
{
    *call = NULL;
    if (!f->function)
        return 1;
    /* past the leaf, only the C library speaks for the call: a caller of its own (or a
     * function of the program that happens to be called "read_config") does not */
    if (!leaf && !libc_module(f->module))
        return 1;
    if (says_nothing(f))
        return 0;
    *call = call_of(f->function);
    return 1;
}

const char *model_blocked_call(const struct sym_frame *frames, int n, int nleaf)
{
    const char *call = NULL;

    for (int i = 0; i < n; i++)
        if (model_blocked_step(&frames[i], i < nleaf, &call))
            break;
    return call ? call : "other";
}

#define BLOCKED_PCS 8 /* stack frames looked at for the call, from the leaf */

uint64_t model_blocked_frame(struct model *m, uint32_t pid, const uint64_t *frames, int nframes,
                             int preempted)
{
    struct sym_frame fr[8];
    char label[96];
    const char *call = NULL;
    int done = 0;

    if (preempted)
        return model_state_frame(m, "[preempted]");
    for (int i = 0; i < nframes && i < BLOCKED_PCS && !done; i++) {
        int n = symbolizer_lookup(m->sym, pid, frames[i], i > 0, fr, 8);
        if (n <= 0)
            break;
        /* the function the pc is in first (what the leaf alone was named by), then the ones
         * inlined into it */
        for (int k = n - 1; k >= 0 && !done; k--)
            done = model_blocked_step(&fr[k], i == 0, &call);
    }
    snprintf(label, sizeof(label), "[blocked] %s", call ? call : "other");
    return model_state_frame(m, label);
}

int model_blocked_frame_pending(struct model *m, uint32_t pid, const uint64_t *frames, int nframes)
{
    struct sym_frame fr[8];

    for (int i = 0; i < nframes && i < BLOCKED_PCS; i++)
        if (symbolizer_lookup(m->sym, pid, frames[i], i > 0, fr, 8) < 0)
            return 1;
    return 0;
}

void model_states_free(struct model *m)
{
    for (size_t i = 0; i < m->nstates; i++)
        free(m->states[i]);
    free(m->states);
    m->states = NULL;
    m->nstates = m->states_cap = 0;
}
