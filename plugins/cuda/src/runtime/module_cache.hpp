// Two caches keyed by program fingerprint + target + codegen configuration:
//   - the PTX cache (process-wide): lower() runs once per key, whichever instance asks;
//   - the module cache (per instance, i.e. per context): the PTX is JIT-loaded once per key.
// A second process reuses the driver's JIT disk cache (jit_cache.hpp) for the machine code.
#pragma once

#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "lowering.hpp"
#include "runtime/context.hpp"
#include "runtime/module_loader.hpp"
#include "runtime/telemetry.hpp"

namespace vyre::cuda {

// Everything besides the program and target that changes the PTX the emitter produces. Bump the
// version whenever the lowering contract changes meaning.
inline constexpr const char* kCodegenConfig = "vyre-ptx-lowering/2";

// "<fingerprint>|sm_90|vyre-ptx-lowering/2", with "|sharded" for LowerOptions::sharded and
// "|wg=XxYxZ" for LowerOptions::workgroup (the optimizer specialises a module to its launch
// workgroup size, so each size is its own module), "|cover=0,2" for LowerOptions::covering (the
// buffers assumed to cover every launch) and "|noopt" without the optimizer (covering ignored).
std::string module_cache_key(const std::string& fingerprint, const Target& target,
                             const LowerOptions& options = {});

// The lowered program for `key`, lowering `program` on a miss. Thread-safe; counts into `telemetry`.
std::shared_ptr<const LoweredProgram> lowered_program(const std::string& key, const Program& program,
                                                      const Target& target, const LowerOptions& options,
                                                      Telemetry& telemetry);

class ModuleCache {
 public:
  // `optimize` false: every module is lowered without the optimizer (VYRE_CUDA_DISABLE_OPTIMIZER).
  ModuleCache(const Context& context, Telemetry& telemetry, Target target, bool optimize = true);
  ~ModuleCache();  // unloads every module; the context must be current
  ModuleCache(const ModuleCache&) = delete;
  ModuleCache& operator=(const ModuleCache&) = delete;

  const Target& target() const { return target_; }

  // The loaded module of `program` (lowered and loaded on a miss). Throws what lower() and
  // load_module() throw; a failure is not cached.
  std::shared_ptr<const LoadedModule> get(const Program& program, const std::string& fingerprint,
                                          const LowerOptions& options = {});

  std::size_t size() const;

 private:
  const Context& context_;
  Telemetry& telemetry_;
  Target target_;
  bool optimize_ = true;
  mutable std::mutex mutex_;
  // A key's entry is inserted before its module is loaded, so concurrent callers wait for the one
  // load while other keys load in parallel; a failed load removes its entry.
  std::map<std::string, std::shared_future<std::shared_ptr<LoadedModule>>> modules_;
};

}  // namespace vyre::cuda
