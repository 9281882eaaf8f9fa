/* The spool thread: empties every source's rings (session_sources[]) into memory every
 * SPOOL_POLL_MS, and at once when a collector's producer rings the doorbell (a ring passed half
 * full), so that a slow main loop never makes the target drop samples. */
#define _GNU_SOURCE
#include "session/session_internal.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "model/model.h"

#define SPOOL_POLL_MS     10
#define SPOOL_REAP_MS     100 /* the thread frees the rings of threads that are gone */
#define SPOOL_MAX_POLL    256 /* perf rings polled at most (one per CPU and kind) */
#define SPOOL_LIMIT_BYTES (256u * 1024u * 1024u) /* ~30 s of 16 threads at 1 kHz, waiting */
#define SPOOL_FIRST_BYTES (256u * 1024u)         /* a buffer's first size */
#define SPOOL_KEEP_BYTES  (1024u * 1024u)        /* a buffer keeps this much whatever it holds */

void session_spool_init(struct session_spool *sp, struct transport *tr, void *session)
{
    memset(sp, 0, sizeof(*sp));
    sp->tr = tr;
    sp->session = session;
    sp->limit_bytes = SPOOL_LIMIT_BYTES;
    sp->wake_fd = -1;
    pthread_mutex_init(&sp->lock, NULL);
}

void session_spool_lock(struct session_spool *sp)
{
    pthread_mutex_lock(&sp->lock);
}

void session_spool_unlock(struct session_spool *sp)
{
    pthread_mutex_unlock(&sp->lock);
}

int session_spool_full(const struct session_spool *sp)
{
    return sp->buf.len >= sp->limit_bytes;
}

size_t session_spool_buf_append(struct session_spool_buf *b, const struct session_spool_rec *r,
                                const void *rec)
{
    size_t need = sizeof(*r) + (((size_t)r->len + 7) & ~(size_t)7);

    if (b->len + need > b->cap) {
        size_t cap = b->cap ? b->cap : SPOOL_FIRST_BYTES;
        while (cap < b->len + need)
            cap *= 2;
        b->data = xmap_resize(b->data, b->cap, cap);
        b->cap = cap;
    }
    memcpy(b->data + b->len, r, sizeof(*r));
    memcpy(b->data + b->len + sizeof(*r), rec, r->len);
    b->len += need;
    return need;
}

void session_spool_buf_free(struct session_spool_buf *b)
{
    xmap_resize(b->data, b->cap, 0);
    *b = (struct session_spool_buf){0};
}

int session_spool_append(struct session_spool *sp, const struct session_spool_rec *r,
                         const void *rec)
{
    struct session_spool_buf *b = &sp->buf;

    sp->bytes_total += session_spool_buf_append(b, r, rec);
    if (b->len > sp->peak_bytes)
        sp->peak_bytes = b->len;
    return b->len < sp->limit_bytes;
}

void session_spool_buf_fit(struct session_spool_buf *b, size_t used)
{
    size_t cap = b->cap;

    if (cap <= SPOOL_KEEP_BYTES || used >= cap / 4)
        return;
    if (!b->len) {
        session_spool_buf_free(b);
        return;
    }
    while (cap / 2 >= SPOOL_FIRST_BYTES && cap / 2 >= 2 * b->len && cap / 2 >= 2 * used)
        cap /= 2;
    b->data = xmap_resize(b->data, b->cap, cap);
    b->cap = cap;
}

void session_spool_pass(struct session_spool *sp, int check_orphans)
{
    sp->pass_start_ns = model_clock_ns(CLOCK_MONOTONIC);
    for (int i = 0; i < session_nsources; i++)
        session_sources[i]->pass(sp->session, sp, check_orphans);
}

void session_spool_take(struct session_spool *sp, struct session_spool_buf *out)
{
    struct session_spool_buf old = *out;

    *out = sp->buf;
    old.len = 0;
    sp->buf = old;
}

/* With perf rings the spool thread sleeps in poll(), which a futex does not wake: this thread
 * waits on the collector's doorbell for it and turns each ring into an event on an eventfd
 * the spool thread polls (else a producer waiting for room, e.g. a loop of HIP calls, waited
 * up to SPOOL_POLL_MS for each drain: 6.9 us a call instead of 0.24). */
struct bell_relay {
    struct session_spool *sp;
    int fd;
};

static void *bell_relay_main(void *arg)
{
    struct bell_relay *b = arg;
    uint32_t seen = transport_doorbell_value(b->sp->tr);
    uint64_t one = 1;

    while (!atomic_load(&b->sp->stop))
        if (transport_doorbell_wait(b->sp->tr, &seen, SPOOL_POLL_MS) &&
            write(b->fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
            break;
    return NULL;
}

/* The thread: a pass per doorbell or poll interval; the doorbell also wakes the main loop. */
static void *session_spool_main(void *arg)
{
    struct session_spool *sp = arg;
    struct session *s = sp->session;
    uint32_t seen = sp->tr->hdr ? transport_doorbell_value(sp->tr) : 0;
    uint64_t one = 1;
    struct timespec poll_ts = {0, SPOOL_POLL_MS * 1000000L};
    struct pollfd pfd[SPOOL_MAX_POLL];
    /* perf rings wake the thread when a quarter full (their samples are large and can come
     * fast: a context switch each in wall mode); the collector's rings carry samples only when
     * there are no perf rings, and then ring their doorbell */
    int npfd = s->perf ? session_perf_pollfds(s->perf, pfd, SPOOL_MAX_POLL - 1) : 0;
    uint64_t next_reap = 0;
    struct bell_relay relay = {.sp = sp, .fd = -1};
    pthread_t relay_thread;
    int relaying = 0;

    if (npfd > 0 && sp->tr->hdr) { /* the doorbell as the last pollfd */
        relay.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        relaying =
            relay.fd >= 0 && pthread_create(&relay_thread, NULL, bell_relay_main, &relay) == 0;
        if (relaying)
            pfd[npfd] = (struct pollfd){.fd = relay.fd, .events = POLLIN};
    }
    while (!atomic_load(&sp->stop)) {
        int bell = 0, reap = 0;
        if (npfd > 0) {
            if (poll(pfd, (nfds_t)(npfd + relaying), SPOOL_POLL_MS) > 0) {
                for (int i = 0; i < npfd; i++)
                    if (pfd[i].revents & (POLLHUP | POLLERR | POLLNVAL)) {
                        pfd[i] = pfd[npfd - 1];    /* its task is gone: no more wakeups */
                        pfd[npfd - 1] = pfd[npfd]; /* the doorbell stays last */
                        npfd--;
                        i--;
                    }
                if (relaying && (pfd[npfd].revents & POLLIN)) {
                    uint64_t n;
                    bell = read(relay.fd, &n, sizeof(n)) == (ssize_t)sizeof(n);
                }
            }
        } else if (sp->tr->hdr) {
            bell = transport_doorbell_wait(sp->tr, &seen, SPOOL_POLL_MS);
        } else {
            nanosleep(&poll_ts, NULL);
        }
        /* rings of threads that are gone are freed from here too, every 100 ms: when the main
         * loop lags (a build's hundreds of short processes to symbolize), new processes must
         * still find free rings for their module records */
        uint64_t now = model_clock_ns(CLOCK_MONOTONIC);
        if (now >= next_reap) {
            reap = SESSION_REAP_GONE;
            next_reap = now + SPOOL_REAP_MS * 1000000ull;
        }
        session_spool_lock(sp);
        session_spool_pass(sp, reap);
        session_spool_unlock(sp);
        if (bell && sp->wake_fd >= 0 && write(sp->wake_fd, &one, sizeof(one)) < 0 &&
            errno != EAGAIN)
            break;
    }
    if (relaying) {
        atomic_store(&sp->stop, 1); /* (also when the loop broke on its own) */
        pthread_join(relay_thread, NULL);
    }
    if (relay.fd >= 0)
        close(relay.fd);
    return NULL;
}

int session_spool_start(struct session_spool *sp)
{
    int rc;

    sp->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (sp->wake_fd < 0)
        return -errno;
    rc = pthread_create(&sp->thread, NULL, session_spool_main, sp);
    if (rc != 0) {
        close(sp->wake_fd);
        sp->wake_fd = -1;
        return -rc;
    }
    sp->running = 1;
    return 0;
}

void session_spool_stop(struct session_spool *sp)
{
    if (sp->running) {
        atomic_store(&sp->stop, 1);
        pthread_join(sp->thread, NULL);
        sp->running = 0;
    }
    if (sp->wake_fd >= 0)
        close(sp->wake_fd);
    sp->wake_fd = -1;
}

void session_spool_release(struct session_spool *sp)
{
    session_spool_buf_free(&sp->buf);
}

void session_spool_free(struct session_spool *sp)
{
    session_spool_release(sp);
    pthread_mutex_destroy(&sp->lock);
}
