/* The target's life as the front end sees it: rocsys-top's own signals (passed on to the
 * target, or a detach), stopping it (SIGTERM, then SIGKILL after a grace period), reaping it,
 * and how it ended (rocsys-top's exit status). */
#define _GNU_SOURCE
#include "session/session_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model/model.h"

/* "SIGSEGV" for 11. */
static void signal_name(int sig, char *buf, size_t cap)
{
    const char *abbrev = sigabbrev_np(sig);
    if (abbrev)
        snprintf(buf, cap, "SIG%s", abbrev);
    else
        snprintf(buf, cap, "signal %d", sig);
}

/* The target ended: record how, and what rocsys-top will exit with. */
static void target_ended(struct session *s, int status, const struct rusage *ru)
{
    struct model_session *ms = model_session(s->m);
    char sig[32];

    /* the target's records are all in the rings by now (it wrote them before it died): take
     * them first, so that a target too short-lived to have been seen yet is known to the model
     * before its exit status is applied (else its own "ended" record would come later and
     * leave it as "exited, status unknown") */
    session_drain(s, 0);
    s->target_done = 1;
    s->target_end_ns = model_clock_ns(CLOCK_MONOTONIC);
    ms->target_done = 1;
    ms->end_ns = s->target_end_ns;
    if (WIFEXITED(status)) {
        s->exit_status = WEXITSTATUS(status);
        snprintf(ms->status_text, sizeof(ms->status_text), "exited with %d", s->exit_status);
        model_proc_end(s->m, (uint32_t)s->target.pid, MODEL_PROC_EXITED, s->exit_status,
                       s->target_end_ns);
    } else {
        int n = WTERMSIG(status);
        s->exit_status = 128 + n;
        signal_name(n, sig, sizeof(sig));
        snprintf(ms->status_text, sizeof(ms->status_text), "killed by %s%s", sig,
                 WCOREDUMP(status) ? " (core dumped)" : "");
        model_proc_end(s->m, (uint32_t)s->target.pid, MODEL_PROC_KILLED, n, s->target_end_ns);
    }
    ms->exit_status = s->exit_status;
    model_proc_final_usage(s->m, (uint32_t)s->target.pid, ru);
}

/* Reap the target if it ended. */
void session_check_child(struct session *s)
{
    int status;
    struct rusage ru;
    pid_t p;

    while ((p = wait4(-1, &status, WNOHANG, &ru)) > 0)
        if (p == s->target.pid && !s->target_done)
            target_ended(s, status, &ru);
}

/* Send sig to the target (its process group when it has one). */
void session_signal_target(struct session *s, int sig)
{
    if (s->target_done || s->attached) /* an attached process never gets a signal from us */
        return;
    if (s->target.own_group)
        kill(-s->target.pid, sig);
    else
        kill(s->target.pid, sig);
}

/* Ask the target to end (SIGTERM now, SIGKILL after a grace period), then leave. */
void session_stop_target(struct session *s)
{
    if (s->attached) { /* leave the processes as they are: running */
        if (!s->target_done) {
            s->target_done = 1;
            model_session(s->m)->target_done = 1;
            snprintf(model_session(s->m)->status_text, sizeof(model_session(s->m)->status_text),
                     "detached (still running)");
        }
        s->quit = 1;
        return;
    }
    if (s->target_done || s->kill_sent)
        return;
    session_signal_target(s, SIGTERM);
    s->kill_sent = 1;
    s->kill_deadline = model_clock_ns(CLOCK_MONOTONIC) + KILL_GRACE_MS * 1000000ull;
}

/* A signal arrived for rocsys-top itself. */
void session_on_signal(struct session *s)
{
    struct signalfd_siginfo si;

    while (read(s->sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        switch (si.ssi_signo) {
        case SIGCHLD:
            session_check_child(s);
            break;
        case SIGHUP:
            s->ended_by = "SIGHUP to rocsys-top (terminal closed)";
            s->hangup = 1;
            session_signal_target(s, SIGHUP);
            s->quit = 1;
            break;
        case SIGINT:
        case SIGTERM:
        case SIGQUIT:
            if (!s->ended_by)
                s->ended_by = si.ssi_signo == SIGINT    ? "SIGINT to rocsys-top (Ctrl-C)"
                              : si.ssi_signo != SIGTERM ? "SIGQUIT to rocsys-top"
                              /* what Slurm sends a job step that it ends: scancel, the
                               * job's time limit, preemption (SIGKILL KillWait later) */
                              : getenv("SLURM_JOB_ID")
                                  ? "SIGTERM to rocsys-top (from Slurm: scancel, time limit "
                                    "or preemption)"
                                  : "SIGTERM to rocsys-top";
            if (s->attached) {
                session_stop_target(s); /* detach */
            } else if (s->kill_sent) {
                session_signal_target(s, SIGKILL);
            } else {
                /* pass it on, like a shell would; we end when the target does */
                session_signal_target(s, (int)si.ssi_signo);
                s->kill_sent = 1;
                s->kill_deadline =
                    model_clock_ns(CLOCK_MONOTONIC) + 10 * KILL_GRACE_MS * 1000000ull;
            }
            break;
        default:
            break;
        }
    }
}

/* The session is over: stop and reap a target still running (an attached one is left alone). */
void session_end_target(struct session *s)
{
    if (s->target_done || s->attached) /* an attached one is left running */
        return;
    session_stop_target(s);
    for (int i = 0; i < KILL_GRACE_MS / 10 && !s->target_done; i++) {
        usleep(10000);
        session_check_child(s);
    }
    if (!s->target_done) {
        session_signal_target(s, SIGKILL);
        while (!s->target_done && waitpid(s->target.pid, NULL, 0) < 0 && errno == EINTR)
            ;
        if (!s->target_done) {
            s->target_done = 1;
            s->exit_status = 128 + SIGKILL;
        }
    }
}
