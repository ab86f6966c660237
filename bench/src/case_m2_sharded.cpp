// M2 (issue 16): a sharded memory-bound kernel over every visible device against one device, in the
// same run: out = a ^ b over 256M resident u32 elements. Every member holds full-size buffers (as a
// group dispatch does) and runs its contiguous x-range of workgroups with dispatch_resident_shard,
// each from its own persistent host thread; a sample is the wall time from releasing the members to
// the last one finishing. One device runs the whole grid the same way (one shard). Bandwidth counts
// 2 reads + 1 write per element; the headline is the group's, and `one_device` is beside it. Goal:
// at least 1.8x one device's throughput on two GPUs.
#include <fmt/core.h>

#include <barrier>
#include <exception>
#include <thread>

#include "case_support.hpp"
#include "cases.hpp"
#include "clock.hpp"
#include "host_data.hpp"
#include "programs.hpp"
#include "vyre/geometry.hpp"
#include "vyre/shard.hpp"

namespace vyre::bench {
namespace {

constexpr std::uint64_t kElements = 256ull << 20;

struct Member {
  vyre::host::Backend backend;
  vyre::host::Program program;
  std::vector<vyre::host::ResidentBuffer> buffers;  // a, b, out
  std::vector<vyre::host::Binding> bindings;
  vyre::ShardRange shard;
};

Member make_member(Context& context, int ordinal, const vyre::Program& ir, const std::vector<std::uint32_t>& a,
                   const std::vector<std::uint32_t>& b) {
  Member m{create_on_device(context.registry(), "cuda", ordinal), {}, {}, {}, {}};
  m.program = m.backend.compile(ir);
  for (int k = 0; k < 3; ++k) m.buffers.push_back(m.backend.alloc(a.size() * 4));
  m.backend.upload(m.buffers[0], 0, vyre::host::as_bytes(a));
  m.backend.upload(m.buffers[1], 0, vyre::host::as_bytes(b));
  for (const auto& buffer : m.buffers) m.bindings.push_back(vyre::host::Binding::of(buffer));
  return m;
}

// Wall time per sample of every member running its shard at once, from persistent threads.
std::vector<double> time_shards(std::vector<Member>& members, std::uint32_t warmup, std::uint32_t reps) {
  const std::size_t count = members.size();
  std::barrier start(static_cast<std::ptrdiff_t>(count + 1)), done(static_cast<std::ptrdiff_t>(count + 1));
  std::vector<std::exception_ptr> errors(count);
  std::vector<std::thread> threads;
  const std::uint32_t rounds = warmup + reps;
  for (std::size_t r = 0; r < count; ++r) {
    threads.emplace_back([&, r] {
      for (std::uint32_t round = 0; round < rounds; ++round) {
        start.arrive_and_wait();
        try {
          if (!errors[r]) members[r].backend.dispatch_resident_shard(members[r].program, members[r].bindings, members[r].shard);
        } catch (...) {
          errors[r] = std::current_exception();
        }
        done.arrive_and_wait();
      }
    });
  }
  std::vector<double> wall_ns;
  for (std::uint32_t round = 0; round < rounds; ++round) {
    const std::uint64_t t0 = now_ns();
    start.arrive_and_wait();
    done.arrive_and_wait();
    if (round >= warmup) wall_ns.push_back(static_cast<double>(now_ns() - t0));
  }
  for (auto& t : threads) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  return wall_ns;
}

// Elements of out (each member's own shard) that differ from a ^ b.
std::size_t shard_mismatches(const std::vector<Member>& members, const vyre::LaunchGeometry& geometry,
                             const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  std::size_t wrong = 0;
  for (const Member& m : members) {
    const vyre::IndexRange range = vyre::shard_invocations(geometry, m.shard);
    const std::uint64_t end = std::min<std::uint64_t>(range.end, a.size());
    if (range.begin >= end) continue;
    const auto got = words_of(m.backend.download(m.buffers[2], range.begin * 4, (end - range.begin) * 4));
    for (std::uint64_t i = range.begin; i < end; ++i) wrong += got[i - range.begin] != (a[i] ^ b[i]);
  }
  return wrong;
}

}  // namespace

std::vector<CaseResult> run_m2_sharded(Context& context) {
  CaseResult result = start_case("M2", "sharded resident xor, 256M u32, every visible device vs one", "cuda",
                                 "GB/s", "higher");
  if (context.options().backend != "cuda") {
    result.error = "M2 shards over CUDA devices. Fix: run it with --backend cuda";
    return {result};
  }
  const std::size_t devices = context.main_backend().devices().size();
  const std::uint64_t n = context.scaled_size(kElements, 1024, kWorkgroup);
  context.note(fmt::format("M2: {} elements on each of {} devices, filling inputs", n, devices));
  const auto a = random_words(n, context.seed_for("M2a"));
  const auto b = random_words(n, context.seed_for("M2b"));
  const vyre::Program ir = xor_program(static_cast<std::uint32_t>(n));
  const std::uint64_t elements[3] = {n, n, n};
  const vyre::LaunchGeometry geometry = vyre::resolve_geometry(ir, {}, elements);

  std::vector<Member> group;
  for (std::size_t d = 0; d < devices; ++d) group.push_back(make_member(context, static_cast<int>(d), ir, a, b));
  const std::vector<vyre::ShardRange> shards = vyre::shard_ranges(geometry.grid[0], static_cast<std::uint32_t>(devices));
  for (std::size_t d = 0; d < devices; ++d) group[d].shard = shards[d];
  std::vector<Member> one;
  one.push_back(make_member(context, 0, ir, a, b));
  one[0].shard = vyre::shard_ranges(geometry.grid[0], 1)[0];

  const std::uint32_t warmup = context.warmup(3), reps = context.reps(30);
  result.warmup = warmup;
  std::vector<double> one_ns, group_ns;
  for (int pass = 0; pass < 2; ++pass) {  // interleaved halves: both see the same machine state
    const auto single = time_shards(one, warmup, reps / 2 + 1);
    const auto all = time_shards(group, warmup, reps / 2 + 1);
    one_ns.insert(one_ns.end(), single.begin(), single.end());
    group_ns.insert(group_ns.end(), all.begin(), all.end());
  }
  const std::size_t wrong = shard_mismatches(group, geometry, a, b) + shard_mismatches(one, geometry, a, b);
  result.verified = wrong == 0;
  result.verification = checked(result.verified, fmt::format("every shard's out equals a ^ b ({} differ)", wrong));
  set_bandwidth_figure(result, group_ns, 3 * n * 4);
  CaseResult single = start_case("M2", "", "cuda", "GB/s", "higher");
  set_bandwidth_figure(single, one_ns, 3 * n * 4);
  boost::json::object one_device = summary_json(single.value);
  one_device["unit"] = "GB/s";
  result.extra["one_device"] = std::move(one_device);
  result.extra["devices"] = devices;
  result.extra["elements"] = n;
  return {result};
}

}  // namespace vyre::bench
