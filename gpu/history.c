/* History rings of GPU readings and their statistics (pure: no threads, no backend). */
#include "gpu/gpu.h"

#include <math.h>
#include <stdlib.h>

#include "base/base.h"

void gpu_history_init(struct gpu_history *h, int cap)
{
    h->cap = cap > 0 ? cap : 1;
    h->v = xcalloc((size_t)h->cap, sizeof(*h->v));
    h->count = 0;
    h->next = 0;
}

void gpu_history_free(struct gpu_history *h)
{
    free(h->v);
    h->v = NULL;
    h->cap = h->count = h->next = 0;
}

void gpu_history_push(struct gpu_history *h, double v, int valid)
{
    h->v[h->next] = valid ? v : NAN;
    h->next = (h->next + 1) % h->cap;
    if (h->count < h->cap)
        h->count++;
}

double gpu_history_at(const struct gpu_history *h, int i)
{
    if (i < 0 || i >= h->count)
        return NAN;
    return h->v[(h->next - 1 - i + 2 * h->cap) % h->cap];
}

void gpu_history_stats(const struct gpu_history *h, int last_n, struct gpu_stats *out)
{
    int n = last_n > 0 && last_n < h->count ? last_n : h->count;
    double sum = 0;

    out->n = 0;
    out->min = out->max = out->avg = 0;
    for (int i = 0; i < n; i++) {
        double v = gpu_history_at(h, i);
        if (isnan(v))
            continue;
        if (out->n == 0 || v < out->min)
            out->min = v;
        if (out->n == 0 || v > out->max)
            out->max = v;
        sum += v;
        out->n++;
    }
    if (out->n)
        out->avg = sum / out->n;
}

void gpu_running_add(struct gpu_running *r, double v)
{
    if (r->n == 0 || v < r->min)
        r->min = v;
    if (r->n == 0 || v > r->max)
        r->max = v;
    r->sum += v;
    r->n++;
}
