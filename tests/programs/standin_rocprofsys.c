/* A stand-in for ROCm Systems Profiler's librocprof-sys-user.so (not packaged in Debian): the
 * user-API functions a program calls, counting the calls they receive, so a test can tell
 * whether rocsys-top's collector took them instead. Every function returns
 * ROCPROFSYS_USER_ERROR_NO_BINDING (1), as the real library does when no tool is attached. */
#include <stddef.h>

int rocprofsys_user_push_region(const char *id);
int rocprofsys_user_pop_region(const char *id);
int rocprofsys_user_push_annotated_region(const char *id, void *annotations, size_t count);
int rocprofsys_user_pop_annotated_region(const char *id, void *annotations, size_t count);
int rocprofsys_user_start_trace(void);
int rocprofsys_user_stop_trace(void);
int standin_rocprofsys_calls(void);

#define NO_BINDING 1

static int calls;

/* Count one call; returns NO_BINDING. */
static int called(void)
{
    __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
    return NO_BINDING;
}

int rocprofsys_user_push_region(const char *id)
{
    (void)id;
    return called();
}

int rocprofsys_user_pop_region(const char *id)
{
    (void)id;
    return called();
}

int rocprofsys_user_push_annotated_region(const char *id, void *annotations, size_t count)
{
    (void)id;
    (void)annotations;
    (void)count;
    return called();
}

int rocprofsys_user_pop_annotated_region(const char *id, void *annotations, size_t count)
{
    (void)id;
    (void)annotations;
    (void)count;
    return called();
}

int rocprofsys_user_start_trace(void)
{
    return called();
}

int rocprofsys_user_stop_trace(void)
{
    return called();
}

int standin_rocprofsys_calls(void)
{
    return __atomic_load_n(&calls, __ATOMIC_RELAXED);
}
