/* HIP wrappers: device, stream and event synchronization, streams and events. */
#define _GNU_SOURCE
#include "hip_wrap.h"

/* ---- synchronization, streams, events ---- */

COLLECTOR_EXPORT int hipDeviceSynchronize(void)
{
    HIP_BODY(hipDeviceSynchronize, "hip_4.2", int (*)(void), (), NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipStreamSynchronize(void *stream)
{
    HIP_BODY(hipStreamSynchronize, "hip_4.2", int (*)(void *), (stream), NOTHING,
             r_.stream = (uint64_t)(uintptr_t)stream);
}

COLLECTOR_EXPORT int hipEventSynchronize(void *event)
{
    HIP_BODY(hipEventSynchronize, "hip_4.2", int (*)(void *), (event), NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipStreamCreate(void **stream)
{
    HIP_BODY(hipStreamCreate, "hip_4.2", int (*)(void **), (stream), NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipStreamCreateWithFlags(void **stream, unsigned int flags)
{
    HIP_BODY(hipStreamCreateWithFlags, "hip_4.2", int (*)(void **, unsigned int), (stream, flags),
             NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipStreamCreateWithPriority(void **stream, unsigned int flags, int priority)
{
    HIP_BODY(hipStreamCreateWithPriority, "hip_4.2", int (*)(void **, unsigned int, int),
             (stream, flags, priority), NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipStreamDestroy(void *stream)
{
    HIP_BODY(hipStreamDestroy, "hip_4.2", int (*)(void *), (stream), NOTHING,
             r_.stream = (uint64_t)(uintptr_t)stream);
}

COLLECTOR_EXPORT int hipStreamWaitEvent(void *stream, void *event, unsigned int flags)
{
    HIP_BODY(hipStreamWaitEvent, "hip_4.2", int (*)(void *, void *, unsigned int),
             (stream, event, flags), NOTHING, r_.stream = (uint64_t)(uintptr_t)stream);
}

COLLECTOR_EXPORT int hipStreamQuery(void *stream)
{
    HIP_BODY(hipStreamQuery, "hip_4.2", int (*)(void *), (stream), NOTHING,
             r_.stream = (uint64_t)(uintptr_t)stream);
}

/* hipStreamSynchronize, hipStreamQuery and hipStreamWaitEvent in their per-thread default stream
 * forms (the stream they name is recorded as given: 0 is the thread's default stream there). */
COLLECTOR_EXPORT int hipStreamSynchronize_spt(void *stream)
{
    HIP_BODY(hipStreamSynchronize_spt, "hip_5.2", int (*)(void *), (stream), NOTHING,
             r_.stream = (uint64_t)(uintptr_t)stream);
}

COLLECTOR_EXPORT int hipStreamQuery_spt(void *stream)
{
    HIP_BODY(hipStreamQuery_spt, "hip_5.2", int (*)(void *), (stream), NOTHING,
             r_.stream = (uint64_t)(uintptr_t)stream);
}

COLLECTOR_EXPORT int hipStreamWaitEvent_spt(void *stream, void *event, unsigned int flags)
{
    HIP_BODY(hipStreamWaitEvent_spt, "hip_5.2", int (*)(void *, void *, unsigned int),
             (stream, event, flags), NOTHING, r_.stream = (uint64_t)(uintptr_t)stream);
}

COLLECTOR_EXPORT int hipEventCreate(void **event)
{
    HIP_BODY(hipEventCreate, "hip_4.2", int (*)(void **), (event), NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipEventCreateWithFlags(void **event, unsigned int flags)
{
    HIP_BODY(hipEventCreateWithFlags, "hip_4.2", int (*)(void **, unsigned int), (event, flags),
             NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipEventRecord(void *event, void *stream)
{
    HIP_BODY(hipEventRecord, "hip_4.2", int (*)(void *, void *), (event, stream), NOTHING,
             r_.stream = (uint64_t)(uintptr_t)stream);
}

COLLECTOR_EXPORT int hipEventDestroy(void *event)
{
    HIP_BODY(hipEventDestroy, "hip_4.2", int (*)(void *), (event), NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipEventElapsedTime(float *ms, void *start, void *stop)
{
    HIP_BODY(hipEventElapsedTime, "hip_4.2", int (*)(float *, void *, void *), (ms, start, stop),
             NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipEventQuery(void *event)
{
    HIP_BODY(hipEventQuery, "hip_4.2", int (*)(void *), (event), NOTHING, NOTHING);
}

/* ---- the rest of the stream and event family (5.3+ and 6.x names; one row each) ---- */

/* clang-format off */
HIP_WRAP(hipEventRecord_spt, "hip_5.2", (void *event, void *stream), (event, stream), NOTHING, STREAM(stream))
HIP_WRAP(hipEventRecordWithFlags, "hip_6.4", (void *event, void *stream, unsigned int flags), (event, stream, flags), NOTHING, STREAM(stream))
HIP_WRAP(hipStreamAddCallback, "hip_4.2", (void *stream, void *callback, void *data, unsigned int flags), (stream, callback, data, flags), NOTHING, STREAM(stream))
HIP_WRAP(hipStreamAddCallback_spt, "hip_5.3", (void *stream, void *callback, void *data, unsigned int flags), (stream, callback, data, flags), NOTHING, STREAM(stream))
HIP_WRAP(hipStreamBeginCapture, "hip_4.3", (void *stream, int mode), (stream, mode), NOTHING, STREAM(stream))
HIP_WRAP(hipStreamBeginCapture_spt, "hip_5.3", (void *stream, int mode), (stream, mode), NOTHING, STREAM(stream))
HIP_WRAP(hipStreamEndCapture, "hip_4.3", (void *stream, void **graph), (stream, graph), NOTHING, STREAM(stream))
HIP_WRAP(hipStreamEndCapture_spt, "hip_5.3", (void *stream, void **graph), (stream, graph), NOTHING, STREAM(stream))
HIP_WRAP(hipStreamIsCapturing, "hip_4.3", (void *stream, int *status), (stream, status), NOTHING, STREAM(stream))
HIP_WRAP(hipStreamIsCapturing_spt, "hip_5.3", (void *stream, int *status), (stream, status), NOTHING, STREAM(stream))
HIP_WRAP(hipStreamGetFlags, "hip_4.2", (void *stream, unsigned int *flags), (stream, flags), NOTHING, STREAM(stream))
HIP_WRAP(hipStreamGetFlags_spt, "hip_5.2", (void *stream, unsigned int *flags), (stream, flags), NOTHING, STREAM(stream))
HIP_WRAP(hipStreamGetPriority, "hip_4.2", (void *stream, int *priority), (stream, priority), NOTHING, STREAM(stream))
HIP_WRAP(hipStreamGetPriority_spt, "hip_5.2", (void *stream, int *priority), (stream, priority), NOTHING, STREAM(stream))
/* clang-format on */
