#include "runtime/module_cache.hpp"

namespace vyre::cuda {

std::string module_cache_key(const std::string& fingerprint, const Target& target) {
  return fingerprint + "|" + target.name() + "|" + kCodegenConfig;
}

std::shared_ptr<const LoweredProgram> lowered_program(const std::string& key, const Program& program,
                                                      const Target& target, Telemetry& telemetry) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const LoweredProgram>> cache;
  std::lock_guard lock(mutex);  // lowering is rare and fast enough to serialise
  auto found = cache.find(key);
  if (found != cache.end()) {
    Telemetry::add(telemetry.ptx_hits);
    return found->second;
  }
  Telemetry::add(telemetry.ptx_misses);
  auto lowered = std::make_shared<const LoweredProgram>(lower(program, target));
  cache.emplace(key, lowered);
  return lowered;
}

ModuleCache::ModuleCache(const Context& context, Telemetry& telemetry, Target target)
    : context_(context), telemetry_(telemetry), target_(target) {}

ModuleCache::~ModuleCache() {
  for (auto& [key, module] : modules_) unload_module(context_.driver(), *module);
}

std::shared_ptr<const LoadedModule> ModuleCache::get(const Program& program,
                                                     const std::string& fingerprint) {
  const std::string key = module_cache_key(fingerprint, target_);
  std::lock_guard lock(mutex_);  // a miss JIT-loads under the lock: rare, and never twice per key
  auto found = modules_.find(key);
  if (found != modules_.end()) {
    Telemetry::add(telemetry_.module_hits);
    return found->second;
  }
  Telemetry::add(telemetry_.module_misses);
  auto lowered = lowered_program(key, program, target_, telemetry_);
  auto module = std::make_shared<LoadedModule>(
      load_module(context_.driver(), std::move(lowered), fingerprint.substr(0, 16)));
  modules_.emplace(key, module);
  return module;
}

std::size_t ModuleCache::size() const {
  std::lock_guard lock(mutex_);
  return modules_.size();
}

}  // namespace vyre::cuda
