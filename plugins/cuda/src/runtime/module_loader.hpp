// Loading one lowered program into the current context: cuModuleLoadDataEx with the JIT's error
// and info logs captured (a failure's message carries the log), then every entry's function handle
// and resource attributes.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "lowering.hpp"
#include "runtime/driver.hpp"
#include "runtime/kernel_function.hpp"

namespace vyre::cuda {

struct LoadedModule {
  drv::CUmodule module = nullptr;
  std::shared_ptr<const LoweredProgram> lowered;
  KernelFunction whole;
  std::vector<KernelFunction> phases;  // grid_sync programs: one per phase
  std::optional<KernelFunction> elementwise;  // elementwise programs (lowering.hpp)
};

// Throws vyre::Error: VYRE_ERR_INTERNAL when the JIT rejects the PTX (message includes its log),
// VYRE_ERR_DEVICE when the driver is too old for the PTX ISA, VYRE_ERR_OUT_OF_MEMORY.
// `what` names the program in messages (e.g. its fingerprint prefix).
LoadedModule load_module(const Driver& driver, std::shared_ptr<const LoweredProgram> lowered,
                         std::string_view what);

// Unload (errors ignored: used on teardown).
void unload_module(const Driver& driver, LoadedModule& module);

}  // namespace vyre::cuda
