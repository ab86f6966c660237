// P7: the sum of 256M resident u32 (u64 accumulation, like torch.sum's int64) by the subgroup-reduce
// + atomic program of programs.hpp; bandwidth counts the bytes read plus the 8 written. The total is
// zeroed before and checked after every sample (a race shows as a moving total).
#include <fmt/core.h>

#include <array>
#include <cstring>

#include "case_support.hpp"
#include "cases.hpp"
#include "host_data.hpp"
#include "programs.hpp"

namespace vyre::bench {
namespace {

constexpr std::uint64_t kElements = 256ull << 20;
constexpr std::uint32_t kWorkgroupsPerMultiprocessor = 8;

std::uint32_t grid_size(const Context& context, const vyre::host::Backend& backend) {
  if (context.options().sum_workgroups) return *context.options().sum_workgroups;
  const vyre_device_profile profile = backend.device_profile();
  return std::max(1u, profile.multiprocessors) * kWorkgroupsPerMultiprocessor;
}

struct SumRun {
  const vyre::host::Backend& backend;
  const vyre::host::Program& program;
  const std::vector<vyre::host::Binding>& bindings;
  const vyre::DispatchConfig& config;
  const vyre::host::ResidentBuffer& total;

  void zero() const {
    const std::array<std::byte, 8> zeros{};
    backend.upload(total, 0, zeros);
  }
  std::uint64_t read_total() const {
    const auto bytes = backend.download(total, 0, 8);
    std::uint64_t value = 0;
    std::memcpy(&value, bytes.data(), 8);
    return value;
  }
};

}  // namespace

std::vector<CaseResult> run_p7_sum(Context& context) {
  vyre::host::Backend backend = context.main_backend();
  CaseResult result = start_case("P7", "sum of 256M u32 (subgroup reduce + atomics)", backend, "GB/s", "higher");
  const std::uint64_t n = context.scaled_size(kElements, 1024, kWorkgroup);
  context.note(fmt::format("P7: {} elements, filling the input", n));
  const auto data = random_words(n, context.seed_for("P7"));
  const std::uint64_t expected = sum_u64(data);

  const vyre::host::Program program = backend.compile(sum_program());
  const vyre::host::ResidentBuffer rdata = backend.alloc(n * 4);
  const vyre::host::ResidentBuffer rtotal = backend.alloc(8);
  backend.upload(rdata, 0, vyre::host::as_bytes(data));
  const std::vector<vyre::host::Binding> bindings = {vyre::host::Binding::of(rdata), vyre::host::Binding::of(rtotal)};
  vyre::DispatchConfig config;
  config.grid = std::array<std::uint32_t, 3>{grid_size(context, backend), 1, 1};
  const SumRun run{backend, program, bindings, config, rtotal};

  result.warmup = context.warmup(5);
  for (std::uint32_t w = 0; w < result.warmup; ++w) {
    run.zero();
    backend.dispatch_resident(program, bindings, config);
  }
  reset_metrics(backend);
  std::vector<double> device_ns;
  std::size_t wrong = 0;
  std::uint64_t first_wrong = 0;
  for (std::uint32_t r = 0; r < context.reps(100); ++r) {
    run.zero();
    const vyre::Timing t = backend.dispatch_resident_timed(program, bindings, config);
    device_ns.push_back(timing_ns(t));
    result.clock = timing_clock(t);
    const std::uint64_t got = run.read_total();
    if (got != expected && wrong++ == 0) first_wrong = got;
  }
  result.metrics = metrics_of(backend);
  result.verified = wrong == 0;
  result.verification = checked(result.verified, wrong == 0 ? fmt::format("every sample's total is {}", expected)
                                                             : fmt::format("{} samples wrong; first {} != {}", wrong,
                                                                           first_wrong, expected));
  set_bandwidth_figure(result, device_ns, n * 4 + 8);
  result.extra["elements"] = n;
  result.extra["grid_workgroups"] = (*config.grid)[0];
  result.extra["workgroup"] = kWorkgroup;
  return {result};
}

}  // namespace vyre::bench
