/* librocsys-user.so: the user API's stubs. They do nothing, so a program linked with this
 * library runs at full speed without rocsys-top; under rocsys-top the preloaded collector
 * defines the same symbols, and the dynamic linker binds the program's calls to the collector's
 * (see collector/regions.c). */
#include "rocsys/user.h"

int rocsys_user_push(const char *name)
{
    (void)name;
    return 0;
}

int rocsys_user_pop(void)
{
    return 0;
}

void rocsys_user_mark(const char *name)
{
    (void)name;
}

void rocsys_user_begin(const char *name)
{
    (void)name;
}

void rocsys_user_end(const char *name)
{
    (void)name;
}

void rocsys_user_start_sampling(void) {}

void rocsys_user_stop_sampling(void) {}

int rocsys_user_active(void)
{
    return 0;
}
