/* Thread states as leaf pseudo-frames: "[blocked] nanosleep", "[preempted]" below the stack
 * where a thread stopped running (wall mode measured from context switches), and "[gpu wait]
 * hipStreamSynchronize" where it waited for the device inside a HIP call. */
#include "model_internal.h"

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

int model_state_sym(struct model *m, uint64_t pc, struct sym_frame *out)
{
    uint32_t id = (uint32_t)(pc & 0xffffffffu);
    char label[96];

    if (ROCSYS_IS_GPU_WAIT_FRAME(pc)) { /* the collector's: waiting for the device in HIP call id */
        snprintf(label, sizeof(label), "[gpu wait] %s", model_hip_api_name((int)id));
        id = (uint32_t)(model_state_frame(m, label) & 0xffffffffu);
    } else if (!MODEL_IS_STATE_FRAME(pc) || id >= m->nstates) {
        return 0;
    }
    memset(out, 0, sizeof(*out));
    out->function = m->states[id];
    out->module = state_module;
    return 1;
}

uint64_t model_blocked_frame(struct model *m, uint32_t pid, uint64_t leaf_pc, int preempted)
{
    struct sym_frame fr[8];
    char label[96];
    const char *call = NULL;
    int n;

    if (preempted)
        return model_state_frame(m, "[preempted]");
    n = symbolizer_lookup(m->sym, pid, leaf_pc, 0, fr, 8);
    if (n > 0 && fr[n - 1].function) {
        const char *f = fr[n - 1].function;
        for (size_t i = 0; i < sizeof(wait_calls) / sizeof(wait_calls[0]) && !call; i++)
            if (strstr(f, wait_calls[i].part))
                call = wait_calls[i].call;
        if (!call && strncmp(f, "syscall", 7) == 0)
            call = "syscall";
    }
    snprintf(label, sizeof(label), "[blocked] %s", call ? call : "other");
    return model_state_frame(m, label);
}

void model_states_free(struct model *m)
{
    for (size_t i = 0; i < m->nstates; i++)
        free(m->states[i]);
    free(m->states);
    m->states = NULL;
    m->nstates = m->states_cap = 0;
}
