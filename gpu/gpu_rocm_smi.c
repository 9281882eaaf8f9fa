/* GPU backend "rocm-smi": AMD GPUs through librocm_smi64, loaded with dlopen() so that
 * rocsys-top starts and works where ROCm is not installed. The library is never linked; its
 * header only gives the types. ROCSYS_ROCM_SMI=PATH names the library to load instead of the
 * soname list (e.g. a ROCm installation outside the loader's path). */
#define _GNU_SOURCE
#include "gpu/gpu.h"

#include <dlfcn.h>
#include <errno.h>
#include <rocm_smi/rocm_smi.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Where KFD lists processes (the library reads it; without it, it prints to stderr). */
#define KFD_PROC_DIR "/sys/class/kfd/kfd/proc"

static const char *const sonames[] = {
    "librocm_smi64.so.5",
    "librocm_smi64.so.1",
    "librocm_smi64.so",
    "/opt/rocm/lib/librocm_smi64.so.5",
    "/opt/rocm/lib/librocm_smi64.so.1",
    "/opt/rocm/lib/librocm_smi64.so",
    NULL,
};

/* The library's functions this backend uses. */
static struct {
    void *lib;
    rsmi_status_t (*init)(uint64_t);
    rsmi_status_t (*shut_down)(void);
    rsmi_status_t (*status_string)(rsmi_status_t, const char **);
    rsmi_status_t (*num_monitor_devices)(uint32_t *);
    rsmi_status_t (*dev_name_get)(uint32_t, char *, size_t);
    rsmi_status_t (*dev_pci_id_get)(uint32_t, uint64_t *);
    rsmi_status_t (*dev_busy_percent_get)(uint32_t, uint32_t *);
    rsmi_status_t (*dev_power_ave_get)(uint32_t, uint32_t, uint64_t *);
    rsmi_status_t (*dev_power_cap_get)(uint32_t, uint32_t, uint64_t *);
    rsmi_status_t (*dev_temp_metric_get)(uint32_t, uint32_t, rsmi_temperature_metric_t, int64_t *);
    rsmi_status_t (*dev_memory_usage_get)(uint32_t, rsmi_memory_type_t, uint64_t *);
    rsmi_status_t (*dev_memory_total_get)(uint32_t, rsmi_memory_type_t, uint64_t *);
    rsmi_status_t (*dev_gpu_clk_freq_get)(uint32_t, rsmi_clk_type_t, rsmi_frequencies_t *);
    rsmi_status_t (*dev_fan_rpms_get)(uint32_t, uint32_t, int64_t *);
    rsmi_status_t (*dev_fan_speed_get)(uint32_t, uint32_t, int64_t *);
    rsmi_status_t (*dev_fan_speed_max_get)(uint32_t, uint32_t, uint64_t *);
    rsmi_status_t (*compute_process_info_get)(rsmi_process_info_t *, uint32_t *);
    rsmi_status_t (*compute_process_info_by_pid_get)(uint32_t, rsmi_process_info_t *);
    rsmi_status_t (*compute_process_gpus_get)(uint32_t, uint32_t *, uint32_t *);
    int initialized;
    char error[256];
} smi;

/* The library's name for status st. */
static const char *status_text(rsmi_status_t st)
{
    const char *s = NULL;

    if (smi.status_string && smi.status_string(st, &s) == RSMI_STATUS_SUCCESS && s)
        return s;
    return "unknown status";
}

/* dlopen the library: ROCSYS_ROCM_SMI if set, else the first soname that loads. */
static void *load_library(void)
{
    const char *env = getenv("ROCSYS_ROCM_SMI");
    void *h;

    if (env && *env) {
        h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        if (!h)
            snprintf(smi.error, sizeof(smi.error), "ROCm SMI library not found: %s", dlerror());
        return h;
    }
    for (int i = 0; sonames[i]; i++) {
        h = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
    }
    snprintf(smi.error, sizeof(smi.error),
             "ROCm SMI library not found (librocm_smi64.so.5/.so.1; install librocm-smi64-1 "
             "or set ROCSYS_ROCM_SMI)");
    return NULL;
}

/* The library function called last (the monitor names it when it does not answer). */
static const char *_Atomic calling;

/* Call the library's function fn (a member of smi, rsmi_ + its name), noting which first. */
#define SMI(fn, ...) (atomic_store(&calling, "rsmi_" #fn), smi.fn(__VA_ARGS__))

#define RESOLVE(field, symbol)                                                                     \
    do {                                                                                           \
        *(void **)&smi.field = dlsym(smi.lib, symbol);                                             \
        if (!smi.field) {                                                                          \
            snprintf(smi.error, sizeof(smi.error), "ROCm SMI library lacks %s", symbol);           \
            rc = GPU_NO_LIBRARY;                                                                   \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* Load, resolve, initialize. */
static int rsmi_backend_init(void)
{
    rsmi_status_t st;
    int rc = GPU_OK;

    smi.error[0] = '\0';
    atomic_store(&calling, "dlopen"); /* a library's constructors run there */
    smi.lib = load_library();
    if (!smi.lib)
        return GPU_NO_LIBRARY;
    RESOLVE(init, "rsmi_init");
    RESOLVE(shut_down, "rsmi_shut_down");
    RESOLVE(status_string, "rsmi_status_string");
    RESOLVE(num_monitor_devices, "rsmi_num_monitor_devices");
    RESOLVE(dev_name_get, "rsmi_dev_name_get");
    RESOLVE(dev_pci_id_get, "rsmi_dev_pci_id_get");
    RESOLVE(dev_busy_percent_get, "rsmi_dev_busy_percent_get");
    RESOLVE(dev_power_ave_get, "rsmi_dev_power_ave_get");
    RESOLVE(dev_power_cap_get, "rsmi_dev_power_cap_get");
    RESOLVE(dev_temp_metric_get, "rsmi_dev_temp_metric_get");
    RESOLVE(dev_memory_usage_get, "rsmi_dev_memory_usage_get");
    RESOLVE(dev_memory_total_get, "rsmi_dev_memory_total_get");
    RESOLVE(dev_gpu_clk_freq_get, "rsmi_dev_gpu_clk_freq_get");
    RESOLVE(dev_fan_rpms_get, "rsmi_dev_fan_rpms_get");
    RESOLVE(dev_fan_speed_get, "rsmi_dev_fan_speed_get");
    RESOLVE(dev_fan_speed_max_get, "rsmi_dev_fan_speed_max_get");
    RESOLVE(compute_process_info_get, "rsmi_compute_process_info_get");
    RESOLVE(compute_process_info_by_pid_get, "rsmi_compute_process_info_by_pid_get");
    RESOLVE(compute_process_gpus_get, "rsmi_compute_process_gpus_get");
    st = SMI(init, 0); /* the monitor catches what it prints meanwhile */
    if (st != RSMI_STATUS_SUCCESS) {
        snprintf(smi.error, sizeof(smi.error), "no amdgpu driver: rsmi_init: %s", status_text(st));
        rc = GPU_NO_DRIVER;
        goto out;
    }
    smi.initialized = 1;
out:
    /* the library stays loaded: unloading C++ code with static state is not worth the risk */
    return rc;
}

static int rsmi_backend_discover(void)
{
    uint32_t n = 0;
    rsmi_status_t st = SMI(num_monitor_devices, &n);

    if (st != RSMI_STATUS_SUCCESS) {
        snprintf(smi.error, sizeof(smi.error), "rsmi_num_monitor_devices: %s", status_text(st));
        return 0;
    }
    if (n == 0)
        snprintf(smi.error, sizeof(smi.error), "no AMD GPU found (ROCm SMI sees 0 devices)");
    return n > GPU_MAX_DEVICES ? GPU_MAX_DEVICES : (int)n;
}

static void rsmi_backend_static_info(int dev, struct gpu_static *out)
{
    uint64_t bdf;

    memset(out, 0, sizeof(*out));
    if (SMI(dev_name_get, (uint32_t)dev, out->name, sizeof(out->name)) != RSMI_STATUS_SUCCESS)
        out->name[0] = '\0';
    out->name[sizeof(out->name) - 1] = '\0';
    /* BDF id: domain in bits 32-63, bus 8-15, device 3-7, function 0-2 */
    if (SMI(dev_pci_id_get, (uint32_t)dev, &bdf) == RSMI_STATUS_SUCCESS)
        snprintf(out->pci, sizeof(out->pci), "%04x:%02x:%02x.%x", (unsigned)((bdf >> 32) & 0xffff),
                 (unsigned)((bdf >> 8) & 0xff), (unsigned)((bdf >> 3) & 0x1f),
                 (unsigned)(bdf & 0x7));
}

/* Store v as metric m of s. */
static void put(struct gpu_sample *s, int m, double v)
{
    s->v[m] = v;
    s->valid |= 1u << m;
}

static void rsmi_backend_sample(int dev, uint32_t want, struct gpu_sample *out)
{
    static const uint32_t temps[][2] = {{RSMI_TEMP_TYPE_EDGE, GPU_M_TEMP_EDGE},
                                        {RSMI_TEMP_TYPE_JUNCTION, GPU_M_TEMP_JUNCTION},
                                        {RSMI_TEMP_TYPE_MEMORY, GPU_M_TEMP_MEMORY}};
    uint32_t d = (uint32_t)dev, busy;
    uint64_t u64, max;
    int64_t i64;
    rsmi_frequencies_t f;

#define W(metric) ((want >> (metric)) & 1u)

    if (W(GPU_M_BUSY) && SMI(dev_busy_percent_get, d, &busy) == RSMI_STATUS_SUCCESS)
        put(out, GPU_M_BUSY, busy);
    if (W(GPU_M_POWER) &&
        SMI(dev_power_ave_get, d, 0, &u64) == RSMI_STATUS_SUCCESS) /* microwatts */
        put(out, GPU_M_POWER, (double)u64 / 1e6);
    if (W(GPU_M_POWER_CAP) && SMI(dev_power_cap_get, d, 0, &u64) == RSMI_STATUS_SUCCESS && u64 > 0)
        put(out, GPU_M_POWER_CAP, (double)u64 / 1e6);
    for (size_t i = 0; i < sizeof(temps) / sizeof(temps[0]); i++) /* millidegrees C */
        if (W(temps[i][1]) && SMI(dev_temp_metric_get, d, temps[i][0], RSMI_TEMP_CURRENT, &i64) ==
                                  RSMI_STATUS_SUCCESS)
            put(out, (int)temps[i][1], (double)i64 / 1000.0);
    if (W(GPU_M_VRAM_USED) &&
        SMI(dev_memory_usage_get, d, RSMI_MEM_TYPE_VRAM, &u64) == RSMI_STATUS_SUCCESS)
        put(out, GPU_M_VRAM_USED, (double)u64);
    if (W(GPU_M_VRAM_TOTAL) &&
        SMI(dev_memory_total_get, d, RSMI_MEM_TYPE_VRAM, &u64) == RSMI_STATUS_SUCCESS)
        put(out, GPU_M_VRAM_TOTAL, (double)u64);
    if (W(GPU_M_GTT_USED) &&
        SMI(dev_memory_usage_get, d, RSMI_MEM_TYPE_GTT, &u64) == RSMI_STATUS_SUCCESS)
        put(out, GPU_M_GTT_USED, (double)u64);
    if (W(GPU_M_GTT_TOTAL) &&
        SMI(dev_memory_total_get, d, RSMI_MEM_TYPE_GTT, &u64) == RSMI_STATUS_SUCCESS)
        put(out, GPU_M_GTT_TOTAL, (double)u64);
    if (W(GPU_M_SCLK) &&
        SMI(dev_gpu_clk_freq_get, d, RSMI_CLK_TYPE_SYS, &f) == RSMI_STATUS_SUCCESS &&
        f.current < f.num_supported && f.current < RSMI_MAX_NUM_FREQUENCIES) /* Hz */
        put(out, GPU_M_SCLK, (double)f.frequency[f.current] / 1e6);
    if (W(GPU_M_MCLK) &&
        SMI(dev_gpu_clk_freq_get, d, RSMI_CLK_TYPE_MEM, &f) == RSMI_STATUS_SUCCESS &&
        f.current < f.num_supported && f.current < RSMI_MAX_NUM_FREQUENCIES)
        put(out, GPU_M_MCLK, (double)f.frequency[f.current] / 1e6);
    if (W(GPU_M_FAN_RPM) && SMI(dev_fan_rpms_get, d, 0, &i64) == RSMI_STATUS_SUCCESS && i64 >= 0)
        put(out, GPU_M_FAN_RPM, (double)i64);
    if (W(GPU_M_FAN_PCT) && SMI(dev_fan_speed_get, d, 0, &i64) == RSMI_STATUS_SUCCESS && i64 >= 0 &&
        SMI(dev_fan_speed_max_get, d, 0, &max) == RSMI_STATUS_SUCCESS && max > 0)
        put(out, GPU_M_FAN_PCT, 100.0 * (double)i64 / (double)max);
}
#undef W

static int rsmi_backend_processes(struct gpu_proc *out, int max)
{
    rsmi_process_info_t list[GPU_MAX_PROCS];
    uint32_t n = GPU_MAX_PROCS, devs[GPU_MAX_DEVICES];
    rsmi_status_t st;
    int count = 0;

    if (access(KFD_PROC_DIR, F_OK) != 0)
        return 0;
    st = SMI(compute_process_info_get, list, &n);
    if (st != RSMI_STATUS_SUCCESS && st != RSMI_STATUS_INSUFFICIENT_SIZE)
        return 0; /* more than GPU_MAX_PROCS: the first ones are shown */
    for (uint32_t i = 0; i < n && i < GPU_MAX_PROCS && count < max; i++) {
        struct gpu_proc *p = &out[count++];
        rsmi_process_info_t info;
        uint32_t nd = GPU_MAX_DEVICES;

        memset(p, 0, sizeof(*p));
        p->pid = list[i].process_id;
        if (SMI(compute_process_info_by_pid_get, p->pid, &info) == RSMI_STATUS_SUCCESS) {
            p->valid = 1;
            p->vram_bytes = info.vram_usage;
            p->sdma_us = info.sdma_usage;
            p->cu_pct = info.cu_occupancy;
        }
        if (SMI(compute_process_gpus_get, p->pid, devs, &nd) == RSMI_STATUS_SUCCESS)
            for (uint32_t k = 0; k < nd && k < GPU_MAX_DEVICES; k++)
                if (devs[k] < GPU_MAX_DEVICES)
                    p->gpu_mask |= 1u << devs[k];
    }
    return count;
}

static void rsmi_backend_shutdown(void)
{
    if (smi.initialized)
        (void)(atomic_store(&calling, "rsmi_shut_down"), smi.shut_down());
    smi.initialized = 0;
}

static const char *rsmi_backend_last_error(void)
{
    return smi.error;
}

static const char *rsmi_backend_calling(void)
{
    return atomic_load(&calling);
}

const struct gpu_backend gpu_backend_rocm_smi = {
    .name = "rocm-smi",
    .init = rsmi_backend_init,
    .discover = rsmi_backend_discover,
    .static_info = rsmi_backend_static_info,
    .sample = rsmi_backend_sample,
    .processes = rsmi_backend_processes,
    .shutdown = rsmi_backend_shutdown,
    .last_error = rsmi_backend_last_error,
    .calling = rsmi_backend_calling,
};
