// The child side of P5: create the backend, then time compile() + the first host dispatch of the
// salted chain program, check the output, time a second dispatch, and print one JSON object.
#include <fmt/core.h>

#include <cstdio>

#include "case_support.hpp"
#include "cases.hpp"
#include "chain_program.hpp"
#include "clock.hpp"
#include "host_data.hpp"

namespace vyre::bench {
namespace {

boost::json::object first_dispatch(const Options& options, vyre::Registry& registry) {
  const std::uint64_t t0 = now_ns();
  const vyre::host::Backend backend = registry.create(options.backend);
  const std::uint64_t t1 = now_ns();

  const vyre::Program ir = chain_program(options.p5_salt);
  const auto input = random_words(kChainElements, options.p5_salt);
  const std::vector<vyre::host::Bytes> inputs = {vyre::host::as_bytes(input)};

  const std::uint64_t t2 = now_ns();
  const vyre::host::Program program = backend.compile(ir);
  const std::uint64_t t3 = now_ns();
  const auto outputs = backend.dispatch(program, inputs);
  const std::uint64_t t4 = now_ns();
  (void)backend.dispatch(program, inputs);
  const std::uint64_t t5 = now_ns();

  const bool verified = words_of(outputs.at(0)) == chain_on_host(options.p5_salt, input);
  boost::json::object metrics;
  for (const auto& m : metrics_of(backend)) metrics[m.name] = m.value;
  return boost::json::object{{"salt", options.p5_salt},
                             {"create_ns", t1 - t0},
                             {"compile_ns", t3 - t2},
                             {"first_dispatch_ns", t4 - t3},
                             {"first_total_ns", t4 - t2},
                             {"second_dispatch_ns", t5 - t4},
                             {"verified", verified},
                             {"metrics", metrics}};
}

}  // namespace

int run_p5_child(const Options& options, vyre::Registry& registry) {
  boost::json::object out;
  int status = 0;
  try {
    out = first_dispatch(options, registry);
  } catch (const std::exception& e) {
    out = boost::json::object{{"error", e.what()}};
    status = 1;
  }
  fmt::print("{}\n", boost::json::serialize(out));
  std::fflush(stdout);
  return status;
}

}  // namespace vyre::bench
