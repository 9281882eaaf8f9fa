/* The Perfetto reader's clocks (perfetto_read_internal.h): ClockSnapshots (BOOTTIME -
 * MONOTONIC, anchors of sequence-scoped clocks) and each packet's timestamp resolved to BOOTTIME
 * and MONOTONIC the way trace_processor does it. */
#include <stdint.h>

#include "perfetto_read_internal.h"

/* A ClockSnapshot: remember BOOTTIME - MONOTONIC for the sequence. */
/* A ClockSnapshot on sequence sq: BOOTTIME - MONOTONIC, and the anchors of sequence-scoped
 * clocks (their value, unit, incremental flag, offset to BOOTTIME), checked the way
 * trace_processor's ClockSynchronizer::AddSnapshot checks them. */
int pfr_parse_clocks(struct reader *r, struct rseq *sq, const uint8_t *p, size_t n)
{
    const uint8_t *c = p, *cend = p + n;
    struct pb_field f;
    uint64_t boot = 0, mono = 0, id[SEQ_CLOCKS], val[SEQ_CLOCKS], unit[SEQ_CLOCKS];
    int hb = 0, hm = 0, incr[SEQ_CLOCKS], k, nseq = 0;

    while ((k = pb_next(&c, cend, &f)) > 0) {
        uint64_t v[5] = {0};
        int has[5] = {0};
        if (f.field != PF_SNAPSHOT_CLOCKS || f.wire != 2)
            continue;
        if (pfr_parse_flat(f.data, f.len, v, has, NULL, NULL, 5) < 0)
            return -1;
        uint64_t clk = v[PF_CLOCK_ID], ts = v[PF_CLOCK_TIMESTAMP];
        if (clk >= SEQ_CLOCK_FIRST && clk < SEQ_CLOCK_FIRST + SEQ_CLOCKS) {
            if (nseq == SEQ_CLOCKS)
                continue;
            id[nseq] = clk;
            val[nseq] = ts;
            unit[nseq] = v[PF_CLOCK_UNIT_NS] ? v[PF_CLOCK_UNIT_NS] : 1;
            incr[nseq++] = v[PF_CLOCK_INCREMENTAL] != 0;
            continue;
        }
        if (v[PF_CLOCK_INCREMENTAL])
            pfr_violation(r, "clock %llu in a ClockSnapshot is incremental but not sequence-scoped",
                          (unsigned long long)clk);
        if (clk == PF_BUILTIN_BOOTTIME)
            boot = ts, hb = 1;
        else if (clk == PF_BUILTIN_MONOTONIC)
            mono = ts, hm = 1;
    }
    if (k < 0)
        return -1;
    if (hb && hm) {
        sq->have_clock = 1;
        sq->boot_minus_mono = (int64_t)(boot - mono);
    }
    if (hb) {
        if (boot < sq->snap_boot)
            pfr_violation(r, "sequence %u: BOOTTIME goes back between ClockSnapshots", sq->id);
        sq->snap_boot = boot;
    }
    for (int i = 0; i < nseq; i++) {
        struct rclock *ck = &sq->clocks[id[i] - SEQ_CLOCK_FIRST];
        int64_t ns = (int64_t)(val[i] * unit[i]);
        if (ck->anchored && (ck->unit_ns != unit[i] || ck->incremental != incr[i]))
            pfr_violation(r, "sequence %u: clock %llu changes unit or incremental flag", sq->id,
                          (unsigned long long)id[i]);
        if (ck->anchored && ns < ck->snap_ns)
            pfr_violation(r, "sequence %u: clock %llu goes back between ClockSnapshots", sq->id,
                          (unsigned long long)id[i]);
        ck->anchored = 1;
        ck->incremental = incr[i];
        ck->unit_ns = unit[i];
        ck->last_ns = ck->snap_ns = ns;
        if (hb) {
            ck->linked = 1;
            ck->boot_minus_clock = (int64_t)boot - ns;
        } else if (hm && sq->have_clock) {
            ck->linked = 1;
            ck->boot_minus_clock = (int64_t)mono + sq->boot_minus_mono - ns;
        }
    }
    return 0;
}

/* The packet's time in BOOTTIME and MONOTONIC, resolved like trace_processor's tokenizer: the
 * packet's timestamp_clock_id, else the sequence's default, else BOOTTIME; a sequence-scoped
 * incremental clock adds the delta to its running value. Returns -1 (a violation) when the
 * clock has no anchor on the sequence. */
int pfr_resolve_time(struct reader *r, struct rseq *sq, uint64_t ts, uint64_t clock_id,
                     uint64_t *boot, uint64_t *mono)
{
    uint64_t clk = clock_id ? clock_id : sq->default_clock;

    if (clk >= SEQ_CLOCK_FIRST && clk < SEQ_CLOCK_FIRST + SEQ_CLOCKS) {
        struct rclock *ck = &sq->clocks[clk - SEQ_CLOCK_FIRST];
        if (!ck->anchored || !ck->linked) {
            pfr_violation(r, "sequence %u: timestamp on clock %llu %s", sq->id,
                          (unsigned long long)clk,
                          ck->anchored ? "that no ClockSnapshot links to BOOTTIME"
                                       : "before any ClockSnapshot anchors it");
            return -1;
        }
        int64_t ns = (int64_t)(ts * ck->unit_ns); /* wraps like trace_processor's int64 */
        if (ck->incremental)
            ns = ck->last_ns += ns;
        *boot = (uint64_t)(ns + ck->boot_minus_clock);
    } else if (clk == PF_BUILTIN_MONOTONIC) {
        *mono = ts;
        *boot = sq->have_clock ? ts + (uint64_t)sq->boot_minus_mono : ts;
        return 0;
    } else {
        *boot = ts; /* BOOTTIME, or a clock this reader does not convert */
    }
    *mono = (clk == 0 || clk == PF_BUILTIN_BOOTTIME || clk >= SEQ_CLOCK_FIRST) && sq->have_clock
                ? *boot - (uint64_t)sq->boot_minus_mono
                : *boot;
    return 0;
}
