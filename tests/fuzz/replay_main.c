/* Replays fuzz inputs without libFuzzer: every file named on the command line, or found in a
 * directory named there, goes once through the target's LLVMFuzzerTestOneInput. Linked with
 * one fuzz_*.c in the normal build, so ctest runs the seed corpora and the regression inputs
 * (what the fuzzers once crashed on) through the parsers with gcc, and under ASan+UBSan in
 * build-asan. A missing directory is skipped (a target without regressions). */
#define _GNU_SOURCE
#include <dirent.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz.h"

/* Run the file at path through the target; 0, or -1 when it cannot be read. */
static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data = NULL;
    size_t n = 0, cap = 0, k;

    if (!f) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        return -1;
    }
    do {
        if (n == cap) {
            cap = cap ? cap * 2 : 4096;
            data = realloc(data, cap);
            if (!data)
                abort();
        }
        k = fread(data + n, 1, cap - n, f);
        n += k;
    } while (k > 0);
    fclose(f);
    /* exactly n bytes, so that the sanitizers see a read past the input */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact)
        abort();
    memcpy(exact, data, n);
    free(data);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

/* Skip dot files (.gitkeep) in a directory listing. */
static int visible(const struct dirent *de)
{
    return de->d_name[0] != '.';
}

int main(int argc, char **argv)
{
    int inputs = 0, bad = 0;

    for (int i = 1; i < argc; i++) {
        struct stat st;
        struct dirent **list;
        char path[4096];
        int n;

        if (stat(argv[i], &st) != 0) {
            printf("replay: %s: none\n", argv[i]);
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            bad += run_file(argv[i]) != 0;
            inputs++;
            continue;
        }
        n = scandir(argv[i], &list, visible, alphasort);
        if (n < 0) {
            fprintf(stderr, "replay: cannot list %s\n", argv[i]);
            return 1;
        }
        for (int k = 0; k < n; k++) {
            snprintf(path, sizeof(path), "%s/%s", argv[i], list[k]->d_name);
            bad += run_file(path) != 0;
            inputs++;
            free(list[k]);
        }
        free(list);
        printf("replay: %s: %d inputs\n", argv[i], n);
    }
    printf("replay: %d inputs, none crashed\n", inputs);
    return bad ? 1 : 0;
}
