/* Unit test: PID namespaces (gpu/pidns.c): NSpid lines parsed, and a KFD (host) id resolved for
 * a viewer at each depth: its own namespace, a container below it, a namespace beside or above. */
#include <string.h>

#include "check.h"
#include "gpu/gpu.h"

int main(void)
{
    uint32_t ids[8], ours, inner;

    /* parsing: the NSpid line among the others, tabs, several levels */
    const char *st = "Name:\tsleep\nTgid:\t4242\nPid:\t4242\nPPid:\t1\nNSpid:\t4242\t7\t1\n"
                     "NSpgid:\t4242\t7\t1\n";
    CHECK(gpu_pidns_parse(st, ids, 8) == 3 && ids[0] == 4242 && ids[1] == 7 && ids[2] == 1);
    CHECK(gpu_pidns_parse("Name:\tx\nNSpid:\t12\n", ids, 8) == 1 && ids[0] == 12);
    CHECK(gpu_pidns_parse("Name:\tx\nPid:\t12\n", ids, 8) == 0); /* before Linux 4.1 */
    CHECK(gpu_pidns_parse("NSpid:\t1\t2\t3\t4", ids, 2) == 2);   /* at most max */
    CHECK(gpu_pidns_parse("NSpid:\tx\n", ids, 8) == 0);
    CHECK(gpu_pidns_parse("", ids, 8) == 0);

    /* a viewer in the host's namespace (depth 1) */
    uint32_t same[] = {4242}, child[] = {4242, 7}, grandchild[] = {4242, 7, 1};
    CHECK(gpu_pidns_resolve(1, same, 1, &ours, &inner) == GPU_PIDNS_SAME && ours == 4242);
    CHECK(gpu_pidns_resolve(1, child, 2, &ours, &inner) == GPU_PIDNS_CHILD && ours == 4242 &&
          inner == 7);
    CHECK(gpu_pidns_resolve(1, grandchild, 3, &ours, &inner) == GPU_PIDNS_CHILD && ours == 4242 &&
          inner == 1);
    /* a viewer one level down with the host's /proc (unshare --pid --fork, no --mount-proc) */
    CHECK(gpu_pidns_resolve(2, child, 2, &ours, &inner) == GPU_PIDNS_SAME && ours == 7);
    CHECK(gpu_pidns_resolve(2, grandchild, 3, &ours, &inner) == GPU_PIDNS_CHILD && ours == 7 &&
          inner == 1);
    CHECK(gpu_pidns_resolve(2, same, 1, &ours, &inner) == GPU_PIDNS_OUTSIDE && ours == 0);
    /* our own /proc below the host's: nothing maps */
    CHECK(gpu_pidns_resolve(0, child, 2, &ours, &inner) == GPU_PIDNS_OUTSIDE && ours == 0);

    /* this process: a depth of 1 or more where /proc is ours and the host's */
    CHECK(gpu_pidns_self() >= 0);
    return check_summary();
}
