/* Batch-mode frames from a real model: feed the model through its input API with this test
 * binary's own modules (dl_iterate_phdr) and samples at the addresses of known functions,
 * then check the plain-text frame: sections, functions, percentages, no escape codes. */
#define _GNU_SOURCE 1
#include "model/model.h"
#include "tui/tui.h"

#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

/* Known functions whose addresses make up the samples. Distinct bodies, never inlined, so
 * each has its own address and symbol. */
int tb_outer_root(int x);
int tb_middle_work(int x);
int tb_leaf_alpha(int x);
int tb_leaf_beta(int x);
int tb_leaf_gamma(int x);

static volatile int sink;

__attribute__((noinline)) int tb_leaf_alpha(int x)
{
    sink = x * 3 + 1;
    return sink;
}

__attribute__((noinline)) int tb_leaf_beta(int x)
{
    sink = x * 5 + 2;
    return sink;
}

__attribute__((noinline)) int tb_leaf_gamma(int x)
{
    sink = x * 7 + 3;
    return sink;
}

__attribute__((noinline)) int tb_middle_work(int x)
{
    return tb_leaf_alpha(x) + tb_leaf_beta(x + 1) + 11;
}

__attribute__((noinline)) int tb_outer_root(int x)
{
    return tb_middle_work(x) + tb_leaf_gamma(x + 2) + 13;
}

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Tell the model about every object mapped in this process. */
static int add_module(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct model *m = arg;
    uint64_t lo = UINT64_MAX, hi = 0;
    const uint8_t *build_id = NULL;
    size_t build_id_len = 0;
    char exe[4096];
    const char *path = info->dlpi_name;

    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD) {
            uint64_t s = info->dlpi_addr + ph->p_vaddr;
            if (s < lo)
                lo = s;
            if (s + ph->p_memsz > hi)
                hi = s + ph->p_memsz;
        } else if (ph->p_type == PT_NOTE && !build_id) {
            const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
            const uint8_t *end = p + ph->p_memsz;
            while (p + sizeof(ElfW(Nhdr)) <= end) {
                const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
                const uint8_t *name = p + sizeof(*nh);
                const uint8_t *desc = name + ((nh->n_namesz + 3) & ~3u);
                if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
                    memcmp(name, "GNU", 4) == 0) {
                    build_id = desc;
                    build_id_len = nh->n_descsz;
                    break;
                }
                p = desc + ((nh->n_descsz + 3) & ~3u);
            }
        }
    }
    if (!path || !*path) { /* the main program */
        ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        if (n <= 0)
            return 0;
        exe[n] = '\0';
        path = exe;
    }
    if (path[0] != '/' || lo >= hi)
        return 0; /* the vDSO and friends */
    model_module(m, (uint32_t)getpid(), path, info->dlpi_addr, lo, hi, build_id, build_id_len);
    return 0;
}

/* One sample of the stack leaf <- middle... <- root (innermost first): the leaf is an exact
 * pc, the callers are return addresses (pointing just after a call). */
static void sample(struct model *m, uint32_t tid, uint64_t t, const void *const *fns, int n)
{
    uint64_t frames[8];

    for (int i = 0; i < n; i++)
        frames[i] = (uint64_t)(uintptr_t)fns[i] + (i == 0 ? 0 : 4);
    int rc = model_sample(m, (uint32_t)getpid(), tid, t, frames, (uint32_t)n, 1);
    CHECK(rc == 0);
}

/* The line of section `section` (a "== X" prefix) containing needle, or NULL. */
static const char *find_line(const char *text, const char *section, const char *needle, char *line,
                             size_t n)
{
    const char *s = strstr(text, section);

    if (!s)
        return NULL;
    s = strchr(s, '\n');
    while (s && s[1] && strncmp(s + 1, "== ", 3) != 0) {
        const char *b = s + 1, *e = strchr(b, '\n');
        size_t len = e ? (size_t)(e - b) : strlen(b);
        if (len < n) {
            memcpy(line, b, len);
            line[len] = '\0';
            if (strstr(line, needle))
                return line;
        }
        s = e;
    }
    return NULL;
}

/* Number of data rows of a section (lines after the heading and column line). */
static int section_rows(const char *text, const char *section)
{
    const char *s = strstr(text, section);
    int rows = -1; /* the column headings line */

    if (!s)
        return -2;
    s = strchr(s, '\n');
    while (s && s[1] && s[1] != '\n' && strncmp(s + 1, "== ", 3) != 0) {
        rows++;
        s = strchr(s + 1, '\n');
    }
    return rows;
}

/* Check a call-tree or hot row: its first three columns. */
static void check_row(const char *line, double a, double b, unsigned long long samples)
{
    double x = -1, y = -1;
    unsigned long long c = 0;

    CHECK(line != NULL);
    if (!line)
        return;
    CHECK(sscanf(line, "%lf %lf %llu", &x, &y, &c) == 3);
    if (x != a || y != b || c != samples) {
        fprintf(stderr, "row \"%s\": want %.1f %.1f %llu\n", line, a, b, samples);
        check_failed++;
    }
}

/* Column (0-based) where the function name starts on a call-tree row. */
static int name_column(const char *line, const char *name)
{
    const char *p = strstr(line, name);
    return p ? (int)(p - line) : -1;
}

int main(void)
{
    struct model *m = model_new();
    struct model_session *s = model_session(m);
    uint32_t pid = (uint32_t)getpid(), tid = pid, tid2 = pid + 100000;
    uint64_t t0 = now_ns();
    char *text = NULL, line[1024], line2[1024];
    size_t len = 0;
    FILE *f;
    const void *alpha[] = {(const void *)tb_leaf_alpha, (const void *)tb_middle_work,
                           (const void *)tb_outer_root};
    const void *beta[] = {(const void *)tb_leaf_beta, (const void *)tb_middle_work,
                          (const void *)tb_outer_root};
    const void *gamma[] = {(const void *)tb_leaf_gamma, (const void *)tb_outer_root};

    char exe[4096];
    ssize_t exe_len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

    exe[exe_len > 0 ? exe_len : 0] = '\0';
    sink = tb_outer_root(1); /* the functions are used, not just referenced */
    model_set_root_pid(m, pid);
    model_proc_start(m, pid, (uint32_t)getppid(), exe, "test_tui_batch --fake", t0);
    model_thread_seen(m, pid, tid, "tb-main", t0);
    model_thread_seen(m, pid, tid2, "tb-worker", t0);
    dl_iterate_phdr(add_module, m);

    /* 60 alpha, 30 beta (both under middle), 10 gamma: 100 samples */
    for (int i = 0; i < 60; i++)
        sample(m, tid, t0 + (uint64_t)i * 1000000, alpha, 3);
    for (int i = 0; i < 30; i++)
        sample(m, tid2, t0 + (uint64_t)i * 1000000, beta, 3);
    for (int i = 0; i < 10; i++)
        sample(m, tid, t0 + (uint64_t)i * 1000000, gamma, 2);
    const char *out1 = "hello from stdout\n", *out2 = "\x1b[31mred error\x1b[0m on stderr\n";
    model_output_append(m, 1, out1, strlen(out1));
    model_output_append(m, 2, out2, strlen(out2));
    model_tick(m, t0 + 100000000);

    f = open_memstream(&text, &len);
    CHECK(f != NULL);
    if (!f)
        return 1;
    tui_batch_frame(f, m, 1, 0);
    fclose(f);
    fputs(text, stdout);

    /* structure */
    CHECK(strncmp(text, "rocsys-top frame 1  elapsed ", 28) == 0);
    CHECK(strstr(text, "target [") != NULL);
    CHECK(strstr(text, "\nmode ") != NULL);
    CHECK(strstr(text, " front end ") != NULL);
    /* never measured (no /proc refresh here): the line names the process, no made-up zeros */
    snprintf(line2, sizeof(line2), "\nprocess %u test_tui_batch:", (unsigned)pid);
    CHECK(strstr(text, line2) != NULL);
    snprintf(line2, sizeof(line2), "\nprocess %u test_tui_batch: cpu", (unsigned)pid);
    CHECK(strstr(text, line2) == NULL);

    CHECK(strstr(text, "\n== Call tree: all threads, since start ==\n"
                       "  INCL%  SELF%  SAMPLES  FUNCTION\n") != NULL);
    CHECK(strstr(text, "\n== Hot functions: all threads, since start ==\n"
                       "  SELF%  INCL%  SAMPLES  FUNCTION  LOCATION\n") != NULL);
    CHECK(strstr(text, "\n== Threads ==\n") != NULL);
    CHECK(strstr(text, "\n== Output (last 2 of 2 lines) ==\n") != NULL);
    CHECK(strchr(text, '\x1b') == NULL);                               /* plain text only */
    CHECK(len >= 2 && text[len - 1] == '\n' && text[len - 2] == '\n'); /* blank line after */
    (void)s;

    /* call tree: [all] 100, outer 100 incl, middle 90, alpha 60 self, beta 30, gamma 10 */
    check_row(find_line(text, "== Call tree", "[all]", line, sizeof(line)), 100.0, 0.0, 100);
    check_row(find_line(text, "== Call tree", "tb_outer_root", line, sizeof(line)), 100.0, 0.0,
              100);
    check_row(find_line(text, "== Call tree", "tb_middle_work", line, sizeof(line)), 90.0, 0.0, 90);
    check_row(find_line(text, "== Call tree", "tb_leaf_alpha", line, sizeof(line)), 60.0, 60.0, 60);
    check_row(find_line(text, "== Call tree", "tb_leaf_beta", line, sizeof(line)), 30.0, 30.0, 30);
    check_row(find_line(text, "== Call tree", "tb_leaf_gamma", line, sizeof(line)), 10.0, 10.0, 10);
    /* depth: alpha is indented 2 more than middle, middle 2 more than outer */
    if (find_line(text, "== Call tree", "tb_middle_work", line, sizeof(line)) &&
        find_line(text, "== Call tree", "tb_leaf_alpha", line2, sizeof(line2)))
        CHECK(name_column(line2, "tb_leaf_alpha") == name_column(line, "tb_middle_work") + 2);
    /* depth-first, children by inclusive: middle, alpha, beta, then gamma */
    {
        const char *ct = strstr(text, "== Call tree");
        const char *a = ct ? strstr(ct, "tb_leaf_alpha") : NULL;
        const char *b = ct ? strstr(ct, "tb_leaf_beta") : NULL;
        const char *g = ct ? strstr(ct, "tb_leaf_gamma") : NULL;
        CHECK(a && b && g && a < b && b < g);
    }
    /* location: module and source file of the definition */
    if (find_line(text, "== Call tree", "tb_leaf_alpha", line, sizeof(line)))
        CHECK(strstr(line, "test_tui_batch") != NULL);

    /* hot functions: self descending */
    check_row(find_line(text, "== Hot functions", "tb_leaf_alpha", line, sizeof(line)), 60.0, 60.0,
              60);
    check_row(find_line(text, "== Hot functions", "tb_leaf_beta", line, sizeof(line)), 30.0, 30.0,
              30);
    check_row(find_line(text, "== Hot functions", "tb_leaf_gamma", line, sizeof(line)), 10.0, 10.0,
              10);
    check_row(find_line(text, "== Hot functions", "tb_outer_root", line, sizeof(line)), 0.0, 100.0,
              0);
    check_row(find_line(text, "== Hot functions", "tb_middle_work", line, sizeof(line)), 0.0, 90.0,
              0);
    {
        const char *hs = strstr(text, "== Hot functions");
        const char *a = hs ? strstr(hs, "tb_leaf_alpha") : NULL;
        const char *b = hs ? strstr(hs, "tb_leaf_beta") : NULL;
        const char *g = hs ? strstr(hs, "tb_leaf_gamma") : NULL;
        CHECK(a && b && g && a < b && b < g);
    }
    if (find_line(text, "== Hot functions", "tb_leaf_beta", line, sizeof(line)))
        CHECK(strstr(line, "test_tui_batch.c:") != NULL);

    /* threads: tid, pid, name, state, cpu, samples */
    {
        unsigned t1 = 0, p1 = 0;
        char name[64], state[8];
        double cpu;
        unsigned long long n = 0;
        CHECK(find_line(text, "== Threads", "tb-main", line, sizeof(line)) != NULL);
        CHECK(sscanf(line, "%u %u %63s %7s %lf %llu", &t1, &p1, name, state, &cpu, &n) == 6);
        CHECK(t1 == tid && p1 == pid && strcmp(name, "tb-main") == 0 && n == 70);
        CHECK(find_line(text, "== Threads", "tb-worker", line, sizeof(line)) != NULL);
        CHECK(sscanf(line, "%u %u %63s %7s %lf %llu", &t1, &p1, name, state, &cpu, &n) == 6);
        CHECK(t1 == tid2 && n == 30);
    }

    /* output: both streams, escape sequences removed */
    CHECK(find_line(text, "== Output", "hello from stdout", line, sizeof(line)) != NULL);
    CHECK(find_line(text, "== Output", "red error on stderr", line, sizeof(line)) != NULL);
    free(text);

    /* max_rows bounds every section; a notice line appears when set */
    snprintf(s->notice, sizeof(s->notice), "static binary: nothing injected");
    text = NULL;
    f = open_memstream(&text, &len);
    CHECK(f != NULL);
    if (!f)
        return 1;
    tui_batch_frame(f, m, 2, 2);
    fclose(f);
    CHECK(strncmp(text, "rocsys-top frame 2  ", 20) == 0);
    CHECK(strstr(text, "\nnotice: static binary: nothing injected\n") != NULL);
    CHECK(section_rows(text, "== Call tree") == 2);
    CHECK(section_rows(text, "== Hot functions") == 2);
    CHECK(section_rows(text, "== Threads") == 2);
    CHECK(strstr(text, "== Output (last 2 of 2 lines) ==") != NULL);
    check_row(find_line(text, "== Hot functions", "tb_leaf_alpha", line, sizeof(line)), 60.0, 60.0,
              60);
    free(text);

    model_free(m);
    return check_summary();
}
