// On a GPU (label gpu; exit 77 without a usable device): bundles of every example, written by vyre-aot
// through the real cuda plugin, run by vyre-launch and by a launcher built from the bundle's own
// launcher/, produce exactly the reference_cpu plugin's outputs; grid_sync bundles run both
// cooperatively and phase by phase; the TTT loop reads the metrics record.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "aot_test_support.hpp"
#include "manifest.hpp"
#include "support/build_plugins.hpp"
#include "vyre/json.hpp"
#include "vyre/registry.hpp"

namespace fs = std::filesystem;
using aot_test::Process;
using aot_test::quote;

namespace {

vyre::Registry& registry() { return vyre::test::build_plugin_registry(); }

const bool kDeviceReady = [] {
  if (registry().find("cuda") == nullptr || registry().find("reference_cpu") == nullptr) {
    std::printf("FAIL: the cuda and reference_cpu plugins must be built in %s\n", VYRE_PLUGIN_BUILD_DIR);
    std::exit(1);
  }
  if (const auto why_not = registry().probe("cuda")) {
    std::printf("SKIP: no usable CUDA device: %s\n", why_not->c_str());
    std::exit(77);
  }
  return true;
}();

const std::string kPlugins = std::string("--no-default-plugins --plugins ") + VYRE_PLUGIN_BUILD_DIR;

using Inputs = std::vector<std::pair<std::string, std::vector<std::uint8_t>>>;

std::vector<vyre::host::ByteVector> reference_outputs(const vyre::Program& program, const Inputs& inputs,
                                                      const vyre::DispatchConfig& config = {}) {
  const vyre::host::Backend& reference = registry().backend("reference_cpu");
  const vyre::host::Program compiled = reference.compile(program);
  std::vector<vyre::host::Bytes> views;
  for (const auto& input : inputs) views.push_back(std::as_bytes(std::span(input.second)));
  return reference.dispatch(compiled, views, config);
}

// The --in arguments for `inputs`, written under `dir`.
std::string input_args(const fs::path& dir, const Inputs& inputs) {
  std::string args;
  for (const auto& [name, bytes] : inputs) {
    aot_test::write_bytes(dir / (name + ".bin"), bytes);
    args += " --in " + name + "=" + quote((dir / (name + ".bin")).string());
  }
  return args;
}

void compile_bundle(const std::string& program_args, const fs::path& bundle) {
  const Process p = aot_test::run(quote(VYRE_AOT_EXE) + " compile " + program_args + " " + kPlugins + " --out " +
                                  quote(bundle.string()));
  REQUIRE_MESSAGE(p.exit_code == 0, p.err);
}

void check_outputs(const vyre::Program& program, const fs::path& out_dir,
                   const std::vector<vyre::host::ByteVector>& expected) {
  const auto outputs = program.output_indices();
  REQUIRE(outputs.size() == expected.size());
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const std::string& name = program.buffers[outputs[i]].name;
    CAPTURE(name);
    const auto actual = aot_test::read_bytes(out_dir / (name + ".bin"));
    REQUIRE(actual.size() == expected[i].size());
    CHECK(std::memcmp(actual.data(), expected[i].data(), actual.size()) == 0);
  }
}

// A launcher built from `bundle`/launcher (once per test run).
fs::path built_launcher(const fs::path& bundle) {
  static fs::path built;
  if (!built.empty()) return built;
  const fs::path build = aot_test::fresh_dir("gpu_launcher_build");
  Process p = aot_test::run(quote(VYRE_CMAKE_COMMAND) + " -S " + quote((bundle / "launcher").string()) + " -B " +
                            quote(build.string()) + aot_test::cmake_generator_args());
  REQUIRE_MESSAGE(p.exit_code == 0, p.out << p.err);
  p = aot_test::run(quote(VYRE_CMAKE_COMMAND) + " --build " + quote(build.string()) + " -j4");
  REQUIRE_MESSAGE(p.exit_code == 0, p.out << p.err);
  built = build / "vyre_aot_launcher";
  return built;
}

}  // namespace

TEST_CASE("bundles of every example reproduce the reference outputs through vyre-launch and the built launcher") {
  (void)kDeviceReady;
  for (const fs::path& path : aot_test::example_programs()) {
    const std::string name = path.stem().string();
    CAPTURE(name);
    const vyre::Program program = vyre::load_program_file(path);
    const Inputs inputs = aot_test::example_inputs(program, 11);
    const auto expected = reference_outputs(program, inputs);
    const fs::path dir = aot_test::fresh_dir("gpu_" + name);
    compile_bundle(quote(path.string()) + input_args(dir, inputs), dir / "bundle");

    Process p = aot_test::run(quote(VYRE_LAUNCH_EXE) + " " + quote((dir / "bundle").string()) + " --out " +
                              quote((dir / "launch").string()));
    REQUIRE_MESSAGE(p.exit_code == 0, p.err);
    check_outputs(program, dir / "launch", expected);

    const fs::path launcher = built_launcher(dir / "bundle");
    p = aot_test::run(quote(launcher.string()) + " " + quote((dir / "bundle").string()) + " --out " +
                      quote((dir / "built").string()));
    REQUIRE_MESSAGE(p.exit_code == 0, p.err);
    check_outputs(program, dir / "built", expected);

    const Inputs other = aot_test::example_inputs(program, 12);  // launch-time --in replaces bundled inputs
    p = aot_test::run(quote(VYRE_LAUNCH_EXE) + " " + quote((dir / "bundle").string()) +
                      input_args(dir / "other", other) + " --out " + quote((dir / "other_out").string()));
    REQUIRE_MESSAGE(p.exit_code == 0, p.err);
    check_outputs(program, dir / "other_out", reference_outputs(program, other));
  }
}

TEST_CASE("a grid_sync bundle runs cooperatively, and phase by phase when a split is forced") {
  const fs::path path = fs::path(VYRE_SOURCE_DIR) / "examples" / "prefix_sum.json";
  const vyre::Program program = vyre::load_program_file(path);
  const Inputs inputs = aot_test::example_inputs(program, 21);
  const auto expected = reference_outputs(program, inputs);
  const fs::path dir = aot_test::fresh_dir("gpu_grid_sync");
  compile_bundle(quote(path.string()) + input_args(dir, inputs), dir / "bundle");
  const std::string launch = quote(VYRE_LAUNCH_EXE) + " " + quote((dir / "bundle").string());

  Process p = aot_test::run(launch + " --out " + quote((dir / "coop").string()));
  REQUIRE_MESSAGE(p.exit_code == 0, p.err);
  CHECK(p.out_has("cooperative"));
  check_outputs(program, dir / "coop", expected);

  p = aot_test::run(launch + " --out " + quote((dir / "split").string()), "VYRE_CUDA_FORCE_SPLIT_GRID_SYNC=1");
  REQUIRE_MESSAGE(p.exit_code == 0, p.err);
  CHECK(p.out_has("phase by phase"));
  check_outputs(program, dir / "split", expected);
}

TEST_CASE("weights are uploaded into the first input buffer") {
  const fs::path path = fs::path(VYRE_SOURCE_DIR) / "examples" / "saxpy.json";
  const vyre::Program program = vyre::load_program_file(path);
  Inputs inputs = aot_test::example_inputs(program, 31);
  const fs::path dir = aot_test::fresh_dir("gpu_weights");
  aot_test::write_bytes(dir / "alpha.weights", inputs[0].second);
  const Inputs rest(inputs.begin() + 1, inputs.end());
  compile_bundle(quote(path.string()) + " --weights " + quote((dir / "alpha.weights").string()) + input_args(dir, rest),
                 dir / "bundle");
  const Process p = aot_test::run(quote(VYRE_LAUNCH_EXE) + " " + quote((dir / "bundle").string()) + " --out " +
                                  quote((dir / "out").string()));
  REQUIRE_MESSAGE(p.exit_code == 0, p.err);
  check_outputs(program, dir / "out", reference_outputs(program, inputs));
}

TEST_CASE("the TTT loop: VYRE_TTT_STEPS launches, VYRE_TTT_TARGET_LOSS stops early, FINAL reports the record") {
  const fs::path dir = aot_test::fresh_dir("gpu_ttt");
  vyre::save_program_file(aot_test::metrics_program(), dir / "ttt.json");
  aot_test::write_bytes(dir / "zeros.bin", std::vector<std::uint8_t>(32, 0));
  compile_bundle(quote((dir / "ttt.json").string()) + " --in metrics=" + quote((dir / "zeros.bin").string()),
                 dir / "bundle");
  const std::string launch = quote(VYRE_LAUNCH_EXE) + " " + quote((dir / "bundle").string()) + " --out ";

  Process p = aot_test::run(launch + quote((dir / "one").string()));
  REQUIRE_MESSAGE(p.exit_code == 0, p.err);
  CHECK(p.out_has("FINAL step=1 loss=1.000000 tokens=16"));

  p = aot_test::run(launch + quote((dir / "ten").string()), "VYRE_TTT_STEPS=10");
  REQUIRE_MESSAGE(p.exit_code == 0, p.err);
  CHECK(p.out_has("FINAL step=10 loss=0.100000 tokens=160"));
  CHECK_FALSE(p.out_has("TTT_CONVERGED"));
  const auto words = aot_test::read_bytes(dir / "ten" / "metrics.bin");
  REQUIRE(words.size() == 32);
  CHECK(words[0] == 10);

  p = aot_test::run(launch + quote((dir / "target").string()), "VYRE_TTT_STEPS=100 VYRE_TTT_TARGET_LOSS=0.25");
  REQUIRE_MESSAGE(p.exit_code == 0, p.err);
  CHECK(p.out_has("TTT_CONVERGED step=4 loss=0.250000 tokens=64"));
  CHECK(p.out_has("FINAL step=4 loss=0.250000 tokens=64"));

  p = aot_test::run(launch + quote((dir / "never").string()), "VYRE_TTT_STEPS=3 VYRE_TTT_TARGET_LOSS=0.01");
  REQUIRE_MESSAGE(p.exit_code == 0, p.err);
  CHECK_FALSE(p.out_has("TTT_CONVERGED"));
  CHECK(p.out_has("FINAL step=3"));

  const fs::path launcher = built_launcher(dir / "bundle");
  p = aot_test::run(
      quote(launcher.string()) + " " + quote((dir / "bundle").string()) + " --out " + quote((dir / "built").string()),
      "VYRE_TTT_STEPS=5");
  REQUIRE_MESSAGE(p.exit_code == 0, p.err);
  CHECK(p.out_has("FINAL step=5 loss=0.200000 tokens=80"));

  p = aot_test::run(launch + quote((dir / "bad").string()), "VYRE_CUDA_DEVICE_ORDINAL=999");
  CHECK(p.exit_code == 1);
  CHECK(p.err_has("names no visible device"));
}
