// What one test plugin of tests/registry is: test_backend.cpp is compiled once for all of them, and
// each plugin links its own test_variant.cpp, compiled with that plugin's TEST_* definitions
// (tests/registry/CMakeLists.txt):
//   TEST_ID, TEST_RANK, TEST_CAPS          the registration
//   TEST_EXTRA_OPS                          space-separated ops declared besides the base set
//   TEST_CREATE_FAILS                       create throws VYRE_ERR_NO_DEVICE
//   TEST_THROWS                             calls throw non-vyre exceptions (the kit must catch);
//                                           compile only for workgroup_size[0] == 7
//   TEST_NULL_SLOT                          the registered table has a NULL slot
#pragma once

#include <cstdint>

struct TestVariant {
  const char* id;
  std::uint32_t rank;
  const char* extra_ops;
  std::uint64_t capabilities;
  bool create_fails;
  bool throws;
  bool null_slot;
};

extern const TestVariant kTestVariant;
