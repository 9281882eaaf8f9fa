/* Test library for test_symbolize: known functions at known lines (checked in symtest.c). */
#ifndef ROCSYS_TESTS_SYMTEST_H
#define ROCSYS_TESTS_SYMTEST_H

#define SYMTEST_LEAF_LINE       7  /* declaration of symtest_leaf */
#define SYMTEST_LEAF_END_LINE   11 /* its closing brace */
#define SYMTEST_HELPER_LINE     14 /* declaration of the always-inline helper */
#define SYMTEST_HELPER_END_LINE 20
#define SYMTEST_OUTER_LINE      22 /* declaration of symtest_outer */
#define SYMTEST_CALL_LINE       24 /* where symtest_outer calls the helper */
#define SYMTEST_CXX_MANGLED     "_ZN10symtest_ns7computeEi" /* symtest_ns::compute(int) */

#ifdef __cplusplus
extern "C" {
#endif

extern volatile int symtest_sink;
int symtest_leaf(int x);
int symtest_outer(int x);
int symtest_cxx_entry(int x);
void *symtest_hidden_addr(void); /* address of a static (unexported) function */

#ifdef __cplusplus
}
#endif

#endif
