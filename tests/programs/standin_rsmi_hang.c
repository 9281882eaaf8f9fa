/* A stand-in for librocm_smi64 that never answers, the way ROCm SMI 6.1's rsmi_init loops for
 * ever on stat("/sys/class/drm/cardN/device/vendor") when /sys/class/drm has no card. Loaded by
 * rocsys-top through ROCSYS_ROCM_SMI in tests/e2e/test_gpu_hang.sh.
 *   STANDIN_RSMI_HANG=init (default)  rsmi_init never returns
 *   STANDIN_RSMI_HANG=busy            one GPU; its third busy-percent read never returns
 *   STANDIN_RSMI_MARK=FILE            FILE is created when the call that hangs is entered
 * The call that hangs sleeps in a loop (a stat and 10 ms at a time, little CPU), with every
 * signal blocked: only the end of the process ends it. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

int rsmi_init(uint64_t flags);
int rsmi_shut_down(void);
int rsmi_status_string(int status, const char **text);
int rsmi_num_monitor_devices(uint32_t *n);
int rsmi_dev_name_get(uint32_t dev, char *name, size_t len);
int rsmi_dev_busy_percent_get(uint32_t dev, uint32_t *pct);

#define OK            0
#define NOT_SUPPORTED 2

/* Whether STANDIN_RSMI_HANG asks for the call named what to hang. */
static int hang_in(const char *what)
{
    const char *h = getenv("STANDIN_RSMI_HANG");
    return strcmp(h && *h ? h : "init", what) == 0;
}

/* Never return: mark the entry, then look for a card that is not there, for ever. */
static void hang(void)
{
    const char *mark = getenv("STANDIN_RSMI_MARK");
    struct timespec ten_ms = {0, 10000000};
    sigset_t all;
    struct stat st;
    char path[64];

    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, NULL);
    if (mark && *mark) {
        FILE *f = fopen(mark, "w");
        if (f)
            fclose(f);
    }
    for (unsigned long n = 0;; n++) {
        snprintf(path, sizeof(path), "/nonexistent-drm/card%lu/device/vendor", n);
        stat(path, &st);
        nanosleep(&ten_ms, NULL);
    }
}

int rsmi_init(uint64_t flags)
{
    (void)flags;
    if (hang_in("init"))
        hang();
    return OK;
}

int rsmi_shut_down(void)
{
    return OK;
}

int rsmi_status_string(int status, const char **text)
{
    *text = status == OK ? "RSMI_STATUS_SUCCESS" : "RSMI_STATUS_NOT_SUPPORTED";
    return OK;
}

int rsmi_num_monitor_devices(uint32_t *n)
{
    *n = 1;
    return OK;
}

int rsmi_dev_name_get(uint32_t dev, char *name, size_t len)
{
    (void)dev;
    snprintf(name, len, "Hanging stand-in GPU");
    return OK;
}

int rsmi_dev_busy_percent_get(uint32_t dev, uint32_t *pct)
{
    static int reads;

    (void)dev;
    if (hang_in("busy") && ++reads == 3)
        hang();
    *pct = 42;
    return OK;
}

/* Everything else this backend resolves: not supported (no arguments are touched). */
#define UNSUPPORTED(name)                                                                          \
    int name(void);                                                                                \
    int name(void)                                                                                 \
    {                                                                                              \
        return NOT_SUPPORTED;                                                                      \
    }
UNSUPPORTED(rsmi_dev_pci_id_get)
UNSUPPORTED(rsmi_dev_power_ave_get)
UNSUPPORTED(rsmi_dev_power_cap_get)
UNSUPPORTED(rsmi_dev_temp_metric_get)
UNSUPPORTED(rsmi_dev_memory_usage_get)
UNSUPPORTED(rsmi_dev_memory_total_get)
UNSUPPORTED(rsmi_dev_gpu_clk_freq_get)
UNSUPPORTED(rsmi_dev_fan_rpms_get)
UNSUPPORTED(rsmi_dev_fan_speed_get)
UNSUPPORTED(rsmi_dev_fan_speed_max_get)
UNSUPPORTED(rsmi_compute_process_info_get)
UNSUPPORTED(rsmi_compute_process_info_by_pid_get)
UNSUPPORTED(rsmi_compute_process_gpus_get)
