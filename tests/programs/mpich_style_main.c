/* A program of the MPICH-style stand-in library (standin_mpich.c, int handles), for
 * tests/e2e/test_mpi_abi.sh: loads EXT (mpich_local_ext.c, linked to the stand-in) with
 * dlopen, RTLD_GLOBAL or RTLD_LOCAL, and runs its MPI calls; prints "errors N barrier_ns B
 * inside_ns I" (N: calls that did not return 0; B: its own measure of the time in MPI_Barrier,
 * around the calls; I: the stand-in library's, from the first to the last instruction of its
 * PMPI_Barrier).
 * Usage: mpich_style_main global|local EXT */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    uint64_t barrier_ns = 0, inside_ns = 0;
    void *h;
    int (*run)(uint64_t *, uint64_t *);
    int errors;

    if (argc != 3) {
        fprintf(stderr, "usage: mpich_style_main global|local EXT\n");
        return 2;
    }
    h = dlopen(argv[2], RTLD_NOW | (strcmp(argv[1], "local") == 0 ? RTLD_LOCAL : RTLD_GLOBAL));
    run = h ? (int (*)(uint64_t *, uint64_t *))dlsym(h, "mpich_ext_run") : NULL;
    if (!run) {
        fprintf(stderr, "mpich_style_main: %s\n", dlerror());
        return 2;
    }
    errors = run(&barrier_ns, &inside_ns);
    printf("errors %d barrier_ns %llu inside_ns %llu\n", errors, (unsigned long long)barrier_ns,
           (unsigned long long)inside_ns);
    return errors != 0;
}
