/* The Perfetto writer's interning (perfetto_write.h): the tables of what the file already
 * declares (processes, threads and their names, named and counter tracks) and the interned data
 * of the samples (function names, mapping paths, mappings, frames, callstacks), each new entry
 * encoded into the writer's in_* buffers, which go out with the next sample packet. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "perfetto_write.h"

/* Double the table when half full (slots are placed by hash only). */
static void itab_grow(struct itab *t)
{
    if (t->count * 2 < t->cap)
        return;
    size_t cap = t->cap ? t->cap * 2 : 64;
    struct ient *e = xcalloc(cap, sizeof(*e));
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->e[i].used)
            continue;
        size_t j = t->e[i].h & (cap - 1);
        while (e[j].used)
            j = (j + 1) & (cap - 1);
        e[j] = t->e[i];
    }
    free(t->e);
    t->e = e;
    t->cap = cap;
}

/* The slot with hash h for which eq says yes, or the free slot where it would go. */
static struct ient *itab_slot(struct itab *t, uint64_t h,
                              int (*eq)(const struct record_writer *, const struct ient *,
                                        const void *),
                              const struct record_writer *w, const void *key)
{
    itab_grow(t);
    size_t j = h & (t->cap - 1);
    while (t->e[j].used && !(t->e[j].h == h && eq(w, &t->e[j], key)))
        j = (j + 1) & (t->cap - 1);
    return &t->e[j];
}

static void itab_free(struct itab *t)
{
    free(t->e);
}

/* Keep a copy of s; returns its index. */
static uint32_t str_add(struct record_writer *w, const char *s)
{
    if (w->nstrs == w->capstrs) {
        w->capstrs = w->capstrs ? w->capstrs * 2 : 64;
        w->strs = xrealloc(w->strs, w->capstrs * sizeof(*w->strs));
    }
    w->strs[w->nstrs] = xstrdup(s);
    return (uint32_t)w->nstrs++;
}

static int eq_str(const struct record_writer *w, const struct ient *e, const void *key)
{
    return strcmp(w->strs[e->k], key) == 0;
}

uint64_t pfw_track_uuid(uint32_t pid, uint32_t tid)
{
    return hash_mix64(((uint64_t)pid << 32 | tid) ^ 0x726f637379730000ull);
}

/* The hash map key of thread (pid, tid) (tid 0: the process): a bijection of the pair. */
static uint64_t thread_key(uint32_t pid, uint32_t tid)
{
    return hashmap_mix((uint64_t)pid << 32 | tid);
}

int pfw_process_declared(struct record_writer *w, uint32_t pid)
{
    return hashmap_slot(&w->procs, thread_key(pid, 0), 0) != NULL;
}

void pfw_process_mark(struct record_writer *w, uint32_t pid)
{
    uint32_t *slot = hashmap_slot(&w->procs, thread_key(pid, 0), 1);

    if (!*slot) { /* a new one: listed, for the next chunk of a rolling trace */
        xgrow(&w->decl_procs, &w->capdecl_procs, w->ndecl_procs + 1, sizeof(*w->decl_procs));
        w->decl_procs[w->ndecl_procs++] = pid;
    }
    *slot = 1;
}

int pfw_thread_declared(struct record_writer *w, uint32_t pid, uint32_t tid)
{
    return hashmap_slot(&w->threads, thread_key(pid, tid), 0) != NULL;
}

int pfw_thread_set_name(struct record_writer *w, uint32_t pid, uint32_t tid, const char *name)
{
    uint32_t *slot = hashmap_slot(&w->threads, thread_key(pid, tid), 1);

    if (*slot && strcmp(w->strs[*slot - 1], name) == 0)
        return 0;
    if (*slot) {
        free(w->strs[*slot - 1]);
        w->strs[*slot - 1] = xstrdup(name);
    } else {
        *slot = str_add(w, name) + 1;
        xgrow(&w->decl_threads, &w->capdecl_threads, w->ndecl_threads + 1,
              sizeof(*w->decl_threads));
        w->decl_threads[w->ndecl_threads++] = (uint64_t)pid << 32 | tid;
    }
    return 1;
}

/* (perfetto_write.h) The name thread (pid, tid) was declared with ("" if none). */
const char *pfw_thread_name(struct record_writer *w, uint32_t pid, uint32_t tid)
{
    uint32_t *slot = hashmap_slot(&w->threads, thread_key(pid, tid), 0);

    return slot && *slot ? w->strs[*slot - 1] : "";
}

struct track_key {
    uint32_t pid, kind;
    const char *name;
};

static int eq_track(const struct record_writer *w, const struct ient *e, const void *key)
{
    const struct track_key *k = key;
    return e->a == k->pid && e->b == k->kind && strcmp(w->strs[e->k], k->name) == 0;
}

uint64_t pfw_track_uuid_of(const struct ient *e)
{
    return hash_mix64(e->h ^ 0x747261636b000000ull) | 1ull << 63;
}

int pfw_track_intern(struct record_writer *w, uint32_t pid, uint32_t kind, const char *name,
                     const char *unit, uint64_t *uuid)
{
    struct track_key key = {pid, kind, name};
    uint64_t h = hash_mix64(hash_str(name) ^ ((uint64_t)pid << 8 | kind));
    struct ient *e = itab_slot(&w->tracks, h, eq_track, w, &key);

    *uuid = pfw_track_uuid_of(e->used ? e : &(struct ient){.h = h});
    if (e->used)
        return 0;
    *e = (struct ient){.h = h, .a = pid, .b = kind, .used = 1};
    e->k = str_add(w, name);
    e->c = unit ? str_add(w, unit) + 1 : 0; /* (its unit, to declare it again) */
    w->tracks.count++;
    return 1;
}

/* Interned string s in table t (new ones, and ones last written in an earlier chunk, appended
 * to buf as InternedData field; *written says so); returns iid. */
static uint32_t intern_string(struct record_writer *w, struct itab *t, uint32_t *next,
                              struct pb *buf, uint32_t field, const char *s, int *written)
{
    uint64_t h = hash_str(s);
    struct ient *e = itab_slot(t, h, eq_str, w, s);

    *written = 0;
    if (e->used && e->b == w->gen)
        return e->a;
    if (!e->used) {
        *e = (struct ient){.h = h, .a = ++*next, .used = 1};
        e->k = str_add(w, s);
        t->count++;
    }
    e->b = w->gen; /* written in this chunk */
    *written = 1;
    w->tmp.n = 0;
    pb_uint(&w->tmp, PF_STRING_IID, e->a);
    pb_bytes(&w->tmp, PF_STRING_STR, s, strlen(s));
    pb_bytes(buf, field, w->tmp.p, w->tmp.n);
    return e->a;
}

/* Mapping iid of a module basename (its path string gets the same iid). */
static uint32_t intern_module(struct record_writer *w, const char *module)
{
    int written;
    uint32_t iid = intern_string(w, &w->modules, &w->next_module, &w->in_path,
                                 PF_INTERNED_MAPPING_PATHS, module, &written);

    if (written) {
        w->tmp.n = 0;
        pb_uint(&w->tmp, PF_MAPPING_IID, iid);
        pb_uint(&w->tmp, PF_MAPPING_PATH_STRING_IDS, iid);
        pb_bytes(&w->in_map, PF_INTERNED_MAPPINGS, w->tmp.p, w->tmp.n);
    }
    return iid;
}

/* A frame entry in the interned data (iid 0: a new iid); returns its iid. */
static uint32_t new_frame(struct record_writer *w, const char *function, const char *module,
                          uint64_t rel_pc, uint32_t iid)
{
    int written;
    uint32_t name = intern_string(w, &w->names, &w->next_name, &w->in_fn,
                                  PF_INTERNED_FUNCTION_NAMES, function, &written);
    uint32_t map = intern_module(w, module);

    if (!iid)
        iid = ++w->next_frame;

    w->tmp.n = 0;
    pb_uint(&w->tmp, PF_FRAME_IID, iid);
    pb_uint(&w->tmp, PF_FRAME_FUNCTION_NAME_ID, name);
    pb_uint(&w->tmp, PF_FRAME_MAPPING_ID, map);
    pb_uint(&w->tmp, PF_FRAME_REL_PC, rel_pc);
    pb_bytes(&w->in_frame, PF_INTERNED_FRAMES, w->tmp.p, w->tmp.n);
    return iid;
}

/* xgrow, the new elements zeroed. */
static void grow_zeroed(void *pp, size_t *cap, size_t need, size_t elem)
{
    size_t old = *cap;

    xgrow(pp, cap, need, elem);
    if (*cap > old)
        memset((char *)*(void **)pp + old * elem, 0, (*cap - old) * elem);
}

/* The frame iid of model function f: one frame per function (an inlined one is a function of
 * its own), written on first use. */
static uint32_t func_frame(struct record_writer *w, uint32_t f)
{
    const struct model_func *fn;
    char label[MODEL_LABEL_MAX];

    size_t cap = w->cap_func_frames;

    grow_zeroed(&w->func_frames, &w->cap_func_frames, (size_t)f + 1, sizeof(*w->func_frames));
    if (w->cap_func_frames != cap) { /* the generations alongside */
        w->func_gen = xrealloc(w->func_gen, w->cap_func_frames * sizeof(*w->func_gen));
        memset(w->func_gen + cap, 0, (w->cap_func_frames - cap) * sizeof(*w->func_gen));
    }
    if (w->func_frames[f] && w->func_gen[f] == w->gen)
        return w->func_frames[f];
    fn = model_func_at(w->m, (int)f);
    model_python_label(fn, label, sizeof(label));
    w->func_frames[f] =
        new_frame(w, fn ? label : "[unknown]", fn && fn->module ? fn->module : "[unknown]", 0,
                  w->func_frames[f]);
    w->func_gen[f] = w->gen;
    return w->func_frames[f];
}

/* Append a frame iid to the scratch stack. */
static void stack_push(struct record_writer *w, size_t *n, uint32_t iid)
{
    if (*n == w->capstack) {
        w->capstack = w->capstack ? w->capstack * 2 : 256;
        w->stack = xrealloc(w->stack, w->capstack * sizeof(*w->stack));
    }
    w->stack[(*n)++] = iid;
}

/* (perfetto_write.h) The callstack iid of model path p (iid p; UINT32_MAX for a sample without
 * frames), its frames and callstack written to the interned data on first use. */
uint32_t pfw_intern_path(struct record_writer *w, uint32_t p)
{
    size_t n = 0;

    if (p == 0)
        p = UINT32_MAX;
    size_t bit = p == UINT32_MAX ? 0 : p;
    grow_zeroed(&w->stack_written, &w->cap_stack_written, bit / 64 + 1, sizeof(*w->stack_written));
    if (w->stack_written[bit / 64] >> (bit % 64) & 1)
        return p;
    w->stack_written[bit / 64] |= 1ull << (bit % 64);
    w->nstacks++;
    if (p == UINT32_MAX) {
        stack_push(w, &n, new_frame(w, "[unknown]", "[unknown]", 0, 0));
    } else {
        for (uint32_t q = p; q; q = model_path_parent(w->m, q)) /* leaf first */
            stack_push(w, &n, func_frame(w, model_path_func(w->m, q)));
        for (size_t i = 0; i < n / 2; i++) { /* root first */
            uint32_t x = w->stack[i];
            w->stack[i] = w->stack[n - 1 - i];
            w->stack[n - 1 - i] = x;
        }
    }
    w->tmp.n = 0;
    pb_uint(&w->tmp, PF_CALLSTACK_IID, p);
    for (size_t i = 0; i < n; i++)
        pb_uint(&w->tmp, PF_CALLSTACK_FRAME_IDS, w->stack[i]); /* repeated, not packed */
    pb_bytes(&w->in_stack, PF_INTERNED_CALLSTACKS, w->tmp.p, w->tmp.n);
    return p;
}

void pfw_intern_new_gen(struct record_writer *w)
{
    w->gen++;
    if (w->stack_written)
        memset(w->stack_written, 0, w->cap_stack_written * sizeof(*w->stack_written));
}

void pfw_intern_free(struct record_writer *w)
{
    itab_free(&w->names);
    itab_free(&w->modules);
    hashmap_free(&w->threads);
    hashmap_free(&w->procs);
    itab_free(&w->tracks);
    for (size_t i = 0; i < w->nstrs; i++)
        free(w->strs[i]);
    free(w->strs);
    free(w->func_frames);
    free(w->func_gen);
    free(w->decl_threads);
    free(w->decl_procs);
    free(w->stack_written);
    free(w->stack);
}
