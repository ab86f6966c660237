// Force-included into the reference_cpu sources of fuzz_dispatch: clang 14 (Debian 12's) lacks
// __builtin_roundeven and __builtin_roundevenf (clang 15 has them); glibc's functions are exact.
#pragma once
#if defined(__clang__) && __clang_major__ < 15
#include <math.h>
#define __builtin_roundevenf(x) roundevenf(x)
#define __builtin_roundeven(x) roundeven(x)
#endif
