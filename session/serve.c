/* --serve ADDR:PORT: a small HTTP/1.0 endpoint served from the front end's poll loop (no thread
 * of its own): /metrics (Prometheus' text format) and /snapshot.json (session/serve_content.c).
 * Every socket is non-blocking; a request is bounded (SERVE_REQ_MAX bytes, SERVE_CLIENT_MS from
 * accept to the last byte answered, SERVE_MAX_CLIENTS at once), so a slow or hostile client
 * costs the loop a read or a write, never a wait. */
#define _GNU_SOURCE
#include "session/session.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "model/model.h"

#define SERVE_MAX_CLIENTS 8
#define SERVE_REQ_MAX     4096
#define SERVE_CLIENT_MS   5000

struct serve_client {
    int fd;               /* -1: free slot */
    uint64_t deadline_ns; /* closed when not done by then */
    char req[SERVE_REQ_MAX];
    size_t req_len;
    struct session_serve_buf out; /* the whole response, being written */
    size_t out_off;
    int unread;   /* the request was cut: the client may still be sending */
    int draining; /* answered; what it still sends is read and dropped until it closes (a close
                     with unread data would reset the connection before it reads the answer) */
};

struct session_serve {
    int fd;
    char address[80]; /* "127.0.0.1:9400" */
    struct session_serve_content content;
    struct serve_client clients[SERVE_MAX_CLIENTS];
    uint64_t requests, refused;
};

/* Parse "PORT", "ADDR:PORT" or "[ADDR6]:PORT" into a socket address; 0 or -1 with err set. */
static int parse_spec(const char *spec, struct sockaddr_storage *ss, socklen_t *len, char *err,
                      size_t errlen)
{
    char host[64] = "127.0.0.1";
    const char *port_s = spec;
    const char *colon = strrchr(spec, ':');
    char *end;
    long port;

    if (spec[0] == '[') {
        const char *close = strchr(spec, ']');
        if (!close || close[1] != ':' || (size_t)(close - spec - 1) >= sizeof(host))
            goto bad;
        memcpy(host, spec + 1, (size_t)(close - spec - 1));
        host[close - spec - 1] = '\0';
        port_s = close + 2;
    } else if (colon) {
        if ((size_t)(colon - spec) >= sizeof(host) || colon == spec)
            goto bad;
        memcpy(host, spec, (size_t)(colon - spec));
        host[colon - spec] = '\0';
        port_s = colon + 1;
    }
    port = strtol(port_s, &end, 10);
    if (!*port_s || *end || port < 1 || port > 65535)
        goto bad;
    memset(ss, 0, sizeof(*ss));
    struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
        in4->sin_family = AF_INET;
        in4->sin_port = htons((uint16_t)port);
        *len = sizeof(*in4);
        return 0;
    }
    if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((uint16_t)port);
        *len = sizeof(*in6);
        return 0;
    }
bad:
    snprintf(err, errlen,
             "--serve: '%s' is not PORT or ADDR:PORT (a numeric address, e.g. 9400, "
             "127.0.0.1:9400, 0.0.0.0:9400, [::1]:9400)",
             spec);
    return -1;
}

struct session_serve *session_serve_open(const char *spec, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t len;
    int one = 1;

    if (parse_spec(spec, &ss, &len, err, errlen) != 0)
        return NULL;
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "--serve %s: socket: %s", spec, strerror(errno));
        return NULL;
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, 16) != 0) {
        snprintf(err, errlen, "--serve %s: %s", spec, strerror(errno));
        close(fd);
        return NULL;
    }
    struct session_serve *sv = xcalloc(1, sizeof(*sv));
    sv->fd = fd;
    for (int i = 0; i < SERVE_MAX_CLIENTS; i++)
        sv->clients[i].fd = -1;
    /* the address actually bound (port 0 is refused above, but say what we listen on) */
    char host[INET6_ADDRSTRLEN] = "?";
    if (ss.ss_family == AF_INET) {
        inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof(host));
        snprintf(sv->address, sizeof(sv->address), "%s:%u", host,
                 ntohs(((struct sockaddr_in *)&ss)->sin_port));
    } else {
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host, sizeof(host));
        snprintf(sv->address, sizeof(sv->address), "[%s]:%u", host,
                 ntohs(((struct sockaddr_in6 *)&ss)->sin6_port));
    }
    return sv;
}

const char *session_serve_address(const struct session_serve *sv)
{
    return sv ? sv->address : "";
}

void session_serve_set_content(struct session_serve *sv, const struct session_serve_content *c)
{
    if (sv)
        sv->content = *c;
}

/* Free a client's slot. */
static void client_close(struct serve_client *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    free(c->out.p);
    memset(&c->out, 0, sizeof(c->out));
    c->req_len = c->out_off = 0;
    c->unread = c->draining = 0;
}

int session_serve_pollfds(const struct session_serve *sv, struct pollfd *out, int max)
{
    int n = 0;

    if (!sv || max < 1)
        return 0;
    out[n++] = (struct pollfd){.fd = sv->fd, .events = POLLIN};
    for (int i = 0; i < SERVE_MAX_CLIENTS && n < max; i++) {
        const struct serve_client *c = &sv->clients[i];
        if (c->fd >= 0)
            out[n++] = (struct pollfd){.fd = c->fd, .events = c->out.p ? POLLOUT : POLLIN};
    }
    return n;
}

/* A one-line error response. */
static void respond_error(struct session_serve_buf *b, int code, const char *reason,
                          const char *line)
{
    session_serve_printf(b,
                         "HTTP/1.0 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
                         "Content-Length: %zu\r\nConnection: close\r\n\r\n%s\n",
                         code, reason, strlen(line) + 1, line);
}

/* Build the response to the request in c->req (complete or cut at SERVE_REQ_MAX). */
static void respond(struct session_serve *sv, struct serve_client *c, int complete)
{
    char method[8], path[256];
    struct session_serve_buf body = {0};
    const char *type = NULL;

    sv->requests++;
    c->req[c->req_len < SERVE_REQ_MAX ? c->req_len : SERVE_REQ_MAX - 1] = '\0';
    if (!complete) {
        respond_error(&c->out, 400, "Bad Request", "request too long");
        return;
    }
    if (sscanf(c->req, "%7s %255s HTTP/1.%*c", method, path) != 2 || path[0] != '/') {
        respond_error(&c->out, 400, "Bad Request", "not an HTTP request: GET /metrics");
        return;
    }
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        respond_error(&c->out, 400, "Bad Request", "only GET is served");
        return;
    }
    path[strcspn(path, "?#")] = '\0';
    if (strcmp(path, "/metrics") == 0) {
        session_serve_metrics(&sv->content, &body);
        type = "text/plain; version=0.0.4; charset=utf-8";
    } else if (strcmp(path, "/snapshot.json") == 0) {
        session_serve_snapshot(&sv->content, &body);
        type = "application/json";
    } else if (strcmp(path, "/") == 0) {
        session_serve_printf(&body, "rocsys-top: GET /metrics (Prometheus) or /snapshot.json\n");
        type = "text/plain; charset=utf-8";
    } else {
        respond_error(&c->out, 404, "Not Found", "not found: /metrics and /snapshot.json are");
        return;
    }
    session_serve_printf(&c->out,
                         "HTTP/1.0 200 OK\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                         "Cache-Control: no-store\r\nConnection: close\r\n\r\n",
                         type, body.len);
    if (strcmp(method, "GET") == 0)
        session_serve_append(&c->out, body.p, body.len);
    free(body.p);
}

/* Accept what is waiting; past SERVE_MAX_CLIENTS a connection is closed at once. */
static void accept_clients(struct session_serve *sv, uint64_t now_ns)
{
    for (int k = 0; k < 4 * SERVE_MAX_CLIENTS; k++) {
        int fd = accept4(sv->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        struct serve_client *c = NULL;
        for (int i = 0; i < SERVE_MAX_CLIENTS && !c; i++)
            if (sv->clients[i].fd < 0)
                c = &sv->clients[i];
        if (!c) {
            sv->refused++;
            close(fd);
            continue;
        }
        c->fd = fd;
        c->req_len = c->out_off = 0;
        c->deadline_ns = now_ns + SERVE_CLIENT_MS * 1000000ull;
    }
}

/* Read what the client sent; respond once the header is complete. */
static void client_read(struct session_serve *sv, struct serve_client *c)
{
    for (;;) {
        if (c->req_len >= SERVE_REQ_MAX - 1) {
            c->unread = 1;
            respond(sv, c, 0);
            return;
        }
        ssize_t r = read(c->fd, c->req + c->req_len, SERVE_REQ_MAX - 1 - c->req_len);
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
            client_close(c);
            return;
        }
        if (r < 0)
            return;
        c->req_len += (size_t)r;
        c->req[c->req_len] = '\0';
        if (memchr(c->req, '\0', c->req_len)) { /* not text: answered now */
            c->req[0] = '\0';
            respond(sv, c, 1);
            return;
        }
        if (strstr(c->req, "\r\n\r\n") || strstr(c->req, "\n\n")) {
            respond(sv, c, 1);
            return;
        }
    }
}

/* Write what the socket takes; close when all is written. */
static void client_write(struct serve_client *c)
{
    while (c->out_off < c->out.len) {
        ssize_t w = send(c->fd, c->out.p + c->out_off, c->out.len - c->out_off, MSG_NOSIGNAL);
        if (w < 0 && (errno == EAGAIN || errno == EINTR))
            return;
        if (w <= 0)
            break;
        c->out_off += (size_t)w;
    }
    shutdown(c->fd, SHUT_WR);
    if (c->unread && c->out_off == c->out.len) {
        free(c->out.p);
        memset(&c->out, 0, sizeof(c->out));
        c->draining = 1;
        return;
    }
    client_close(c);
}

void session_serve_handle(struct session_serve *sv, const struct pollfd *p, int n)
{
    uint64_t now = model_clock_ns(CLOCK_MONOTONIC);

    if (!sv)
        return;
    for (int k = 1; k < n; k++) {
        if (!p[k].revents)
            continue;
        for (int i = 0; i < SERVE_MAX_CLIENTS; i++) {
            struct serve_client *c = &sv->clients[i];
            if (c->fd != p[k].fd)
                continue;
            if (c->draining) { /* drop what it sends until it closes (or its time is up) */
                char sink[4096];
                ssize_t r;
                while ((r = read(c->fd, sink, sizeof(sink))) > 0)
                    ;
                if (r == 0 || (errno != EAGAIN && errno != EINTR))
                    client_close(c);
                break;
            }
            if (!c->out.p && (p[k].revents & (POLLIN | POLLHUP | POLLERR)))
                client_read(sv, c);
            if (c->fd >= 0 && c->out.p)
                client_write(c);
            break;
        }
    }
    if (n > 0 && (p[0].revents & POLLIN))
        accept_clients(sv, now);
    for (int i = 0; i < SERVE_MAX_CLIENTS; i++)
        if (sv->clients[i].fd >= 0 && now >= sv->clients[i].deadline_ns)
            client_close(&sv->clients[i]);
}

void session_serve_close(struct session_serve *sv)
{
    if (!sv)
        return;
    for (int i = 0; i < SERVE_MAX_CLIENTS; i++)
        client_close(&sv->clients[i]);
    close(sv->fd);
    free(sv);
}
