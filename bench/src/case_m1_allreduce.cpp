// M1 (issue 16): Group::all_reduce (sum) of a 1 GiB f32 resident buffer over every visible device,
// timed as bench/baselines/torch_allreduce.py times torch.distributed.all_reduce: a sample is the
// host time of BATCH all_reduces queued back to back, then waited for (a 4-byte download of each
// member's result, which orders after the last one), over BATCH. Bandwidth = bytes of the buffer /
// time (NCCL's "algbw"); the bus bandwidth factor 2(n-1)/n is beside it. Rank r's buffer holds
// r + 1 everywhere, so every element of the result is n(n+1)/2, exactly. NCCL comes from
// VYRE_NCCL_LIBRARY or the loader's search (docs/MULTI_GPU.md); NVLS stays off.
#include <fmt/core.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "case_support.hpp"
#include "cases.hpp"
#include "clock.hpp"
#include "vyre/group.hpp"

namespace vyre::bench {
namespace {

constexpr std::uint64_t kElements = 256ull << 20;  // 1 GiB of f32
constexpr int kBatch = 5;

}  // namespace

std::vector<CaseResult> run_m1_allreduce(Context& context) {
  CaseResult result = start_case("M1", "Group::all_reduce (sum) of 1 GiB f32 over every visible device", "cuda",
                                 "GB/s", "higher");
  if (context.options().backend != "cuda") {
    result.error = "M1 runs NCCL collectives over CUDA devices. Fix: run it with --backend cuda";
    return {result};
  }
  const std::size_t devices = context.main_backend().devices().size();
  const std::uint64_t n = context.scaled_size(kElements, 1024, 1024);
  context.note(fmt::format("M1: all_reduce of {} f32 over {} devices", n, devices));
  std::vector<vyre::host::Backend> members;
  for (std::size_t d = 0; d < devices; ++d)
    members.push_back(create_on_device(context.registry(), "cuda", static_cast<int>(d)));
  const vyre::host::Group group(std::move(members));
  const vyre::host::GroupBuffers send = group.alloc(n * 4), recv = group.alloc(n * 4);
  std::vector<float> fill(n);
  for (std::size_t r = 0; r < devices; ++r) {
    std::fill(fill.begin(), fill.end(), static_cast<float>(r + 1));
    group.member(r).upload(send[r], 0, vyre::host::as_bytes(fill));
  }
  group.connect();
  auto batch = [&] {
    for (int i = 0; i < kBatch; ++i) group.all_reduce(send, recv, vyre::Type::F32, vyre::host::Reduce::sum, n);
    for (std::size_t r = 0; r < devices; ++r) (void)group.member(r).download(recv[r], 0, 4);
  };
  const std::uint32_t warmup = context.warmup(2), reps = context.reps(10);
  result.warmup = warmup;
  std::vector<double> per_call = time_calls(warmup, reps, batch);
  for (double& ns : per_call) ns /= kBatch;

  const auto expected = static_cast<float>(devices * (devices + 1) / 2);
  std::size_t wrong = 0;
  const vyre::host::ByteVector all = group.member(0).download(recv[0], 0, n * 4);
  for (std::uint64_t i = 0; i < n; ++i) {
    float v;
    std::memcpy(&v, all.data() + i * 4, 4);
    wrong += v != expected;
  }
  for (std::size_t r = 1; r < devices; ++r) {
    for (const std::uint64_t i : {std::uint64_t{0}, n - 1}) {
      float v;
      const vyre::host::ByteVector one = group.member(r).download(recv[r], i * 4, 4);
      std::memcpy(&v, one.data(), 4);
      wrong += v != expected;
    }
  }
  result.verified = wrong == 0;
  result.verification =
      checked(result.verified, fmt::format("every element of rank 0's result (and the ends of the others') is {} "
                                           "({} differ)", expected, wrong));
  set_bandwidth_figure(result, per_call, n * 4);
  result.extra["devices"] = devices;
  result.extra["elements"] = n;
  result.extra["busbw_factor"] = devices > 1 ? 2.0 * static_cast<double>(devices - 1) / static_cast<double>(devices) : 0.0;
  result.extra["batch"] = kBatch;
  return {result};
}

}  // namespace vyre::bench
