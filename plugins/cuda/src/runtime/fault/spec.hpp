// VYRE_CUDA_FAIL: which driver calls to fail. The value is a comma-separated list of rules
//   <function>:<n>[+][:<CUresult>]
// fail the n-th call (1-based) of <function>, counted from the first driver call that sees this
// value; with '+', that call and every later one. <function> is a name of hookable.hpp, optionally
// with the versioned suffix of the driver symbol (cuMemAlloc_v2 is cuMemAlloc). The result is
// CUDA_ERROR_OUT_OF_MEMORY (2) for cuMemAlloc and cuMemHostAlloc and CUDA_ERROR_UNKNOWN (999)
// otherwise, unless given. "list" (or "help") lists the hookable functions, as an error.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/driver_api.hpp"
#include "runtime/fault/hookable.hpp"

namespace vyre::cuda::fault {

inline constexpr const char* kFaultEnv = "VYRE_CUDA_FAIL";

struct Rule {
  Hook hook = Hook::cuLaunchKernel;
  std::uint64_t nth = 1;
  bool and_after = false;  // '+': every call from the n-th on
  drv::CUresult result = 0;

  bool fails(std::uint64_t call) const { return call == nth || (and_after && call > nth); }
};

// The rules of `text` (empty: none). Throws vyre::Error VYRE_ERR_INVALID_ARGUMENT naming the bad
// rule and listing the hookable functions, for anything malformed and for "list"/"help".
std::vector<Rule> parse_fault_spec(std::string_view text);

// The result a rule for `hook` injects when it names none.
drv::CUresult default_fault_result(Hook hook);

// "cuDeviceGetCount, cuDeviceGet, ..." (every hookable function, in table order).
std::string hookable_list();

}  // namespace vyre::cuda::fault
