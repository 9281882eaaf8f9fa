// Assertions of the layout tests (test_hsa_layout.cpp, test_hip_layout.cpp): the collector's C
// mirror of a runtime's types against the runtime's own C++ headers, value by value.
#ifndef ROCSYS_TESTS_LAYOUT_CHECK_H
#define ROCSYS_TESTS_LAYOUT_CHECK_H

#include <cstddef>
#include <cstdio>

static int failed, passed;

// SAME(mirror, real): the mirror's value (a size, offset or constant) equals the header's
#define SAME(mirror, real)                                                                         \
    do {                                                                                           \
        if ((size_t)(mirror) == (size_t)(real)) {                                                  \
            passed++;                                                                              \
        } else {                                                                                   \
            failed++;                                                                              \
            std::fprintf(stderr, "%s = %zu, the header says %zu\n", #mirror, (size_t)(mirror),     \
                         (size_t)(real));                                                          \
        }                                                                                          \
    } while (0)

// FIELD(mirror, mfield, real, rfield): a field of a mirror struct at the header's offset
#define FIELD(mirror, mfield, real, rfield)                                                        \
    SAME(offsetof(struct mirror, mfield), offsetof(real, rfield))

// layout_summary(): print the counts; the exit status of the test
static int layout_summary()
{
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

#endif
