/* MPI ranks: which rank this rocsys-top is, and `rocsys-top --merge DIR`, which joins the
 * ranks' recordings (DIR/rank-N/) into one trace and merged text profiles. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session/session.h"
#include "model/model.h"
#include "record/perfetto_read.h"
#include "record/pprof.h"

int session_mpi_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                       "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        char *end;
        if (!v || !*v)
            continue;
        long r = strtol(v, &end, 10);
        if (!*end && r >= 0 && r < 1000000)
            return (int)r;
    }
    return -1;
}

/* Append the trace at path to fd up to its last whole packet (a killed rank's trace may end
 * inside one, which would swallow the next rank's first packets); nothing when it is not a
 * trace. Returns 0 or -errno. */
static int append_file(int fd, const char *path)
{
    int in = open(path, O_RDONLY | O_CLOEXEC), rc = 0;
    struct perfetto_stream *st = perfetto_stream_new();
    uint8_t *data = NULL;
    size_t len = 0, cap = 0;
    ssize_t n;
    char err[256];

    if (in < 0) {
        rc = -errno;
        goto out;
    }
    for (;;) { /* the whole file, then only its whole packets */
        xgrow(&data, &cap, len + 65536, 1);
        if ((n = read(in, data + len, cap - len)) <= 0)
            break;
        len += (size_t)n;
    }
    if (n < 0) {
        rc = -errno;
        goto out;
    }
    long whole = perfetto_stream_feed(st, data, len, err, sizeof(err));
    if (whole > 0 && write(fd, data, (size_t)whole) != whole)
        rc = -EIO;
out:
    if (in >= 0)
        close(in);
    perfetto_stream_free(st);
    free(data);
    return rc;
}

/* A function's self count, summed. */
struct fcount {
    char *name;
    unsigned long long self;
};

/* Add count to name's entry in a small table (linear: merged profiles are read once). */
static void add_count(struct fcount **t, size_t *n, const char *name, unsigned long long count)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*t)[i].name, name) == 0) {
            (*t)[i].self += count;
            return;
        }
    *t = xrealloc(*t, (*n + 1) * sizeof(**t));
    (*t)[*n].name = xstrdup(name);
    (*t)[*n].self = count;
    (*n)++;
}

/* Order by self count, largest first. */
static int by_self(const void *a, const void *b)
{
    const struct fcount *x = a, *y = b;
    return x->self < y->self ? 1 : x->self > y->self ? -1 : strcmp(x->name, y->name);
}

/* Write a hot-function table of t to f. */
static void write_table(FILE *f, const char *title, struct fcount *t, size_t n)
{
    unsigned long long total = 0;
    for (size_t i = 0; i < n; i++)
        total += t[i].self;
    if (n > 1) /* (a rank without samples has no table: t is NULL) */
        qsort(t, n, sizeof(*t), by_self);
    fprintf(f, "\n== Hot functions: %s (%llu samples) ==\n| %-50s | %9s | %6s |\n", title, total,
            "FUNCTION", "SELF", "SELF %");
    for (size_t i = 0; i < n && i < 30; i++)
        fprintf(f, "| %-50s | %9llu | %6.1f |\n", t[i].name, t[i].self,
                total ? 100.0 * (double)t[i].self / (double)total : 0);
}

/* Add rank's profile.pb.gz in dir (when it has one) to p, its samples labelled with the rank. */
static void merge_pprof(struct pprof *p, const char *dir, int rank)
{
    char path[4096], err[256], rs[16];
    struct pprof_label l = {.key = "rank", .str = rs};

    snprintf(rs, sizeof(rs), "%d", rank);
    snprintf(path, sizeof(path), "%s/rank-%d/profile.pb.gz", dir, rank);
    if (access(path, F_OK) != 0)
        return; /* a recording made before profile.pb.gz existed */
    struct pprof_data *d = pprof_read_file(path, err, sizeof(err));
    if (!d) {
        fprintf(stderr, "rocsys-top: --merge: %s; skipped\n", err);
        return;
    }
    pprof_add_data(p, d, &l, 1);
    pprof_data_free(d);
}

/* Order rank numbers. */
static int by_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

int session_merge(const char *dir)
{
    char path[4096], line[65536];
    int ranks[4096], nranks = 0, rc = 1, trace_fd = -1, pprof_fd = -1;
    struct pprof *pp = NULL;
    FILE *folded = NULL, *prof = NULL, *gpu = NULL;
    struct fcount *all = NULL;
    size_t nall = 0;
    DIR *d = opendir(dir);
    struct dirent *de;

    if (!d) {
        fprintf(stderr, "rocsys-top: --merge %s: %s\n", dir, strerror(errno));
        return 1;
    }
    while ((de = readdir(d)) != NULL && nranks < 4096) {
        int r;
        char tail;
        if (sscanf(de->d_name, "rank-%d%c", &r, &tail) == 1 && r >= 0)
            ranks[nranks++] = r;
    }
    closedir(d);
    if (nranks == 0) {
        fprintf(stderr, "rocsys-top: --merge %s: no rank-N recordings there\n", dir);
        return 1;
    }
    qsort(ranks, (size_t)nranks, sizeof(ranks[0]), by_int);
    pp = pprof_new(); /* (after the early returns above: nothing to free there) */
    snprintf(path, sizeof(path), "%s/merged.pftrace", dir);
    trace_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    snprintf(path, sizeof(path), "%s/merged.folded", dir);
    folded = fopen(path, "we");
    snprintf(path, sizeof(path), "%s/merged-profile.txt", dir);
    prof = fopen(path, "we");
    snprintf(path, sizeof(path), "%s/merged-gpu.folded", dir);
    gpu = fopen(path, "we");
    snprintf(path, sizeof(path), "%s/merged.pb.gz", dir);
    pprof_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (trace_fd < 0 || !folded || !prof || !gpu || pprof_fd < 0) {
        fprintf(stderr, "rocsys-top: --merge: cannot write into %s: %s\n", dir, strerror(errno));
        goto out;
    }
    fprintf(prof, "# rocsys-top merged profile: %d ranks from %s\n", nranks, dir);
    for (int i = 0; i < nranks; i++) {
        struct fcount *mine = NULL;
        size_t nmine = 0;
        char title[64];
        FILE *in;

        /* each rank's trace has its own sequence id (1 + rank) and its own pids, and its
         * first packet anchors the sequence-scoped delta clock of that sequence only, so the
         * concatenation is one valid trace with every rank as its own processes */
        snprintf(path, sizeof(path), "%s/rank-%d/trace.pftrace", dir, ranks[i]);
        if (append_file(trace_fd, path) != 0)
            fprintf(stderr, "rocsys-top: --merge: %s missing or unreadable; skipped\n", path);
        /* GPU time by launch path: each rank's lines, prefixed with the rank (a recording
         * made before gpu.folded existed has none) */
        snprintf(path, sizeof(path), "%s/rank-%d/gpu.folded", dir, ranks[i]);
        in = fopen(path, "re");
        while (in && fgets(line, sizeof(line), in))
            fprintf(gpu, "rank-%d;%s", ranks[i], line);
        if (in)
            fclose(in);
        merge_pprof(pp, dir, ranks[i]);
        snprintf(path, sizeof(path), "%s/rank-%d/stacks.folded", dir, ranks[i]);
        in = fopen(path, "re");
        if (!in) {
            fprintf(stderr, "rocsys-top: --merge: %s missing; skipped\n", path);
            continue;
        }
        while (fgets(line, sizeof(line), in)) {
            char *sp = strrchr(line, ' ');
            if (!sp)
                continue;
            unsigned long long count = strtoull(sp + 1, NULL, 10);
            *sp = '\0';
            fprintf(folded, "rank-%d;%s %llu\n", ranks[i], line, count);
            char *leaf = strrchr(line, ';');
            leaf = leaf ? leaf + 1 : line;
            add_count(&mine, &nmine, leaf, count);
            add_count(&all, &nall, leaf, count);
        }
        fclose(in);
        snprintf(title, sizeof(title), "rank %d", ranks[i]);
        write_table(prof, title, mine, nmine);
        for (size_t k = 0; k < nmine; k++)
            free(mine[k].name);
        free(mine);
    }
    write_table(prof, "all ranks", all, nall);
    fprintf(prof, "\n== Ranks: load per rank and its distance from the mean (IMBAL) ==\n");
    if (session_ranks_table(dir, prof) != 0)
        fprintf(prof, "(no rank's trace could be read)\n");
    if ((errno = pprof_write_gz(pp, pprof_fd)) != 0) {
        fprintf(stderr, "rocsys-top: --merge: cannot write %s/merged.pb.gz: %s\n", dir,
                strerror(errno));
        goto out;
    }
    printf("rocsys-top: merged %d ranks into %s/merged.pftrace, merged.folded, "
           "merged-gpu.folded, merged-profile.txt, merged.pb.gz\n",
           nranks, dir);
    rc = 0;
out:
    for (size_t k = 0; k < nall; k++)
        free(all[k].name);
    free(all);
    if (trace_fd >= 0)
        close(trace_fd);
    if (pprof_fd >= 0)
        close(pprof_fd);
    pprof_free(pp);
    if (folded)
        fclose(folded);
    if (prof)
        fclose(prof);
    if (gpu)
        fclose(gpu);
    return rc;
}
