#include "runtime/module_cache.hpp"

namespace vyre::cuda {
namespace {

// Get `key` from `cache` or make it with `make()`, with the lock held only to look up and insert:
// one caller makes each key, concurrent callers of that key wait for it, other keys proceed.
// A failure is rethrown to every waiter and not cached.
template <class Value, class Make>
Value get_or_make(std::mutex& mutex, std::map<std::string, std::shared_future<Value>>& cache,
                  const std::string& key, std::atomic<std::uint64_t>& hits,
                  std::atomic<std::uint64_t>& misses, Make&& make) {
  std::unique_lock lock(mutex);
  auto found = cache.find(key);
  if (found != cache.end()) {
    Telemetry::add(hits);
    std::shared_future<Value> ready = found->second;
    lock.unlock();
    return ready.get();
  }
  Telemetry::add(misses);
  std::promise<Value> promise;
  cache.emplace(key, promise.get_future().share());
  lock.unlock();
  try {
    Value value = make();
    promise.set_value(value);
    return value;
  } catch (...) {
    promise.set_exception(std::current_exception());
    lock.lock();
    cache.erase(key);
    throw;
  }
}

}  // namespace

std::string module_cache_key(const std::string& fingerprint, const Target& target,
                             const LowerOptions& options) {
  std::string key = fingerprint + "|" + target.name() + "|" + kCodegenConfig + (options.sharded ? "|sharded" : "");
  if (const auto& wg = options.workgroup) key += "|wg=" + std::to_string((*wg)[0]) + "x" + std::to_string((*wg)[1]) + "x" + std::to_string((*wg)[2]);
  if (!options.optimize) {
    key += "|noopt";
  } else if (!options.covering.empty()) {
    key += "|cover=";
    for (std::size_t i = 0; i < options.covering.size(); ++i) {
      if (i > 0) key += ',';
      key += std::to_string(options.covering[i]);
    }
  }
  return key;
}

std::shared_ptr<const LoweredProgram> lowered_program(const std::string& key, const Program& program,
                                                      const Target& target, const LowerOptions& options,
                                                      Telemetry& telemetry) {
  // Process-wide; modules hold their own references to what they use.
  static std::mutex mutex;
  static std::map<std::string, std::shared_future<std::shared_ptr<const LoweredProgram>>> cache;
  return get_or_make(mutex, cache, key, telemetry.ptx_hits, telemetry.ptx_misses, [&] {
    return std::make_shared<const LoweredProgram>(lower(program, target, options));
  });
}

ModuleCache::ModuleCache(const Context& context, Telemetry& telemetry, Target target, bool optimize)
    : context_(context), telemetry_(telemetry), target_(target), optimize_(optimize) {}

ModuleCache::~ModuleCache() {
  for (auto& [key, entry] : modules_) {
    if (entry.wait_for(std::chrono::seconds(0)) != std::future_status::ready) continue;
    try {
      unload_module(context_.driver(), *entry.get());
    } catch (...) {
      // A failed load left nothing to unload.
    }
  }
}

std::shared_ptr<const LoadedModule> ModuleCache::get(const Program& program, const std::string& fingerprint,
                                                     const LowerOptions& requested) {
  LowerOptions options = requested;
  options.optimize = options.optimize && optimize_;
  const std::string key = module_cache_key(fingerprint, target_, options);
  return get_or_make(mutex_, modules_, key, telemetry_.module_hits, telemetry_.module_misses, [&] {
    auto lowered = lowered_program(key, program, target_, options, telemetry_);
    context_.bind();
    return std::make_shared<LoadedModule>(
        load_module(context_.driver(), std::move(lowered), fingerprint.substr(0, 16)));
  });
}

std::size_t ModuleCache::size() const {
  std::lock_guard lock(mutex_);
  return modules_.size();
}

}  // namespace vyre::cuda
