/* A stand-in for libroctx64.so (not packaged in Debian), with the ROCTx functions a program
 * calls: it counts the calls it receives, so a test can tell whether rocsys-top's collector
 * took them instead. Return values follow roctx.h: push -> level, pop -> level or -1. */
#include <stdint.h>

int roctxRangePushA(const char *message);
int roctxRangePop(void);
void roctxMarkA(const char *message);
uint64_t roctxRangeStartA(const char *message);
void roctxRangeStop(uint64_t id);
int standin_roctx_calls(void);

static __thread int depth;
static int calls;
static uint64_t next_id = 1;

int roctxRangePushA(const char *message)
{
    (void)message;
    __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
    return depth++;
}

int roctxRangePop(void)
{
    __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
    return depth > 0 ? --depth : -1;
}

void roctxMarkA(const char *message)
{
    (void)message;
    __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
}

uint64_t roctxRangeStartA(const char *message)
{
    (void)message;
    __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
    return __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
}

void roctxRangeStop(uint64_t id)
{
    (void)id;
    __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
}

int standin_roctx_calls(void)
{
    return __atomic_load_n(&calls, __ATOMIC_RELAXED);
}
