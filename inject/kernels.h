/* The session's handling of the collector's HIP and HSA records: decode them into the model
 * and into the recording's slice events (inject/kernels.c). */
#ifndef ROCSYS_INJECT_KERNELS_H
#define ROCSYS_INJECT_KERNELS_H

#include <stdint.h>
#include <stdio.h>

struct model;
struct record_set;
struct rocsys_ring_ctl;
struct rocsys_rec_header;

/* 1 if h is a HIP or HSA record (handled here), 0 otherwise. */
int inject_kernels_record(struct model *m, struct record_set *rec,
                          const struct rocsys_ring_ctl *ctl, const struct rocsys_rec_header *h);
/* After a drain: emit the slices whose kernel names are now known; with final (or when they
 * waited too long) emit all of them, unnamed ones with a fallback name. */
void inject_kernels_flush(struct model *m, struct record_set *rec, int final);
/* Headless summary: the top kernels by GPU time (nothing when there were none). */
void inject_kernels_summary(FILE *out, struct model *m, int max_rows);

#endif
