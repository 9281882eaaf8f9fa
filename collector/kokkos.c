/* Kokkos through the Kokkos Tools interface: Kokkos dlopens the library KOKKOS_TOOLS_LIBS names
 * (the launcher sets it to the collector when the user has not) and calls its kokkosp_*
 * entry points. Each kernel (parallel_for / reduce / scan), fence, deep copy and profiling
 * region is a user region of source ROCSYS_REGION_SRC_KOKKOS on the calling thread, named
 * "Kokkos::parallel_for LABEL" and so on: exact counts and host-side times per name in the
 * regions view, slices in the recording, region frames in the call trees. Kokkos calls begin
 * and end of one kernel on the same thread, innermost first. Nothing runs unless Kokkos calls. */
#define _GNU_SOURCE
#include "collector.h"

#include <stdio.h>
#include <string.h>

/* Kokkos_Profiling_C_Interface.h: Kokkos_Profiling_SpaceHandle, passed by value. */
struct kokkos_space_handle {
    char name[64];
};

/* The entry points Kokkos looks up (Kokkos Tools' C interface). */
void kokkosp_init_library(const int load_seq, const uint64_t interface_version,
                          const uint32_t device_count, void *device_info);
void kokkosp_finalize_library(void);
void kokkosp_begin_parallel_for(const char *name, const uint32_t device, uint64_t *kernel_id);
void kokkosp_end_parallel_for(const uint64_t kernel_id);
void kokkosp_begin_parallel_reduce(const char *name, const uint32_t device, uint64_t *kernel_id);
void kokkosp_end_parallel_reduce(const uint64_t kernel_id);
void kokkosp_begin_parallel_scan(const char *name, const uint32_t device, uint64_t *kernel_id);
void kokkosp_end_parallel_scan(const uint64_t kernel_id);
void kokkosp_begin_fence(const char *name, const uint32_t device, uint64_t *kernel_id);
void kokkosp_end_fence(const uint64_t kernel_id);
void kokkosp_push_profile_region(const char *name);
void kokkosp_pop_profile_region(void);
void kokkosp_begin_deep_copy(struct kokkos_space_handle dst_space, const char *dst_name,
                             const void *dst_ptr, struct kokkos_space_handle src_space,
                             const char *src_name, const void *src_ptr, uint64_t size);
void kokkosp_end_deep_copy(void);

#define KOKKOS_NAME_MAX 160 /* "Kokkos::KIND " and the label, cut by the region name limit */

/* Push "Kokkos::KIND LABEL" on the calling thread. */
static void kokkos_push(const char *kind, const char *label)
{
    char name[KOKKOS_NAME_MAX + 32];

    if (!collector_g.enabled)
        return;
    snprintf(name, sizeof(name), "Kokkos::%s %.130s", kind, label && *label ? label : "(unnamed)");
    collector_region_push_name(name, ROCSYS_REGION_SRC_KOKKOS);
}

static void kokkos_pop(void)
{
    if (collector_g.enabled)
        collector_region_pop(ROCSYS_REGION_SRC_KOKKOS);
}

COLLECTOR_EXPORT void kokkosp_init_library(const int load_seq, const uint64_t interface_version,
                                           const uint32_t device_count, void *device_info)
{
    (void)device_info;
    collector_log("Kokkos Tools: load sequence %d, interface %llu, %u devices", load_seq,
                  (unsigned long long)interface_version, (unsigned)device_count);
}

COLLECTOR_EXPORT void kokkosp_finalize_library(void) {}

/* One kernel kind's begin and end: the id Kokkos hands back is not needed (ends come in order
 * on the thread that began). */
#define KOKKOS_KERNEL(kind)                                                                        \
    COLLECTOR_EXPORT void kokkosp_begin_##kind(const char *name, const uint32_t device,            \
                                               uint64_t *kernel_id)                                \
    {                                                                                              \
        (void)device;                                                                              \
        if (kernel_id)                                                                             \
            *kernel_id = 0;                                                                        \
        kokkos_push(#kind, name);                                                                  \
    }                                                                                              \
    COLLECTOR_EXPORT void kokkosp_end_##kind(const uint64_t kernel_id)                             \
    {                                                                                              \
        (void)kernel_id;                                                                           \
        kokkos_pop();                                                                              \
    }

KOKKOS_KERNEL(parallel_for)
KOKKOS_KERNEL(parallel_reduce)
KOKKOS_KERNEL(parallel_scan)
KOKKOS_KERNEL(fence)

COLLECTOR_EXPORT void kokkosp_push_profile_region(const char *name)
{
    if (collector_g.enabled)
        collector_region_push_name(name ? name : "(null)", ROCSYS_REGION_SRC_KOKKOS);
}

COLLECTOR_EXPORT void kokkosp_pop_profile_region(void)
{
    kokkos_pop();
}

/* A deep copy: "Kokkos::deep_copy DST <- SRC" (the views' labels, else their spaces). */
COLLECTOR_EXPORT void kokkosp_begin_deep_copy(struct kokkos_space_handle dst_space,
                                              const char *dst_name, const void *dst_ptr,
                                              struct kokkos_space_handle src_space,
                                              const char *src_name, const void *src_ptr,
                                              uint64_t size)
{
    char label[KOKKOS_NAME_MAX];

    (void)dst_ptr, (void)src_ptr, (void)size;
    if (!collector_g.enabled)
        return;
    dst_space.name[sizeof(dst_space.name) - 1] = '\0';
    src_space.name[sizeof(src_space.name) - 1] = '\0';
    snprintf(label, sizeof(label), "%.60s <- %.60s",
             dst_name && *dst_name ? dst_name : dst_space.name,
             src_name && *src_name ? src_name : src_space.name);
    kokkos_push("deep_copy", label);
}

COLLECTOR_EXPORT void kokkosp_end_deep_copy(void)
{
    kokkos_pop();
}
