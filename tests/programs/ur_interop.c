/* Test program for interposed annotations: ROCTx ("roctx") or ROCm Systems Profiler's user API
 * ("rocprofsys"), linked against the stand-in libraries. It prints what the calls returned and
 * how many calls the stand-in received (0 when rocsys-top's collector took them all). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tp_burn.h"

int roctxRangePushA(const char *message);
int roctxRangePop(void);
void roctxMarkA(const char *message);
uint64_t roctxRangeStartA(const char *message);
void roctxRangeStop(uint64_t id);
int standin_roctx_calls(void);
int rocprofsys_user_push_region(const char *id);
int rocprofsys_user_pop_region(const char *id);
int rocprofsys_user_push_annotated_region(const char *id, void *annotations, size_t count);
int rocprofsys_user_pop_annotated_region(const char *id, void *annotations, size_t count);
int rocprofsys_user_start_trace(void);
int rocprofsys_user_stop_trace(void);
int standin_rocprofsys_calls(void);

TP_DEFINE_BURN(ix_roctx_work)
TP_DEFINE_BURN(ix_range_work)
TP_DEFINE_BURN(ix_rps_work)
TP_DEFINE_BURN(ix_rps_paused_work)

/* Annotations as rocprofsys_annotation_t lays them out: name, type, value. */
struct annotation {
    const char *name;
    uintptr_t type;
    void *value;
};

static void roctx(void)
{
    int a = roctxRangePushA("roctx outer");
    int b = roctxRangePushA("roctx inner");
    ix_roctx_work(200);
    int c = roctxRangePop();
    int d = roctxRangePop();
    int e = roctxRangePop();
    roctxMarkA("roctx mark");
    uint64_t id = roctxRangeStartA("roctx range");
    ix_range_work(100);
    roctxRangeStop(id);
    printf("roctx returned push %d %d pop %d %d %d range id %s\n", a, b, c, d, e,
           id ? "nonzero" : "zero");
    printf("stand-in calls %d\n", standin_roctx_calls());
}

static void rocprofsys(void)
{
    int size = 4096;
    struct annotation ann[] = {{"size", 5, &size}};
    int r[8];

    r[0] = rocprofsys_user_push_region("rps outer");
    r[1] = rocprofsys_user_push_annotated_region("rps annotated", ann, 1);
    ix_rps_work(200);
    r[2] = rocprofsys_user_pop_annotated_region("rps annotated", ann, 1);
    r[3] = rocprofsys_user_pop_region("rps outer");
    r[4] = rocprofsys_user_stop_trace();
    ix_rps_paused_work(200);
    r[5] = rocprofsys_user_start_trace();
    printf("rocprofsys returned %d %d %d %d %d %d\n", r[0], r[1], r[2], r[3], r[4], r[5]);
    printf("stand-in calls %d\n", standin_rocprofsys_calls());
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "rocprofsys") == 0)
        rocprofsys();
    else
        roctx();
    return 0;
}
