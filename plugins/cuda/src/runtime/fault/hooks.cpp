// Fault injection compiled in: see fault_injection.hpp. Each hookable entry point of the first
// driver a process opens is replaced by a trampoline that counts the call, re-reads
// VYRE_CUDA_FAIL (a change re-arms the rules and restarts their counts) and either returns the
// injected CUresult without calling the driver or forwards the call.
#include <array>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>

#include <fmt/format.h>

#include "runtime/driver.hpp"
#include "runtime/fault/spec.hpp"
#include "runtime/fault_injection.hpp"
#include "vyre/error.hpp"

namespace vyre::cuda::fault {
namespace {

// Metric names live in static storage (kit::Counter).
constexpr std::array kCallMetricNames{
#define VYRE_CUDA_CALL_METRIC(name) "driver_calls." #name,
    VYRE_CUDA_HOOKABLE_ENTRY_POINTS(VYRE_CUDA_CALL_METRIC)
#undef VYRE_CUDA_CALL_METRIC
};

class Injector {
 public:
  // Built by the first hooked call (inside the first create), so it is destroyed after every
  // instance a static object created, and with the plugin when it is unloaded. (Not an immortal
  // `new`: once the plugin is unloaded nothing could reach it, and LeakSanitizer reports it.)
  static Injector& instance() {
    static Injector injector;
    return injector;
  }

  // True when this call of `hook` must fail; *result is then what it returns.
  bool fire(Hook hook, drv::CUresult* result) {
    const auto index = static_cast<std::size_t>(hook);
    calls_[index].fetch_add(1, std::memory_order_relaxed);
    std::lock_guard lock(mutex_);
    refresh();
    for (std::size_t i = 0; i < rules_.size(); ++i) {
      if (rules_[i].hook != hook) continue;
      const std::uint64_t call = ++rule_calls_[i];
      if (!rules_[i].fails(call)) continue;
      *result = rules_[i].result;
      injected_.fetch_add(1, std::memory_order_relaxed);
      kit::log(VYRE_LOG_WARN, fmt::format("cuda: {}: failing call {} of {} with CUresult {}", kFaultEnv, call,
                                          kHookNames[index], *result));
      return true;
    }
    return false;
  }

  std::vector<kit::Counter> metrics() const {
    std::vector<kit::Counter> metrics;
    metrics.push_back({"faults_injected", injected_.load(std::memory_order_relaxed)});
    for (std::size_t i = 0; i < kHookCount; ++i) {
      metrics.push_back({kCallMetricNames[i], calls_[i].load(std::memory_order_relaxed)});
    }
    return metrics;
  }

 private:
  // With mutex_ held: re-arm when VYRE_CUDA_FAIL changed since the last call.
  void refresh() {
    const char* value = std::getenv(kFaultEnv);
    const std::string_view text = value != nullptr ? value : "";
    if (text == seen_) return;
    seen_ = text;
    rules_.clear();
    try {
      rules_ = parse_fault_spec(text);
    } catch (const Error& error) {
      kit::log(VYRE_LOG_ERROR, std::string("cuda: fault injection disarmed: ") + error.what());
    }
    rule_calls_.assign(rules_.size(), 0);
  }

  std::mutex mutex_;
  std::string seen_;
  std::vector<Rule> rules_;
  std::vector<std::uint64_t> rule_calls_;
  std::array<std::atomic<std::uint64_t>, kHookCount> calls_{};
  std::atomic<std::uint64_t> injected_{0};
};

// The trampoline of one entry point: the driver's own function is kept in `real`.
template <Hook H, class Fn>
struct Trampoline;

template <Hook H, class... Args>
struct Trampoline<H, drv::CUresult (*)(Args...)> {
  static inline drv::CUresult (*real)(Args...) = nullptr;
  static drv::CUresult call(Args... args) {
    drv::CUresult injected = drv::CUDA_SUCCESS;
    if (Injector::instance().fire(H, &injected)) return injected;
    return real(args...);
  }
};

// cuStreamEndCapture always ends the capture, also when it fails (the driver then returns no
// graph): an injected failure does the same, so the stream is usable afterwards.
template <>
struct Trampoline<Hook::cuStreamEndCapture, drv::PFN_cuStreamEndCapture> {
  static inline drv::PFN_cuStreamEndCapture real = nullptr;
  static inline drv::PFN_cuGraphDestroy destroy = nullptr;
  static drv::CUresult call(drv::CUstream stream, drv::CUgraph* graph) {
    drv::CUresult injected = drv::CUDA_SUCCESS;
    if (!Injector::instance().fire(Hook::cuStreamEndCapture, &injected)) return real(stream, graph);
    drv::CUgraph captured = nullptr;
    if (real(stream, &captured) == drv::CUDA_SUCCESS && captured != nullptr) destroy(captured);
    *graph = nullptr;
    return injected;
  }
};

}  // namespace

bool compiled_in() { return true; }

void install(Driver& driver) {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;  // one set of trampolines per process
  Trampoline<Hook::cuStreamEndCapture, drv::PFN_cuStreamEndCapture>::destroy = driver.cuGraphDestroy;
#define VYRE_CUDA_INSTALL_HOOK(name)                                 \
  {                                                                  \
    using Hook_##name = Trampoline<Hook::name, drv::PFN_##name>;     \
    Hook_##name::real = driver.name;                                 \
    driver.name = &Hook_##name::call;                                \
  }
  VYRE_CUDA_HOOKABLE_ENTRY_POINTS(VYRE_CUDA_INSTALL_HOOK)
#undef VYRE_CUDA_INSTALL_HOOK
}

void check_environment() {
  const char* value = std::getenv(kFaultEnv);
  if (value != nullptr) parse_fault_spec(value);  // throws VYRE_ERR_INVALID_ARGUMENT
}

std::vector<kit::Counter> metrics() { return Injector::instance().metrics(); }

}  // namespace vyre::cuda::fault
