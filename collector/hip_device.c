/* HIP wrappers: device discovery, selection and properties, one HIP_WRAP row each. The 6.x
 * headers rename hipGetDeviceProperties and hipChooseDevice to their R0600 forms (symbol version
 * hip_6.0, a new hipDeviceProp_t layout); the library keeps the old names (and R0000 aliases) for
 * programs built against 5.x headers. The property structs are passed through untouched. */
#define _GNU_SOURCE
#include "hip_wrap.h"

/* clang-format off */
HIP_WRAP(hipGetDeviceCount, "hip_4.2", (int *count), (count), NOTHING, NOTHING)
HIP_WRAP(hipGetDeviceProperties, "hip_4.2", (void *prop, int device), (prop, device), NOTHING, NOTHING)
HIP_WRAP(hipGetDevicePropertiesR0000, "hip_4.2", (void *prop, int device), (prop, device), NOTHING, NOTHING)
HIP_WRAP(hipGetDevicePropertiesR0600, "hip_6.0", (void *prop, int device), (prop, device), NOTHING, NOTHING)
HIP_WRAP(hipChooseDevice, "hip_4.2", (int *device, const void *prop), (device, prop), NOTHING, NOTHING)
HIP_WRAP(hipChooseDeviceR0000, "hip_4.2", (int *device, const void *prop), (device, prop), NOTHING, NOTHING)
HIP_WRAP(hipChooseDeviceR0600, "hip_6.0", (int *device, const void *prop), (device, prop), NOTHING, NOTHING)
HIP_WRAP(hipSetDevice, "hip_4.2", (int device), (device), NOTHING, NOTHING)
HIP_WRAP(hipGetDevice, "hip_4.2", (int *device), (device), NOTHING, NOTHING)
HIP_WRAP(hipDeviceGetAttribute, "hip_4.2", (int *value, int attr, int device), (value, attr, device), NOTHING, NOTHING)
HIP_WRAP(hipInit, "hip_4.2", (unsigned int flags), (flags), NOTHING, NOTHING)
HIP_WRAP(hipDeviceReset, "hip_4.2", (void), (), NOTHING, NOTHING)
/* clang-format on */
