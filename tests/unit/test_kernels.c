/* Unit tests of the GPU side of the model (model/kernels.c): kernel name cleaning and template
 * folding, the gap histogram, duration statistics, per-kernel aggregation joined with names that
 * arrive late, HIP API counts and errors, copies, multi-device launches, launches without grid and
 * block (hipLaunchByPtr), queue busy time with out-of-order records; which kernel names
 * --progress kernel:NAME matches. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "collector/protocol.h"
#include "model/model.h"

/* The list entry named name, or NULL. */
static const struct model_kernel *find(const struct model_kernel_list *l, const char *name)
{
    for (int i = 0; i < l->count; i++)
        if (strcmp(l->items[i].name, name) == 0)
            return &l->items[i];
    return NULL;
}

static void test_names(void)
{
    char buf[256];

    model_kernel_clean_name("_Z10vector_addPfPKfS1_i.kd", buf, sizeof(buf));
    CHECK_STR(buf, "vector_add(float*, float const*, float const*, int)");
    model_kernel_clean_name("_Z10reduce_sumILi256EfEvPKT0_PS0_i", buf, sizeof(buf));
    CHECK_STR(buf, "void reduce_sum<256, float>(float const*, float*, int)");
    model_kernel_clean_name("saxpy_c.kd", buf, sizeof(buf));
    CHECK_STR(buf, "saxpy_c");
    model_kernel_clean_name("_Znot_valid", buf, sizeof(buf));
    CHECK_STR(buf, "_Znot_valid");
    model_kernel_fold_name("void reduce_sum<256, float>(float const*, float*, int)", buf,
                           sizeof(buf), 0);
    CHECK_STR(buf, "void reduce_sum<...>(float const*, float*, int)");
    model_kernel_fold_name("void k<a<b>, c>(x<y>)", buf, sizeof(buf), 1);
    CHECK_STR(buf, "void k<\xe2\x80\xa6>(x<\xe2\x80\xa6>)");
    model_kernel_fold_name("bool operator<(A<int> const&)", buf, sizeof(buf), 0);
    CHECK_STR(buf, "bool operator<(A<...> const&)");
    model_kernel_fold_name("plain(int)", buf, sizeof(buf), 0);
    CHECK_STR(buf, "plain(int)");
    model_kernel_fold_name("f<int>", buf, 5, 0); /* cut to the buffer, still terminated */
    CHECK(strlen(buf) == 4);
    /* --progress kernel:NAME: the whole name, or without parameters, return type, templates */
    const char *rs = "void reduce_sum<256, float>(float const*, float*, int)";
    CHECK(model_kernel_name_matches(rs, rs));
    CHECK(model_kernel_name_matches(rs, "reduce_sum"));
    CHECK(model_kernel_name_matches(rs, "reduce_sum<256, float>"));
    CHECK(model_kernel_name_matches(rs, "void reduce_sum<256, float>"));
    CHECK(!model_kernel_name_matches(rs, "reduce"));
    CHECK(!model_kernel_name_matches(rs, "float"));
    CHECK(model_kernel_name_matches("vector_add(float*, float const*, float const*, int)",
                                    "vector_add"));
    CHECK(model_kernel_name_matches("saxpy_c", "saxpy_c"));
    CHECK(!model_kernel_name_matches("saxpy_c", "saxpy"));
    CHECK(!model_kernel_name_matches("saxpy_c2", "saxpy_c"));
    CHECK(model_kernel_name_matches("ns::k<int>(int)", "ns::k"));
    CHECK(!model_kernel_name_matches("ns::k<int>(int)", "k"));
}

static void test_gaps_and_durations(void)
{
    struct model_duration d;

    CHECK(model_gap_bucket(0) == 0);
    CHECK(model_gap_bucket(999) == 0);
    CHECK(model_gap_bucket(1000) == 1);
    CHECK(model_gap_bucket(99999) == 2);
    CHECK(model_gap_bucket(100000) == 3);
    CHECK(model_gap_bucket(999999) == 3);
    CHECK_STR(model_gap_bucket_names[3], "gap 100us-1000us");
    CHECK(model_gap_bucket(5000000000ull) == MODEL_GAP_BUCKETS - 1);
    memset(&d, 0, sizeof(d));
    model_duration_add(&d, 2000);
    model_duration_add(&d, 4000);
    model_duration_add(&d, 6000);
    CHECK(d.calls == 3 && d.total_ns == 12000 && d.min_ns == 2000 && d.max_ns == 6000);
    CHECK(model_duration_avg_ns(&d) == 4000.0);
    double sd = model_duration_stddev_ns(&d); /* population: sqrt(8/3) * 1000 */
    CHECK_MSG(sd > 1632.9 && sd < 1633.0, "stddev %f", sd);
}

static void test_aggregation(void)
{
    struct model *m = model_new();
    uint32_t grid[3] = {1024, 1, 1};
    uint16_t block[3] = {64, 1, 1};
    struct model_kernel_list *l;
    const struct model_kernel *k;

    CHECK(!model_gpu_seen(m));
    /* dispatches before the name: shown by kernel object until it comes */
    model_gpu_dispatch(m, 10, 0, 1, 0xa000, 1000, 3000, 0, grid, block);
    l = model_kernels_list(m);
    CHECK(l->count == 1 && find(l, "kernel 0xa000") != NULL);
    model_kernels_list_free(l);
    model_kernel_name(m, 10, 1, 0xa000, "_Z3fooi.kd");
    model_kernel_name(m, 11, 1, 0xb000, "_Z3fooi.kd"); /* same kernel in another process */
    model_gpu_dispatch(m, 10, 0, 1, 0xa000, 4000, 8000, 0, grid, block);
    model_gpu_dispatch(m, 11, 0, 7, 0xb000, 1000, 2000, 0, grid, block);
    model_gpu_dispatch(m, 10, 0, 1, 0xa000, 0, 0, 1, grid, block); /* no valid time */
    /* HIP launches: by name id, merged with the dispatches by name */
    struct model_hip_call c = {.pid = 10,
                               .tid = 10,
                               .api = 1,
                               .result = 0,
                               .start_ns = 100,
                               .end_ns = 400,
                               .name_id = 3,
                               .grid = {16, 1, 1},
                               .block = {64, 1, 1}};
    model_hip_call(m, &c);
    model_hip_call(m, &c);
    model_kernel_name(m, 10, 0, 3, "_Z3fooi");
    c.result = 101;
    c.name_id = 4; /* never named */
    model_hip_call(m, &c);
    l = model_kernels_list(m);
    k = find(l, "foo(int)");
    CHECK(l->count == 2);
    CHECK(k && k->gpu.calls == 3 && k->dispatches == 4 && k->gpu.total_ns == 7000);
    CHECK(k && k->gpu.min_ns == 1000 && k->gpu.max_ns == 4000 && k->hip_launches == 2);
    CHECK(l->gpu_total_ns == 7000);
    CHECK(find(l, "HIP kernel #4") && find(l, "HIP kernel #4")->hip_launches == 1);
    model_kernels_list_free(l);
    CHECK(model_gpu_seen(m));
    CHECK_STR(model_kernel_object_name(m, 11, 0xb000), "foo(int)");
    CHECK(model_kernel_object_name(m, 12, 0xb000) == NULL);
    /* HIP API */
    CHECK(model_hip_api_count(m) == 1);
    CHECK_STR(model_hip_api_at(m, 0)->name, "hipLaunchKernel");
    CHECK(model_hip_api_at(m, 0)->time.calls == 3 && model_hip_api_at(m, 0)->errors == 1);
    CHECK(model_hip_api_at(m, 0)->last_error == 101);
    /* copies */
    struct model_hip_call cp = {
        .pid = 10, .api = 15, .start_ns = 0, .end_ns = 500, .bytes = 4096, .copy_kind = 1};
    model_hip_call(m, &cp);
    model_gpu_copy(m, 10, 1 << 20, 100, 3100, 0);
    CHECK(model_copy_count(m) == 2);
    CHECK_STR(model_copy_at(m, 0)->direction, "HtoD");
    CHECK(model_copy_at(m, 0)->bytes == 4096);
    CHECK(model_copy_at(m, 1)->time.total_ns == 3000);
    CHECK_STR(model_hip_api_name(ROCSYS_HIP_API_MAX + 10), "hipApi#?"); /* past every id */
    model_free(m);
}

static void test_queue_out_of_order(void)
{
    struct model *m = model_new();
    uint32_t grid[3] = {1, 1, 1};
    uint16_t block[3] = {1, 1, 1};
    /* 10 dispatches of 1000 ns, 5000 ns apart, one 200 us gap; delivered in reverse */
    uint64_t start[10];

    for (int i = 0; i < 10; i++)
        start[i] = 1000000 + (uint64_t)i * 6000 + (i >= 5 ? 200000 : 0);
    for (int i = 9; i >= 0; i--)
        model_gpu_dispatch(m, 1, 0, 5, 0x1, start[i], start[i] + 1000, 0, grid, block);
    /* an overlapping one: counts only its part beyond the previous end */
    model_gpu_dispatch(m, 1, 0, 5, 0x1, start[9] + 500, start[9] + 1500, 0, grid, block);
    CHECK(model_gpu_queue_count(m) == 1);
    const struct model_gpu_queue *q = model_gpu_queue_at(m, 0);
    CHECK(q->dispatches == 11);
    CHECK_MSG(q->busy_ns == 10500, "busy %llu", (unsigned long long)q->busy_ns);
    CHECK(q->gaps[1] == 8 && q->gaps[3] == 1);
    CHECK(q->first_start_ns == start[0] && q->last_end_ns == start[9] + 1500);
    model_free(m);
}

/* Multi-device launches count as one launch of their kernel when the collector named it (all
 * entries launch the same kernel), and as none when it did not; array and 2D parameter copies
 * are copies by their recorded direction. */
static void test_multi_device_and_array_copies(void)
{
    struct model *m = model_new();
    struct model_kernel_list *l;
    const struct model_kernel *k;

    CHECK_STR(model_hip_api_name(89), "hipLaunchCooperativeKernelMultiDevice");
    CHECK_STR(model_hip_api_name(90), "hipExtLaunchMultiKernelMultiDevice");
    model_kernel_name(m, 10, 0, 3, "_Z4coopPf");
    struct model_hip_call c = {.pid = 10,
                               .tid = 10,
                               .api = 89,
                               .result = 101,
                               .start_ns = 100,
                               .end_ns = 400,
                               .name_id = 3,
                               .grid = {1, 1, 1},
                               .block = {64, 1, 1}};
    model_hip_call(m, &c);
    c.api = 90; /* entries of different kernels: no name */
    c.name_id = 0;
    model_hip_call(m, &c);
    l = model_kernels_list(m);
    k = find(l, "coop(float*)");
    CHECK(l->count == 1 && k && k->hip_launches == 1);
    model_kernels_list_free(l);
    CHECK(model_hip_api_count(m) == 2);
    struct model_hip_call cp = {.pid = 10,
                                .api = 73, /* hipMemcpyParam2D, host to device */
                                .start_ns = 0,
                                .end_ns = 500,
                                .bytes = 4096,
                                .copy_kind = 1};
    model_hip_call(m, &cp);
    cp.api = 86; /* hipMemcpyAtoH */
    cp.bytes = 256;
    cp.copy_kind = 2;
    model_hip_call(m, &cp);
    CHECK(model_copy_count(m) == 2);
    CHECK_STR(model_copy_at(m, 0)->direction, "HtoD");
    CHECK(model_copy_at(m, 0)->bytes == 4096);
    CHECK_STR(model_copy_at(m, 1)->direction, "DtoH");
    CHECK(model_copy_at(m, 1)->bytes == 256);
    model_free(m);
}

/* hipLaunchByPtr's configuration stays in the runtime: its launch counts for the kernel it names
 * but gives no grid or block (N/A until a launch or dispatch gives them); a 3D set is no copy. */
static void test_launch_by_ptr(void)
{
    struct model *m = model_new();
    struct model_kernel_list *l;
    const struct model_kernel *k;

    CHECK_STR(model_hip_api_name(91), "hipMemset3D");
    CHECK_STR(model_hip_api_name(104), "hipLaunchByPtr");
    model_kernel_name(m, 10, 0, 5, "_Z6legacyPf");
    struct model_hip_call c = {.pid = 10,
                               .tid = 10,
                               .api = 104,
                               .result = 100,
                               .start_ns = 0,
                               .end_ns = 100,
                               .name_id = 5};
    model_hip_call(m, &c);
    l = model_kernels_list(m);
    k = find(l, "legacy(float*)");
    CHECK(l->count == 1 && k && k->hip_launches == 1 && !k->has_dims);
    model_kernels_list_free(l);
    c.api = 1; /* hipLaunchKernel: grid and block known from here on */
    c.grid[0] = 4;
    c.block[0] = 64;
    model_hip_call(m, &c);
    c.api = 104;
    memset(c.grid, 0, sizeof(c.grid));
    memset(c.block, 0, sizeof(c.block));
    model_hip_call(m, &c);
    l = model_kernels_list(m);
    k = find(l, "legacy(float*)");
    CHECK(k && k->hip_launches == 3 && k->has_dims && k->grid[0] == 4 && k->block[0] == 64);
    model_kernels_list_free(l);
    struct model_hip_call set = {
        .pid = 10, .api = 91, .end_ns = 50, .bytes = 16384, .copy_kind = -1};
    model_hip_call(m, &set);
    CHECK(model_copy_count(m) == 0);
    model_free(m);
}

int main(void)
{
    test_names();
    test_gaps_and_durations();
    test_aggregation();
    test_multi_device_and_array_copies();
    test_launch_by_ptr();
    test_queue_out_of_order();
    return check_summary();
}
