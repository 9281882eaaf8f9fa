/* Fuzz target: --replay's readers of session.json and output.log (session/replay_decode.c: the
 * command, sampling facts, exit status, per-process statuses, the GPU list; the output's
 * lines), beside a minimal trace that declares the process and main thread session.json names
 * ("pid"). The input is session.json, then a NUL and output.log (no NUL: no output.log). */
#include "session/session.h"
#include "tests/fuzz/fuzz.h"

/* Append v as a protobuf varint at b[*n]. */
static void put_varint(uint8_t *b, size_t *n, uint64_t v)
{
    do {
        b[(*n)++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
}

/* A TracePacket {track_descriptor (60) {uuid (1), process (3) or thread (4) {pid, tid}}} for
 * pid, framed as a trace's packet; its length at b[*n]. */
static void put_track(uint8_t *b, size_t *n, uint64_t uuid, uint64_t pid, int thread)
{
    uint8_t desc[32], td[48];
    size_t nd = 0, nt = 0;

    desc[nd++] = 0x08; /* pid */
    put_varint(desc, &nd, pid);
    if (thread) {
        desc[nd++] = 0x10; /* tid */
        put_varint(desc, &nd, pid);
    }
    td[nt++] = 0x08; /* uuid */
    put_varint(td, &nt, uuid);
    td[nt++] = thread ? 0x22 : 0x1a;
    put_varint(td, &nt, nd);
    memcpy(td + nt, desc, nd);
    nt += nd;
    b[(*n)++] = 0x0a; /* a packet */
    put_varint(b, n, nt + 3);
    b[(*n)++] = 0xe2; /* track_descriptor: field 60, length-delimited */
    b[(*n)++] = 0x03;
    put_varint(b, n, nt);
    memcpy(b + *n, td, nt);
    *n += nt;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, '\0', size);
    char *json = fuzz_strndup(data, nul ? (size_t)(nul - data) : size);
    const char *pid_at = strstr(json, "\"pid\": ");
    uint64_t pid = pid_at ? strtoull(pid_at + 7, NULL, 10) & 0xffffffffu : 1;
    uint8_t trace[128];
    size_t n = 0;

    put_track(trace, &n, 1, pid, 0);
    put_track(trace, &n, 2, pid, 1);
    session_replay_buffers(trace, n, json, nul ? (const char *)nul + 1 : NULL,
                           nul ? size - (size_t)(nul - data) - 1 : 0, fuzz_devnull());
    free(json);
    return 0;
}
