// R2: a program of 10^6 let statements (large_program.hpp; --size-scale scales the count) through
// every stage that walks a whole program: wire encode/decode, validation, fingerprint, ops_used,
// JSON write/read, the CUDA lowering (when vyre-bench links the codegen), and reference_cpu's
// compile and first dispatch. Each stage is timed on the host wall clock and reported beside the
// headline, the sum of the stages. The goal (bench/report.py) is for 10^6 lets on the 2-core
// development machine.
#include <fmt/core.h>

#include <functional>

#include "case_support.hpp"
#include "cases.hpp"
#include "clock.hpp"
#include "host_data.hpp"
#include "parallel.hpp"
#include "large_program.hpp"
#include "vyre/fingerprint.hpp"
#include "vyre/json.hpp"
#include "vyre/ops.hpp"
#include "vyre/validate.hpp"
#include "vyre/wire.hpp"
#ifdef VYRE_BENCH_CUDA_LOWERING
#include "lowering.hpp"
#endif

namespace vyre::bench {
namespace {

constexpr std::uint64_t kFullLets = 1'000'000;

struct Stages {
  CaseResult& result;
  double total_ns = 0;

  // Run `stage` reps times; record its median under `name` and add that median to the total.
  void time(const std::string& name, std::uint32_t reps, const std::function<void()>& stage) {
    std::vector<double> samples;
    for (std::uint32_t r = 0; r < reps; ++r) {
      const std::uint64_t start = now_ns();
      stage();
      samples.push_back(static_cast<double>(now_ns() - start));
    }
    add_time_extra(result, name, samples, 1e-6, "ms");
    total_ns += summarize(samples).median;
  }
};

}  // namespace

std::vector<CaseResult> run_r2_large_program(Context& context) {
  vyre::host::Backend backend = context.backend("reference_cpu");
  const auto lets = static_cast<std::uint32_t>(context.scaled_size(kFullLets, 2, 1));
  CaseResult result = start_case("R2", fmt::format("{} lets: validate, encode, compile, run", lets), backend, "s",
                                 "lower");
  const std::uint32_t reps = context.reps(1);
  Stages stages{result};

  const std::uint64_t build_start = now_ns();
  const vyre::Program program = large_program(lets);
  const std::vector<double> build = {static_cast<double>(now_ns() - build_start)};
  add_time_extra(result, "build (not counted)", build, 1e-6, "ms");
  std::vector<std::uint8_t> wire;
  stages.time("encode_wire", reps, [&] { wire = encode_wire(program); });
  stages.time("decode_wire", reps, [&] { (void)decode_wire(wire); });
  std::size_t problems = 0;
  stages.time("validate", reps, [&] { problems = validate(program).size(); });
  stages.time("fingerprint", reps, [&] { (void)fingerprint(program); });
  stages.time("ops_used", reps, [&] { (void)ops_used(program); });
  std::string json;
  stages.time("to_json", reps, [&] { json = to_json(program, false); });
  bool json_round_trips = false;
  stages.time("from_json", reps, [&] { json_round_trips = from_json(json) == program; });
#ifdef VYRE_BENCH_CUDA_LOWERING
  stages.time("cuda_lower", reps, [&] { (void)vyre::cuda::lower(program, vyre::cuda::Target{}); });
#endif
  vyre::host::Program compiled;
  stages.time("reference_compile", reps, [&] { compiled = backend.compile(program); });
  const auto a = random_words(kLargeElements, context.seed_for("R2"));
  const std::vector<vyre::host::Bytes> inputs = {vyre::host::as_bytes(a)};
  std::vector<std::uint32_t> out;
  stages.time("reference_dispatch", reps, [&] { out = words_of(backend.dispatch(compiled, inputs).at(0)); });

  const std::vector<std::uint32_t> expected = large_program_on_host(lets, a);
  result.verified = problems == 0 && json_round_trips && out == expected;
  result.verification = checked(result.verified, fmt::format("{} validation problems, JSON round trip {}, out {} "
                                                             "the host's evaluation",
                                                             problems, json_round_trips ? "exact" : "differs",
                                                             out == expected ? "equals" : "differs from"));
  const std::vector<double> total = {stages.total_ns};
  set_time_figure(result, total, 1e-9);
  result.extra["lets"] = lets;
  result.extra["wire_bytes"] = wire.size();
  result.extra["host_threads"] = host_threads();
  return {result};
}

}  // namespace vyre::bench
