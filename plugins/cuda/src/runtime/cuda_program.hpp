// A program compiled for this instance: the validated IR (kit::CompiledProgram) plus its loaded
// module. Dispatches reuse it without re-lowering, re-hashing or re-loading anything.
#pragma once

#include <memory>
#include <mutex>

#include "runtime/module_cache.hpp"
#include "runtime/module_loader.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::cuda {

class CudaProgram final : public kit::CompiledProgram {
 public:
  CudaProgram(Program program, std::string fingerprint, std::shared_ptr<const LoadedModule> module)
      : kit::CompiledProgram(std::move(program), std::move(fingerprint)), module_(std::move(module)) {}

  const LoadedModule& module() const { return *module_; }

  // The sharded variant (LowerOptions::sharded) for group dispatches, lowered and loaded from
  // `modules` (this instance's cache) on first use; plain dispatches never pay for it.
  // Thread-safe; a failed load is not kept, so a later call retries.
  const LoadedModule& sharded_module(ModuleCache& modules) const {
    std::lock_guard lock(sharded_mutex_);
    if (!sharded_) sharded_ = modules.get(program(), fingerprint(), LowerOptions{.sharded = true});
    return *sharded_;
  }

 private:
  std::shared_ptr<const LoadedModule> module_;
  mutable std::mutex sharded_mutex_;
  mutable std::shared_ptr<const LoadedModule> sharded_;
};

// The CudaProgram behind a kit program handle (every program of this backend is one).
const CudaProgram& cuda_program(const kit::CompiledProgram& program);

}  // namespace vyre::cuda
