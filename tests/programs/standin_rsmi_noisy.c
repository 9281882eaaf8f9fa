/* A stand-in for librocm_smi64 that chatters: one GPU, most metrics "not supported", and a
 * line on stdout and stderr on every busy-percent read, the way the real library prints
 * "Unable to open queues directory ..." from its process queries. Loaded by rocsys-top through
 * ROCSYS_ROCM_SMI in tests/e2e/test_tui.sh, which checks that the chatter never reaches the
 * screen and is shown after the display closes. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int rsmi_init(uint64_t flags);
int rsmi_shut_down(void);
int rsmi_status_string(int status, const char **text);
int rsmi_num_monitor_devices(uint32_t *n);
int rsmi_dev_name_get(uint32_t dev, char *name, size_t len);
int rsmi_dev_busy_percent_get(uint32_t dev, uint32_t *pct);

#define OK            0
#define NOT_SUPPORTED 2

int rsmi_init(uint64_t flags)
{
    (void)flags;
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
    snprintf(name, len, "Noisy stand-in GPU");
    return OK;
}

int rsmi_dev_busy_percent_get(uint32_t dev, uint32_t *pct)
{
    (void)dev;
    fprintf(stderr, "NOISY-RSMI chatter on stderr\n");
    printf("NOISY-RSMI chatter on stdout\n");
    fflush(stdout);
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
