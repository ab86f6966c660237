#include "launcher.hpp"

#include <algorithm>
#include <atomic>
#include <cfenv>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "vyre/error.hpp"
#include "worker.hpp"

namespace vyre::refcpu {

namespace {

// The interpreter's float semantics assume the default environment (round to nearest, no
// flush-to-zero, x87 extended precision); a host may run with another one (fesetround, or
// -ffast-math's FTZ/DAZ). Each thread that runs workgroups switches to the default and restores
// the host's environment, exception flags included, when it is done.
class DefaultFloatEnvironment {
 public:
  DefaultFloatEnvironment() {
    std::fegetenv(&saved_);
    std::fesetenv(FE_DFL_ENV);
  }
  ~DefaultFloatEnvironment() { std::fesetenv(&saved_); }
  DefaultFloatEnvironment(const DefaultFloatEnvironment&) = delete;
  DefaultFloatEnvironment& operator=(const DefaultFloatEnvironment&) = delete;

 private:
  std::fenv_t saved_;
};

// Below this many invocations per phase the fork-join costs more than it saves.
constexpr std::uint64_t kParallelInvocations = 16384;

// The first failure of a parallel phase, by lowest workgroup id, so that the report does not
// depend on which thread got there first whenever the same workgroups ran.
class FailureSlot {
 public:
  void record(std::uint64_t workgroup, Error error) {
    std::lock_guard lock(mutex_);
    if (!error_ || workgroup < workgroup_) {
      error_ = std::move(error);
      workgroup_ = workgroup;
    }
    failed_.store(true, std::memory_order_relaxed);
  }
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  void rethrow() {
    if (error_) throw *error_;
  }

 private:
  std::mutex mutex_;
  std::optional<Error> error_;
  std::uint64_t workgroup_ = 0;
  std::atomic<bool> failed_{false};
};

Error as_error(std::exception_ptr failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const Error& e) {
    return e;
  } catch (const std::bad_alloc&) {
    return Error::make(VYRE_ERR_OUT_OF_MEMORY, "reference_cpu ran out of host memory during a dispatch",
                       "dispatch fewer elements or free host memory");
  } catch (const std::exception& e) {
    return Error::make(VYRE_ERR_INTERNAL, fmt::format("reference_cpu failed during a dispatch: {}", e.what()),
                       "report this as a reference_cpu bug with the program attached");
  } catch (...) {
    return Error::make(VYRE_ERR_INTERNAL, "reference_cpu failed during a dispatch with an unknown exception",
                       "report this as a reference_cpu bug with the program attached");
  }
}

class Launch {
 public:
  Launch(const Executable& exe, const LaunchGeometry& geometry, std::span<const MemView> buffers,
         unsigned participants, const StopCondition& stop)
      : exe_(exe), geometry_(geometry), buffers_(buffers), stop_(stop) {
    // Every worker's state is allocated before any workgroup runs, so running out of memory
    // fails the dispatch before it writes anything.
    for (unsigned i = 0; i < participants; ++i)
      workers_.push_back(std::make_unique<Worker>(exe_, geometry_, buffers_, stop_));
  }

  Worker& worker(unsigned slot) { return *workers_[slot]; }

  void serial(std::size_t phase, bool reverse) {
    DefaultFloatEnvironment fenv;
    Worker& w = worker(0);
    std::uint64_t count = geometry_.workgroup_count();
    for (std::uint64_t i = 0; i < count; ++i) {
      stop_.check();
      w.run_workgroup(phase, reverse ? count - 1 - i : i);
    }
  }

  void parallel(std::size_t phase, ThreadPool& pool) {
    std::uint64_t count = geometry_.workgroup_count();
    auto participants = static_cast<unsigned>(workers_.size());
    std::uint64_t chunk = std::clamp<std::uint64_t>(count / (participants * 8ull), 1, 64);
    std::atomic<std::uint64_t> next{0};
    FailureSlot failure;
    pool.run(participants - 1, [&](unsigned slot) {
      DefaultFloatEnvironment fenv;
      std::uint64_t current = 0;
      try {
        Worker& w = worker(slot);
        while (!failure.failed()) {
          std::uint64_t begin = next.fetch_add(chunk, std::memory_order_relaxed);
          if (begin >= count) return;
          std::uint64_t end = std::min(count, begin + chunk);
          current = begin;
          stop_.check();
          for (; current < end; ++current) w.run_workgroup(phase, current);
        }
      } catch (...) {
        failure.record(current, as_error(std::current_exception()));
      }
    });
    failure.rethrow();
  }

  std::uint64_t invocations() const {
    std::uint64_t total = 0;
    for (const auto& w : workers_)
      if (w) total += w->invocations();
    return total;
  }

 private:
  const Executable& exe_;
  const LaunchGeometry& geometry_;
  std::span<const MemView> buffers_;
  const StopCondition& stop_;
  std::vector<std::unique_ptr<Worker>> workers_;
};

unsigned participants_for(const LaunchGeometry& geometry, const LaunchOptions& options) {
  if (options.reverse || options.pool == nullptr || options.workers <= 1) return 1;
  std::uint64_t count = geometry.workgroup_count();
  if (count < 2 || count * geometry.workgroup_invocations() < kParallelInvocations) return 1;
  std::uint64_t available = std::uint64_t{options.pool->helpers()} + 1;
  return static_cast<unsigned>(std::min<std::uint64_t>({available, options.workers, count}));
}

}  // namespace

LaunchStats launch(const Executable& exe, const LaunchGeometry& geometry,
                   std::span<const MemView> buffers, const LaunchOptions& options) {
  LaunchStats stats;
  if (geometry.empty()) return stats;
  unsigned participants = participants_for(geometry, options);
  Launch run(exe, geometry, buffers, participants, options.stop);
  for (std::uint32_t iteration = 0; iteration < geometry.fixpoint_iterations; ++iteration) {
    for (std::size_t phase = 0; phase < exe.phases.size(); ++phase) {
      options.stop.check();
      if (participants == 1) {
        run.serial(phase, options.reverse);
      } else {
        run.parallel(phase, *options.pool);
      }
      stats.workgroups += geometry.workgroup_count();
    }
  }
  stats.invocations = run.invocations();
  return stats;
}

}  // namespace vyre::refcpu
