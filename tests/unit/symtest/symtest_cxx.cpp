// C++ part of the test library: a namespaced function whose name must come out demangled.
#include "symtest.h"

namespace symtest_ns
{
__attribute__((noinline)) int compute(int x)
{
    symtest_sink = x * 5;
    return symtest_sink + 3;
}
} // namespace symtest_ns

extern "C" int symtest_cxx_entry(int x)
{
    return symtest_ns::compute(x);
}
