// C1 (issue 11 part 4): the whole process of `vyre run` on a small program on cuda, against a
// raw-driver program doing the same work (vyre-bench-driver-run: cuInit, primary context, module,
// upload, launch, download), both spawned alternately in the same run. Headline: the median wall
// time of `vyre run FILE --random 1` (the registry routes it, as a user's plain command would);
// beside it `vyre run FILE --backend cuda` and the driver program's. Goal: at most 30 ms above
// the driver program.
#include <fmt/core.h>
#include <unistd.h>

#include <filesystem>

#include "case_support.hpp"
#include "cases.hpp"
#include "driver_kernel.hpp"
#include "programs.hpp"
#include "subprocess.hpp"
#include "vyre/json.hpp"

namespace vyre::bench {
namespace {

constexpr std::uint32_t kTimeoutS = 120;

struct Spawned {
  std::vector<double> wall_ns;
  std::string failure;  // the first failing run's output, if any
};

void spawn(const ProcessSpec& spec, std::string_view must_contain, Spawned& into, bool record) {
  const ProcessResult r = run_process(spec);
  const bool ok = r.exit_code == 0 && r.output.find(must_contain) != std::string::npos;
  if (!ok && into.failure.empty())
    into.failure = fmt::format("{} exited {}{}: {}", spec.argv[0], r.exit_code, r.timed_out ? " (timed out)" : "",
                               r.output.substr(0, 400));
  if (record) into.wall_ns.push_back(r.wall_s * 1e9);
}

}  // namespace

std::vector<CaseResult> run_c1_process(Context& context) {
  CaseResult result = start_case("C1", "vyre run of a 1024-u32 xor, whole process, vs a raw-driver program",
                                 "cuda", "ms", "lower");
  if (context.options().backend != "cuda") {
    result.error = "C1 compares with the CUDA driver. Fix: run it with --backend cuda";
    return {result};
  }
  const std::filesystem::path bin = context.self().parent_path();
  const std::filesystem::path program =
      std::filesystem::temp_directory_path() / fmt::format("vyre-bench-c1-{}.json", ::getpid());
  vyre::save_program_file(xor_program(DriverXorKernel::kElements), program);

  const ProcessSpec routed{{(bin / "vyre").string(), "run", program.string(), "--random", "1", "--max-values", "1"},
                           {}, true, kTimeoutS};
  ProcessSpec pinned = routed;
  pinned.argv.insert(pinned.argv.end(), {"--backend", "cuda"});
  const ProcessSpec driver{{(bin / "vyre-bench-driver-run").string()}, {}, true, kTimeoutS};

  Spawned vyre_routed, vyre_pinned, raw;
  result.warmup = context.warmup(1);
  const std::uint32_t reps = context.reps(10);
  try {
    for (std::uint32_t r = 0; r < result.warmup + reps; ++r) {  // alternating: the same machine state
      const bool record = r >= result.warmup;
      spawn(driver, "ok", raw, record);
      spawn(routed, "backend: cuda", vyre_routed, record);
      spawn(pinned, "backend: cuda", vyre_pinned, record);
    }
  } catch (const std::exception& e) {
    std::filesystem::remove(program);
    result.error = std::string(e.what()) +
                   ". Fix: build vyre and vyre-bench-driver-run beside vyre-bench (the vyre-bench target builds both)";
    return {result};
  }
  std::filesystem::remove(program);
  const std::string failure = !raw.failure.empty() ? raw.failure : !vyre_routed.failure.empty() ? vyre_routed.failure
                                                                                               : vyre_pinned.failure;
  result.verified = failure.empty();
  result.verification = checked(result.verified, failure.empty()
                                                     ? std::string("every run exited 0, vyre on cuda, the driver program's xor checked")
                                                     : failure);
  set_time_figure(result, vyre_routed.wall_ns, 1e-6);
  add_time_extra(result, "driver_program", raw.wall_ns, 1e-6, "ms");
  add_time_extra(result, "vyre_run_backend_cuda", vyre_pinned.wall_ns, 1e-6, "ms");
  return {result};
}

}  // namespace vyre::bench
