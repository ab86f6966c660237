// A program compiled for this instance: the validated IR (kit::CompiledProgram) plus its loaded
// module. Dispatches reuse it without re-lowering, re-hashing or re-loading anything.
//
// Every module is specialised to one launch workgroup size (LowerOptions::workgroup: the optimizer
// drops bounds checks that LocalId's bound proves, and the entries declare .reqntid) and to the
// buffers that cover every launch (LowerOptions::covering: accesses at InvocationId.x lose their
// checks). compile() loads the one for the declared workgroup_size that is offered every global
// buffer as covering and keeps those its proofs use (LoweredProgram::covering), as elementwise
// dispatches allow; a dispatch with a workgroup_override, without the tail guard (an explicit
// grid), with one of those buffers shorter than N, or sharded gets its own variant on first use
// (module_for).
#pragma once

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "runtime/module_cache.hpp"
#include "runtime/module_loader.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::cuda {

class CudaProgram final : public kit::CompiledProgram {
 public:
  CudaProgram(Program program, std::string fingerprint, std::shared_ptr<const LoadedModule> module)
      : kit::CompiledProgram(std::move(program), std::move(fingerprint)), module_(std::move(module)) {}

  // The module compiled with the program: unsharded, for the declared workgroup_size, assuming
  // covering() covers every launch.
  const LoadedModule& module() const { return *module_; }
  // The covering buffers (ascending) module() assumes: those its proofs use.
  const std::vector<std::uint32_t>& covering() const { return module_->lowered->covering; }

  // The variant module for launches that module() does not serve (exec_plan.cpp dispatch_module
  // decides, per dispatch): `workgroup` invocations per workgroup, sharded (group dispatches,
  // LowerOptions::sharded) or not, assuming the `covering` buffers (a subset of covering(); none
  // for sharded) cover every launch. Lowered and loaded from `modules` (this instance's cache) on
  // first use, then kept, so elementwise dispatches never pay for one. Thread-safe; a failed load
  // is not kept, so a later call retries.
  const LoadedModule& module_for(ModuleCache& modules, const std::array<std::uint32_t, 3>& workgroup, bool sharded,
                                 const std::vector<std::uint32_t>& covering) const {
    std::lock_guard lock(variants_mutex_);
    auto& variant = variants_[{sharded, workgroup, covering}];
    if (!variant) {
      variant = modules.get(program(), fingerprint(),
                            LowerOptions{.sharded = sharded, .workgroup = workgroup, .covering = covering});
    }
    return *variant;
  }

 private:
  using VariantKey = std::tuple<bool, std::array<std::uint32_t, 3>, std::vector<std::uint32_t>>;
  std::shared_ptr<const LoadedModule> module_;
  mutable std::mutex variants_mutex_;
  mutable std::map<VariantKey, std::shared_ptr<const LoadedModule>> variants_;
};

// The CudaProgram behind a kit program handle (every program of this backend is one).
const CudaProgram& cuda_program(const kit::CompiledProgram& program);

}  // namespace vyre::cuda
