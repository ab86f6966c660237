// The fault-injection table (docs/RELIABILITY.md, "CUDA fault injection"): every hookable driver
// function x every representative operation (fault_ops.hpp) that calls it, through the test build's
// fault plugin (tests/cuda/fault_plugin/libvyre_cuda.so) and VYRE_CUDA_FAIL. For each operation a
// dry run counts its calls of each function; then, on a fresh instance each time, the first call,
// the last call, and every call from the first on are made to fail. Each row must end in either
//   - an error: VYRE_ERR_DEVICE or VYRE_ERR_OUT_OF_MEMORY (create: also NO_DEVICE) whose message
//     names the failed function and has a Fix, with no caller output byte written; or
//   - correct results, where the failure was absorbed by a documented fallback (fault_table.cpp);
// then the same operation, disarmed, must succeed on the same instance, and once the instance is
// destroyed nothing may be left (the caller's leak check: fake-driver counters, device memory).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "fault_ops.hpp"

namespace vyre::cudatest {

// Where the test build's fault plugin is.
std::string fault_plugin_path();

struct FaultTableHooks {
  std::function<host::Backend()> open;               // a fresh instance of the fault plugin
  std::function<void(const FaultOp&)> begin_op;      // e.g. select the fake's kernels (may be empty)
  std::function<std::string()> leaks;                // "" when nothing is left since the table began
};

struct FaultTableReport {
  std::size_t rows = 0;
  std::size_t errors = 0;      // rows that ended in a clear error
  std::size_t absorbed = 0;    // rows whose fault a fallback absorbed
  std::size_t not_fired = 0;   // rows whose call never came (its count changed: GPU timing)
  std::map<std::string, std::size_t> fired;  // per function: rows whose fault fired
  std::vector<std::string> failures;         // "<operation> x <rule>: what went wrong"
};

// Runs every operation of `ops` against every function it calls. `observer` is a long-lived
// instance of the same plugin, used to read the call counters (process-wide).
FaultTableReport run_fault_table(const std::vector<std::unique_ptr<FaultOp>>& ops, const host::Backend& observer,
                                 const FaultTableHooks& hooks);

// The hookable functions, as the plugin reports them (driver_calls.<function> metrics).
std::vector<std::string> hookable_functions(const host::Backend& observer);

// Calls of each hookable function made by this process so far, read through `observer`.
using CallCounts = std::map<std::string, std::uint64_t>;
CallCounts driver_calls(const host::Backend& observer);
// The calls made between two readings, less `reading` (what one reading makes itself); functions
// not called are left out.
CallCounts calls_between(const CallCounts& before, const CallCounts& after, const CallCounts& reading);

}  // namespace vyre::cudatest
