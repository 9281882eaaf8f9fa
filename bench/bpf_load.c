/* What loading the BPF Python frame walker costs (bench/python_outside.sh): opens and loads each
 * object file given (libbpf: relocation against the kernel's BTF, the verifier, the maps with
 * the front end's 32 MiB ring buffer), ROUNDS times in turn, and prints per load its wall and
 * CPU milliseconds. usage: bpf_load ROUNDS OBJ... (root) */
#include <bpf/libbpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Seconds on clock c. */
static double clock_s(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* libbpf's messages: none. */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
    (void)level;
    (void)fmt;
    (void)ap;
    return 0;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 0;

    if (rounds <= 0 || argc < 3) {
        fprintf(stderr, "usage: bpf_load ROUNDS OBJ...\n");
        return 2;
    }
    libbpf_set_print(quiet);
    for (int r = 0; r < rounds; r++)
        for (int i = 2; i < argc; i++) {
            double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
            struct bpf_object *o = bpf_object__open_file(argv[i], NULL);
            /* the walks: a 32 MiB ring buffer before, a ring per CPU now (as rocsys-top) */
            struct bpf_map *m = o ? bpf_object__find_map_by_name(o, "events") : NULL;
            struct bpf_map *w = o ? bpf_object__find_map_by_name(o, "walks") : NULL;
            if ((!m && !w) || (m && bpf_map__set_max_entries(m, 32u << 20)) ||
                (w && bpf_map__set_max_entries(w, (unsigned)libbpf_num_possible_cpus())) ||
                bpf_object__load(o)) {
                fprintf(stderr, "bpf_load: %s: not loaded\n", argv[i]);
                return 1;
            }
            printf("%s %.1f %.1f\n", argv[i], (clock_s(CLOCK_MONOTONIC) - t0) * 1e3,
                   (clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0) * 1e3);
            bpf_object__close(o);
        }
    return 0;
}
