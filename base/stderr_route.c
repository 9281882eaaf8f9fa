/* Redirections of fd 2 that may be undone in any order (see stderr_route.h). Each one keeps a
 * copy of where fd 2 pointed before it; undoing the newest points fd 2 back there, undoing an
 * older one hands its copy to the redirection pushed just over it. */
#define _GNU_SOURCE
#include "base/stderr_route.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define ROUTES_MAX 8

static pthread_mutex_t route_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    int handle;
    int before; /* a copy of what fd 2 was when this one was pushed */
} routes[ROUTES_MAX];
static int nroutes, last_handle;

int stderr_route_push(int fd)
{
    int before, handle = -1;

    pthread_mutex_lock(&route_lock);
    if (nroutes == ROUTES_MAX)
        goto out;
    before = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    if (before < 0)
        goto out;
    fflush(stderr);
    if (dup2(fd, STDERR_FILENO) < 0) {
        close(before);
        goto out;
    }
    handle = ++last_handle;
    routes[nroutes].handle = handle;
    routes[nroutes].before = before;
    nroutes++;
out:
    pthread_mutex_unlock(&route_lock);
    return handle;
}

int stderr_route_pop(int handle)
{
    int i, found = 0;

    pthread_mutex_lock(&route_lock);
    for (i = 0; i < nroutes && routes[i].handle != handle; i++)
        ;
    if (i == nroutes)
        goto out;
    found = 1;
    if (i == nroutes - 1) { /* the newest: fd 2 goes back to what it was before it */
        fflush(stderr);
        dup2(routes[i].before, STDERR_FILENO);
        close(routes[i].before);
    } else { /* one pushed over it will go back to where this one would have */
        close(routes[i + 1].before);
        routes[i + 1].before = routes[i].before;
    }
    for (; i + 1 < nroutes; i++)
        routes[i] = routes[i + 1];
    nroutes--;
out:
    pthread_mutex_unlock(&route_lock);
    return found;
}
