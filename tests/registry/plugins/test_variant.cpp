// This plugin's TestVariant, from its compile definitions (test_variant.hpp).
#include "test_variant.hpp"

#include "vyre/backend_abi.h"

#ifndef TEST_EXTRA_OPS
#define TEST_EXTRA_OPS ""
#endif
#ifndef TEST_CAPS
#define TEST_CAPS 0
#endif

const TestVariant kTestVariant{TEST_ID,   TEST_RANK,          TEST_EXTRA_OPS,     TEST_CAPS,
                               TEST_CREATE_FAILS != 0, TEST_THROWS != 0, TEST_NULL_SLOT != 0};
