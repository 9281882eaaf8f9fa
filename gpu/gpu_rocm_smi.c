/* GPU backend "rocm-smi": AMD GPUs through librocm_smi64, loaded with dlopen() so that
 * rocsys-top starts and works where ROCm is not installed. The library is never linked; its
 * header only gives the types, and the one type whose layout changed (rsmi_frequencies_t, in
 * ROCm SMI 6.0) is read by the loaded library's own version. ROCSYS_ROCM_SMI=PATH names the
 * library to load instead of the soname lists (e.g. a ROCm installation outside the loader's
 * path). Where only AMD SMI is installed, its library is used when it carries ROCm SMI's
 * functions (Debian 13's libamd_smi.so.0 does), else the view says what is missing. */
#define _GNU_SOURCE
#include "gpu/gpu.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <rocm_smi/rocm_smi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Where KFD lists processes (the library reads it; without it, it prints to stderr). */
#define KFD_PROC_DIR "/sys/class/kfd/kfd/proc"

/* ROCm SMI: AMD's packages name it .so.7 (ROCm 6.1 and later), .so.6 (6.0), .so.5 (5.x);
 * Debian's is .so.1 (5.2 to 6.4) */
static const char *const sonames[] = {
    "librocm_smi64.so.7",
    "librocm_smi64.so.6",
    "librocm_smi64.so.5",
    "librocm_smi64.so.1",
    "librocm_smi64.so",
    "/opt/rocm/lib/librocm_smi64.so.7",
    "/opt/rocm/lib/librocm_smi64.so.6",
    "/opt/rocm/lib/librocm_smi64.so.5",
    "/opt/rocm/lib/librocm_smi64.so.1",
    "/opt/rocm/lib/librocm_smi64.so",
    NULL,
};

/* AMD SMI: Debian 13's libamd-smi0 (.so.0, 6.1), sid's libamd-smi27, AMD's packages */
static const char *const amd_smi_sonames[] = {
    "libamd_smi.so.0",
    "libamd_smi.so.27",
    "libamd_smi.so.26",
    "libamd_smi.so.25",
    "libamd_smi.so.24",
    "libamd_smi.so",
    "/opt/rocm/lib/libamd_smi.so",
    NULL,
};

/* rsmi_frequencies_t before ROCm SMI 6.0 (32 levels) and since (has_deep_sleep first, 33
 * levels); the library fills the one of its own release, so the buffer has room for either */
struct smi_freqs_v5 {
    uint32_t num_supported;
    uint32_t current;
    uint64_t frequency[32];
};
struct smi_freqs_v6 {
    bool has_deep_sleep;
    uint32_t num_supported;
    uint32_t current;
    uint64_t frequency[33];
};
union smi_freqs {
    struct smi_freqs_v5 v5;
    struct smi_freqs_v6 v6;
    unsigned char room[1024];
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
    rsmi_status_t (*dev_power_get)(uint32_t, uint64_t *, int *); /* 6.0+, optional */
    rsmi_status_t (*version_get)(rsmi_version_t *);              /* optional */
    rsmi_status_t (*dev_power_cap_get)(uint32_t, uint32_t, uint64_t *);
    rsmi_status_t (*dev_temp_metric_get)(uint32_t, uint32_t, rsmi_temperature_metric_t, int64_t *);
    rsmi_status_t (*dev_memory_usage_get)(uint32_t, rsmi_memory_type_t, uint64_t *);
    rsmi_status_t (*dev_memory_total_get)(uint32_t, rsmi_memory_type_t, uint64_t *);
    rsmi_status_t (*dev_gpu_clk_freq_get)(uint32_t, rsmi_clk_type_t, union smi_freqs *);
    rsmi_status_t (*dev_fan_rpms_get)(uint32_t, uint32_t, int64_t *);
    rsmi_status_t (*dev_fan_speed_get)(uint32_t, uint32_t, int64_t *);
    rsmi_status_t (*dev_fan_speed_max_get)(uint32_t, uint32_t, uint64_t *);
    rsmi_status_t (*compute_process_info_get)(rsmi_process_info_t *, uint32_t *);
    rsmi_status_t (*compute_process_info_by_pid_get)(uint32_t, rsmi_process_info_t *);
    rsmi_status_t (*compute_process_gpus_get)(uint32_t, uint32_t *, uint32_t *);
    int initialized;
    int freqs_v6; /* the library's rsmi_frequencies_t is 6.0's */
    char error[320];
} smi;

/* The library's name for status st. */
static const char *status_text(rsmi_status_t st)
{
    const char *s = NULL;

    if (smi.status_string && smi.status_string(st, &s) == RSMI_STATUS_SUCCESS && s)
        return s;
    return "unknown status";
}

/* No ROCm SMI: AMD SMI's library when it carries ROCm SMI's functions; else the error says
 * which AMD SMI is there or that neither is. */
static void *load_amd_smi(void)
{
    const char *amd = NULL;

    for (int i = 0; amd_smi_sonames[i]; i++) {
        void *h = dlopen(amd_smi_sonames[i], RTLD_NOW | RTLD_LOCAL);

        if (!h)
            continue;
        if (dlsym(h, "rsmi_init"))
            return h;
        dlclose(h);
        if (!amd)
            amd = amd_smi_sonames[i];
    }
    if (amd)
        snprintf(smi.error, sizeof(smi.error),
                 "only AMD SMI is installed (%s, without the ROCm SMI functions rocsys-top "
                 "reads): install librocm-smi64-1 (ROCm's rocm-smi-lib) or set ROCSYS_ROCM_SMI",
                 amd);
    else
        snprintf(smi.error, sizeof(smi.error),
                 "ROCm SMI library not found (librocm_smi64.so.7/.6/.5/.1, or libamd_smi; "
                 "install librocm-smi64-1 or set ROCSYS_ROCM_SMI)");
    return NULL;
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
    return load_amd_smi();
}

/* rsmi_init with the library's own stderr chatter captured: its first line completes the
 * reason shown to the user instead of scribbling over the terminal. Runs before any other
 * thread exists, so that borrowing fd 2 is safe. */
static rsmi_status_t init_quietly(char *said, size_t n)
{
    int cap = memfd_create("rocsys-rsmi", MFD_CLOEXEC), saved = -1;
    rsmi_status_t st;
    ssize_t got;

    said[0] = '\0';
    if (cap >= 0)
        saved = dup(STDERR_FILENO);
    if (saved >= 0) {
        fflush(stderr);
        dup2(cap, STDERR_FILENO);
    }
    st = smi.init(0);
    if (saved < 0)
        goto out;
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    got = pread(cap, said, n - 1, 0);
    said[got > 0 ? got : 0] = '\0';
    said[strcspn(said, "\n")] = '\0';
out:
    if (cap >= 0)
        close(cap);
    return st;
}

/* The loaded library's own major version (ROCm SMI 6.0 is 6, ROCm 6.1's is 7; Debian's 5.2.3
 * says 1), 0 when it does not say. */
static unsigned library_major(void)
{
    rsmi_version_t v;

    memset(&v, 0, sizeof(v));
    if (!smi.version_get || smi.version_get(&v) != RSMI_STATUS_SUCCESS)
        return 0;
    return v.major;
}

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
    char said[160];
    rsmi_status_t st;
    int rc = GPU_OK;

    smi.error[0] = '\0';
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
    *(void **)&smi.dev_power_get = dlsym(smi.lib, "rsmi_dev_power_get");
    *(void **)&smi.version_get = dlsym(smi.lib, "rsmi_version_get");
    smi.freqs_v6 = library_major() >= 6;
    st = init_quietly(said, sizeof(said));
    if (st != RSMI_STATUS_SUCCESS) {
        snprintf(smi.error, sizeof(smi.error), "no amdgpu driver: rsmi_init: %s%s%.120s%s",
                 status_text(st), said[0] ? " (" : "", said, said[0] ? ")" : "");
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
    rsmi_status_t st = smi.num_monitor_devices(&n);

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
    if (smi.dev_name_get((uint32_t)dev, out->name, sizeof(out->name)) != RSMI_STATUS_SUCCESS)
        out->name[0] = '\0';
    out->name[sizeof(out->name) - 1] = '\0';
    /* BDF id: domain in bits 32-63, bus 8-15, device 3-7, function 0-2 */
    if (smi.dev_pci_id_get((uint32_t)dev, &bdf) == RSMI_STATUS_SUCCESS)
        snprintf(out->pci, sizeof(out->pci), "%04x:%02x:%02x.%x", (unsigned)((bdf >> 32) & 0xffff),
                 (unsigned)((bdf >> 8) & 0xff), (unsigned)((bdf >> 3) & 0x1f),
                 (unsigned)(bdf & 0x7));
}

/* The current clock of type t in MHz, read in the library's rsmi_frequencies_t layout. */
static int clock_mhz(uint32_t d, rsmi_clk_type_t t, double *mhz)
{
    union smi_freqs f;
    uint64_t hz;
    uint32_t n, cur;

    memset(&f, 0, sizeof(f));
    if (smi.dev_gpu_clk_freq_get(d, t, &f) != RSMI_STATUS_SUCCESS)
        return 0;
    n = smi.freqs_v6 ? f.v6.num_supported : f.v5.num_supported;
    cur = smi.freqs_v6 ? f.v6.current : f.v5.current;
    if (cur >= n || cur >= (smi.freqs_v6 ? 33u : 32u))
        return 0;
    hz = smi.freqs_v6 ? f.v6.frequency[cur] : f.v5.frequency[cur];
    *mhz = (double)hz / 1e6;
    return 1;
}

/* Average power in microwatts; 6.0's generic call where the average is not there (MI300). */
static int power_uw(uint32_t d, uint64_t *uw)
{
    int type = 0;

    if (smi.dev_power_ave_get(d, 0, uw) == RSMI_STATUS_SUCCESS)
        return 1;
    return smi.dev_power_get && smi.dev_power_get(d, uw, &type) == RSMI_STATUS_SUCCESS;
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
    double mhz;

#define W(metric) ((want >> (metric)) & 1u)

    if (W(GPU_M_BUSY) && smi.dev_busy_percent_get(d, &busy) == RSMI_STATUS_SUCCESS)
        put(out, GPU_M_BUSY, busy);
    if (W(GPU_M_POWER) && power_uw(d, &u64))
        put(out, GPU_M_POWER, (double)u64 / 1e6);
    if (W(GPU_M_POWER_CAP) && smi.dev_power_cap_get(d, 0, &u64) == RSMI_STATUS_SUCCESS && u64 > 0)
        put(out, GPU_M_POWER_CAP, (double)u64 / 1e6);
    for (size_t i = 0; i < sizeof(temps) / sizeof(temps[0]); i++) /* millidegrees C */
        if (W(temps[i][1]) &&
            smi.dev_temp_metric_get(d, temps[i][0], RSMI_TEMP_CURRENT, &i64) == RSMI_STATUS_SUCCESS)
            put(out, (int)temps[i][1], (double)i64 / 1000.0);
    if (W(GPU_M_VRAM_USED) &&
        smi.dev_memory_usage_get(d, RSMI_MEM_TYPE_VRAM, &u64) == RSMI_STATUS_SUCCESS)
        put(out, GPU_M_VRAM_USED, (double)u64);
    if (W(GPU_M_VRAM_TOTAL) &&
        smi.dev_memory_total_get(d, RSMI_MEM_TYPE_VRAM, &u64) == RSMI_STATUS_SUCCESS)
        put(out, GPU_M_VRAM_TOTAL, (double)u64);
    if (W(GPU_M_GTT_USED) &&
        smi.dev_memory_usage_get(d, RSMI_MEM_TYPE_GTT, &u64) == RSMI_STATUS_SUCCESS)
        put(out, GPU_M_GTT_USED, (double)u64);
    if (W(GPU_M_GTT_TOTAL) &&
        smi.dev_memory_total_get(d, RSMI_MEM_TYPE_GTT, &u64) == RSMI_STATUS_SUCCESS)
        put(out, GPU_M_GTT_TOTAL, (double)u64);
    if (W(GPU_M_SCLK) && clock_mhz(d, RSMI_CLK_TYPE_SYS, &mhz))
        put(out, GPU_M_SCLK, mhz);
    if (W(GPU_M_MCLK) && clock_mhz(d, RSMI_CLK_TYPE_MEM, &mhz))
        put(out, GPU_M_MCLK, mhz);
    if (W(GPU_M_FAN_RPM) && smi.dev_fan_rpms_get(d, 0, &i64) == RSMI_STATUS_SUCCESS && i64 >= 0)
        put(out, GPU_M_FAN_RPM, (double)i64);
    if (W(GPU_M_FAN_PCT) && smi.dev_fan_speed_get(d, 0, &i64) == RSMI_STATUS_SUCCESS && i64 >= 0 &&
        smi.dev_fan_speed_max_get(d, 0, &max) == RSMI_STATUS_SUCCESS && max > 0)
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
    st = smi.compute_process_info_get(list, &n);
    if (st != RSMI_STATUS_SUCCESS && st != RSMI_STATUS_INSUFFICIENT_SIZE)
        return 0; /* more than GPU_MAX_PROCS: the first ones are shown */
    for (uint32_t i = 0; i < n && i < GPU_MAX_PROCS && count < max; i++) {
        struct gpu_proc *p = &out[count++];
        rsmi_process_info_t info;
        uint32_t nd = GPU_MAX_DEVICES;

        memset(p, 0, sizeof(*p));
        p->pid = list[i].process_id;
        if (smi.compute_process_info_by_pid_get(p->pid, &info) == RSMI_STATUS_SUCCESS) {
            p->valid = 1;
            p->vram_bytes = info.vram_usage;
            p->sdma_us = info.sdma_usage;
            p->cu_pct = info.cu_occupancy;
        }
        if (smi.compute_process_gpus_get(p->pid, devs, &nd) == RSMI_STATUS_SUCCESS)
            for (uint32_t k = 0; k < nd && k < GPU_MAX_DEVICES; k++)
                if (devs[k] < GPU_MAX_DEVICES)
                    p->gpu_mask |= 1u << devs[k];
    }
    return count;
}

static void rsmi_backend_shutdown(void)
{
    if (smi.initialized)
        smi.shut_down();
    smi.initialized = 0;
}

static const char *rsmi_backend_last_error(void)
{
    return smi.error;
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
};
