/* Test library for test_symbolize: functions at known source lines. The _Static_asserts pin
 * those lines to the numbers in symtest.h: edit both together. */
#include "symtest.h"
/* clang-format off */
volatile int symtest_sink;

__attribute__((noinline)) int symtest_leaf(int x) { _Static_assert(__LINE__ == SYMTEST_LEAF_LINE, "update symtest.h");
    int r = x * 7 + symtest_sink;
    symtest_sink = r;
    return r ^ 0x55;
} _Static_assert(__LINE__ == SYMTEST_LEAF_END_LINE, "update symtest.h");

/* Always inlined into symtest_outer: its code there forms a DW_TAG_inlined_subroutine. */
static inline __attribute__((always_inline)) int symtest_helper(int x) { _Static_assert(__LINE__ == SYMTEST_HELPER_LINE, "update symtest.h");
    int acc = 1;
    for (int i = 0; i < x; i++)
        acc = acc * 31 + (i ^ symtest_sink);
    symtest_sink = acc;
    return acc;
} _Static_assert(__LINE__ == SYMTEST_HELPER_END_LINE, "update symtest.h");

int symtest_outer(int x) { _Static_assert(__LINE__ == SYMTEST_OUTER_LINE, "update symtest.h");
    int a = symtest_leaf(x);
    int b = symtest_helper(a & 63); _Static_assert(__LINE__ == SYMTEST_CALL_LINE, "update symtest.h");
    return symtest_leaf(a + b);
}

/* Not exported: in the stripped copy nothing names it. */
static __attribute__((noinline)) int symtest_hidden(int x)
{
    symtest_sink = x * 13;
    return symtest_sink + 1;
}

void *symtest_hidden_addr(void)
{
    return (void *)symtest_hidden;
}
