// The launcher's checks, on the CPU: its JSON reader, SHA-256, the manifest validator (a table of
// bad manifests, each rejected with its message), the environment, launch planning against fake
// device limits, bundle loading, and hostile bundle files (links, FIFOs, devices, sizes) and outputs.
// The manifests start from what the CUDA emitter writes.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cstring>
#include <functional>
#include <map>

#include "aot_test_support.hpp"
#include "bundle.hpp"
#include "device_run.hpp"
#include "errors.hpp"
#include "json_lite.hpp"
#include "launch_plan.hpp"
#include "manifest.hpp"
#include "settings.hpp"
#include "sha256.hpp"
#include "vyre/fingerprint.hpp"
#include "vyre/json.hpp"

namespace fs = std::filesystem;
namespace jl = vyre_launch::json;
using aot_test::emit_in_process;
using vyre_launch::LaunchError;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

vyre::Program example(const std::string& name) {
  return vyre::load_program_file(fs::path(VYRE_SOURCE_DIR) / "examples" / (name + ".json"));
}

std::string manifest_text(const std::vector<vyre::AotFile>& files) {
  const auto* m = aot_test::find_file(files, "manifest.json");
  REQUIRE(m != nullptr);
  return std::string(m->data.begin(), m->data.end());
}

std::string baseline(const std::string& example_name) { return manifest_text(emit_in_process(example(example_name))); }

using Edit = std::function<void(boost::json::object&)>;

std::string edited(const std::string& text, const Edit& edit) {
  boost::json::object object = boost::json::parse(text).as_object();
  edit(object);
  return boost::json::serialize(object);
}

// The message of the LaunchError that reading and validating `text` throws ("" if none).
std::string rejection(const std::string& text) {
  try {
    vyre_launch::validate_manifest(vyre_launch::parse_manifest(text, "manifest.json"));
  } catch (const LaunchError& error) {
    return error.what();
  }
  return "";
}

boost::json::object& buffer(boost::json::object& m, std::size_t i) { return m["buffers"].as_array()[i].as_object(); }

boost::json::object metrics_buffer(const char* element, std::uint64_t count, std::uint32_t binding) {
  const std::uint64_t size = element == std::string("f64") ? 8 : 4;
  return boost::json::object{{"name", "metrics"},        {"binding", binding},    {"role", "read_write"},
                             {"element", element},       {"element_bytes", size}, {"count", count},
                             {"byte_size", count * size}};
}

struct BadManifest {
  const char* what;
  const char* base;  // example the manifest comes from
  Edit edit;
  const char* message;
};

const std::vector<BadManifest>& bad_manifests() {
  static const std::vector<BadManifest> table = {
      {"wrong schema", "saxpy", [](auto& m) { m["schema"] = "vyre-aot-manifest/9"; }, "this launcher reads"},
      {"missing grid", "saxpy", [](auto& m) { m.erase("grid"); }, "\"grid\" is missing"},
      {"grid of the wrong type", "saxpy", [](auto& m) { m["grid"] = "big"; }, "must be an array"},
      {"grid with two axes", "saxpy",
       [](auto& m) {
         m["grid"] = boost::json::array{8, 1};
       },
       "must have 3 axes"},
      {"negative count", "saxpy", [](auto& m) { buffer(m, 0)["count"] = -1; }, "non-negative integer"},
      {"fractional size", "saxpy", [](auto& m) { buffer(m, 0)["byte_size"] = 4.5; }, "non-negative integer"},
      {"empty entry point", "saxpy", [](auto& m) { m["entry_point"] = ""; }, "entry_point is empty"},
      {"entry point not an identifier", "saxpy", [](auto& m) { m["entry_point"] = "main kernel"; },
       "is not a PTX identifier"},
      {"no buffers", "saxpy", [](auto& m) { m["buffers"] = boost::json::array{}; }, "has no buffers"},
      {"target mismatch", "saxpy", [](auto& m) { m["target_sm"] = 80; }, "does not match target_sm"},
      {"zero grid axis", "saxpy",
       [](auto& m) {
         m["grid"] = boost::json::array{0, 1, 1};
       },
       "has a zero x axis"},
      {"zero workgroup axis", "saxpy",
       [](auto& m) {
         m["workgroup"] = boost::json::array{128, 1, 0};
       },
       "has a zero z axis"},
      {"grid product overflow", "saxpy",
       [](auto& m) {
         m["grid"] = boost::json::array{4294967295u, 4294967295u, 4294967295u};
       },
       "overflows u64"},
      {"workgroup over 1024", "saxpy",
       [](auto& m) {
         m["workgroup"] = boost::json::array{1024, 2, 1};
       },
       "2048 invocations; at most 1024"},
      {"invocation ids over u32", "saxpy",
       [](auto& m) {
         m["grid"] = boost::json::array{4294967295u, 1, 1};
       },
       "over the u32 invocation id range"},
      {"N over u32", "saxpy", [](auto& m) { m["dispatch_elements"] = 1ull << 33; }, "kernels take N as u32"},
      {"zero fixpoint iterations", "saxpy", [](auto& m) { m["fixpoint_iterations"] = 0; }, "would never run"},
      {"byte size mismatch", "saxpy", [](auto& m) { buffer(m, 1)["byte_size"] = 4095; }, "says byte_size=4095"},
      {"byte size overflow", "saxpy",
       [](auto& m) {
         buffer(m, 1)["count"] = 1ull << 62;
         buffer(m, 1)["byte_size"] = 0;
       },
       "byte size overflows u64"},
      {"count over u32", "saxpy",
       [](auto& m) {
         buffer(m, 1)["count"] = 1ull << 33;
         buffer(m, 1)["byte_size"] = 4ull << 33;
       },
       "kernels index buffers with u32"},
      {"zero count", "saxpy",
       [](auto& m) {
         buffer(m, 1)["count"] = 0;
         buffer(m, 1)["byte_size"] = 0;
       },
       "has count 0"},
      {"unknown element type", "saxpy", [](auto& m) { buffer(m, 1)["element"] = "f17"; }, "is not a storage type"},
      {"element size mismatch", "saxpy", [](auto& m) { buffer(m, 1)["element_bytes"] = 8; },
       "f32 elements are 4 bytes"},
      {"unknown role", "saxpy", [](auto& m) { buffer(m, 1)["role"] = "scratch"; }, "expected read, uniform"},
      {"buffer name not an identifier", "saxpy", [](auto& m) { buffer(m, 1)["name"] = "../x"; }, "not an identifier"},
      {"duplicate buffer name", "saxpy", [](auto& m) { buffer(m, 1)["name"] = "alpha"; }, "two buffers are named"},
      {"duplicate binding", "saxpy", [](auto& m) { buffer(m, 1)["binding"] = 0; }, "two buffers use binding 0"},
      {"output range outside the buffer", "saxpy",
       [](auto& m) {
         buffer(m, 2)["output_byte_range"] = boost::json::array{0, 8192};
       },
       "is not inside its 4096 bytes"},
      {"output range on an input", "saxpy",
       [](auto& m) {
         buffer(m, 1)["output_byte_range"] = boost::json::array{0, 4};
       },
       "but has an output_byte_range"},
      {"metrics of f32", "saxpy", [](auto& m) { m["buffers"].as_array().push_back(metrics_buffer("f32", 8, 7)); },
       "metrics records are u32 words"},
      {"metrics under 8 words", "saxpy",
       [](auto& m) { m["buffers"].as_array().push_back(metrics_buffer("u32", 4, 7)); }, "has 4 words"},
      {"read-only metrics", "saxpy",
       [](auto& m) {
         auto metrics = metrics_buffer("u32", 8, 7);
         metrics["role"] = "read";
         m["buffers"].as_array().push_back(metrics);
       },
       "the metrics buffer is a read buffer"},
      {"two metrics buffers", "saxpy",
       [](auto& m) {
         m["buffers"].as_array().push_back(metrics_buffer("u32", 8, 7));
         m["buffers"].as_array().push_back(metrics_buffer("u32", 8, 8));
       },
       "2 buffers named metrics"},
      {"parameter of a missing buffer", "saxpy",
       [](auto& m) { m["kernel_params"].as_array()[0].as_object()["buffer"] = 9; }, "names buffer 9"},
      {"pointer parameter of 4 bytes", "saxpy",
       [](auto& m) { m["kernel_params"].as_array()[0].as_object()["bytes"] = 4; }, "is 4 bytes; it must be 8"},
      {"unknown parameter kind", "saxpy",
       [](auto& m) { m["kernel_params"].as_array()[0].as_object()["kind"] = "stream"; }, "expected buffer_pointer"},
      {"grid barrier in a plain kernel", "saxpy",
       [](auto& m) {
         m["kernel_params"].as_array().push_back(boost::json::object{{"kind", "grid_barrier"}, {"bytes", 8}});
       },
       "the entry is not cooperative"},
      {"no kernel parameters", "saxpy", [](auto& m) { m["kernel_params"] = boost::json::array{}; },
       "has no parameters"},
      {"kernel file outside the bundle", "saxpy",
       [](auto& m) { m["kernel"].as_object()["ptx"].as_object()["file"] = "../kernel.ptx"; }, "not a plain path"},
      {"absolute kernel file", "saxpy",
       [](auto& m) { m["kernel"].as_object()["ptx"].as_object()["file"] = "/tmp/kernel.ptx"; }, "not a plain path"},
      {"malformed SHA-256", "saxpy", [](auto& m) { m["kernel"].as_object()["ptx"].as_object()["sha256"] = "ABC"; },
       "not 64 lower-case hex digits"},
      {"weights larger than the first buffer", "saxpy",
       [](auto& m) {
         m["weights"] = boost::json::object{
             {"file", "weights.bin"}, {"sha256", std::string(64, 'a')}, {"byte_size", 8}, {"buffer", "alpha"}};
       },
       "the weights are 8 bytes but the first input buffer \"alpha\" holds 4"},
      {"weights for another buffer", "saxpy",
       [](auto& m) {
         m["weights"] = boost::json::object{
             {"file", "weights.bin"}, {"sha256", std::string(64, 'a')}, {"byte_size", 4}, {"buffer", "x"}};
       },
       "the first input buffer is \"alpha\""},
      {"input file for an output buffer", "prefix_sum",
       [](auto& m) {
         m["inputs"] = boost::json::array{boost::json::object{
             {"buffer", "out"}, {"file", "inputs/out.bin"}, {"sha256", std::string(64, 'a')}, {"byte_size", 4096}}};
       },
       "input file for output buffer \"out\""},
      {"input file of the wrong size", "saxpy",
       [](auto& m) {
         m["inputs"] = boost::json::array{boost::json::object{
             {"buffer", "x"}, {"file", "inputs/x.bin"}, {"sha256", std::string(64, 'a')}, {"byte_size", 16}}};
       },
       "is 16 bytes; the buffer holds 4096"},
      {"phases without a cooperative entry", "prefix_sum", [](auto& m) { m["cooperative"] = false; },
       "takes a grid barrier but the entry is not cooperative"},
      {"cooperative entry without barrier bytes", "prefix_sum", [](auto& m) { m["grid_barrier_bytes"] = 0; },
       "needs grid_barrier_bytes > 0"},
      {"cooperative phase", "prefix_sum", [](auto& m) { m["phases"].as_array()[0].as_object()["cooperative"] = true; },
       "needs exactly 1"},
      {"workgroup buffer as a parameter", "prefix_sum",
       [](auto& m) { m["kernel_params"].as_array()[0].as_object()["buffer"] = 3; }, "names workgroup buffer \"tile\""},
  };
  return table;
}

vyre_launch::cuda::DeviceLimits h100_like() {
  vyre_launch::cuda::DeviceLimits d;
  d.name = "test device";
  d.sm = 90;
  d.max_threads_per_block = 1024;
  d.max_block[0] = 1024, d.max_block[1] = 1024, d.max_block[2] = 64;
  d.max_grid[0] = 2147483647u, d.max_grid[1] = 65535, d.max_grid[2] = 65535;
  d.max_shared_per_block = 49152;
  d.multiprocessors = 132;
  d.cooperative_launch = true;
  return d;
}

vyre_launch::Environment env_of(std::map<std::string, std::string> values) {
  return vyre_launch::read_environment([values](const char* name) -> const char* {
    auto it = values.find(name);
    return it == values.end() ? nullptr : it->second.c_str();
  });
}

std::string env_rejection(std::map<std::string, std::string> values) {
  try {
    env_of(std::move(values));
  } catch (const LaunchError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the emitted manifests of the examples pass the launcher's checks") {
  for (const char* name : {"saxpy", "prefix_sum", "xor", "histogram"}) {
    CAPTURE(name);
    CHECK(rejection(baseline(name)).empty());
  }
}

TEST_CASE("every bad manifest is rejected with its message and a fix") {
  std::map<std::string, std::string> bases;
  for (const BadManifest& bad : bad_manifests()) {
    CAPTURE(bad.what);
    if (!bases.count(bad.base)) bases[bad.base] = baseline(bad.base);
    const std::string message = rejection(edited(bases[bad.base], bad.edit));
    CHECK_MESSAGE(has(message, bad.message), "got: " << message);
    CHECK(has(message, "Fix: "));
  }
}

TEST_CASE("the JSON reader rejects malformed text without reading past it") {
  const char* bad[] = {
      "",  "{",          "{\"a\":}", "[1,]",        "{\"a\":1,}",        "\"abc",    "{\"a\" 1}", "tru", "01", "1.",
      "-", "{\"a\":1}{", "\"\\x\"",  "\"\\ud800\"", "{\"a\":1,\"a\":2}", "\"a\nb\"", "nul"};
  for (const char* text : bad) {
    CAPTURE(text);
    CHECK_THROWS_AS(jl::parse(text, "test"), LaunchError);
  }
  std::string deep(100, '[');
  deep += std::string(100, ']');
  CHECK_THROWS_WITH_AS(jl::parse(deep, "test"), doctest::Contains("nesting deeper"), LaunchError);
  const jl::Value v = jl::parse(R"({"s":"a\u00e9\ud83d\ude00\n","n":[0,-1.5e3,true,null]})", "test");
  REQUIRE(v.find("s") != nullptr);
  CHECK(v.find("s")->text == "a\xC3\xA9\xF0\x9F\x98\x80\n");
  CHECK(v.find("n")->items.size() == 4);
  CHECK(v.find("n")->items[1].text == "-1.5e3");
  CHECK(v.find("missing") == nullptr);
}

TEST_CASE("SHA-256 matches the FIPS 180-4 examples and the SDK") {
  CHECK(vyre_launch::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(vyre_launch::sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  std::string long_text;
  for (int i = 0; i < 1000; ++i) long_text += static_cast<char>(i * 7);
  const std::vector<std::uint8_t> bytes(long_text.begin(), long_text.end());
  CHECK(vyre_launch::sha256_hex(long_text) == vyre::sha256_hex(bytes));
}

TEST_CASE("the environment is checked before the device") {
  CHECK(has(env_rejection({{"VYRE_CUDA_DEVICE_ORDINAL", "-1"}}), "is not a device ordinal"));
  CHECK(has(env_rejection({{"VYRE_CUDA_DEVICE_ORDINAL", "one"}}), "is not a device ordinal"));
  CHECK(has(env_rejection({{"VYRE_CUDA_DEVICE_ORDINAL", ""}}), "is not a device ordinal"));
  CHECK(has(env_rejection({{"VYRE_TTT_STEPS", "0"}}), "VYRE_TTT_STEPS=0 would launch nothing"));
  CHECK(has(env_rejection({{"VYRE_TTT_STEPS", "-3"}}), "is not a positive integer"));
  CHECK(has(env_rejection({{"VYRE_TTT_TARGET_LOSS", "nan"}}), "is not a finite number"));
  CHECK(has(env_rejection({{"VYRE_TTT_TARGET_LOSS", "inf"}}), "is not a finite number"));
  CHECK(has(env_rejection({{"VYRE_TTT_TARGET_LOSS", "0.5x"}}), "is not a finite number"));

  const vyre_launch::Environment env = env_of({{"VYRE_CUDA_DEVICE_ORDINAL", "1"},
                                               {"VYRE_TTT_STEPS", "12"},
                                               {"VYRE_TTT_TARGET_LOSS", "0.25"},
                                               {"VYRE_CUDA_FORCE_SPLIT_GRID_SYNC", "yes"}});
  CHECK(env.device_ordinal == 1);
  CHECK(env.ttt_steps == 12);
  CHECK(env.ttt_target_loss == 0.25f);
  CHECK(env.force_split_grid_sync);
  CHECK(vyre_launch::select_device_ordinal(env, 2) == 1);
  CHECK_THROWS_WITH_AS(vyre_launch::select_device_ordinal(env, 1), doctest::Contains("names no visible device"),
                       LaunchError);
  try {
    vyre_launch::select_device_ordinal(env_of({}), 0);
    FAIL("no visible device must be an error");
  } catch (const LaunchError& error) {
    CHECK(error.exit_code() == vyre_launch::kExitNoDevice);
  }

  const auto without_metrics = vyre_launch::parse_manifest(baseline("saxpy"), "m");
  CHECK_THROWS_WITH_AS(vyre_launch::check_environment(env, without_metrics),
                       doctest::Contains("has no `metrics` buffer"), LaunchError);
  const auto with_metrics =
      vyre_launch::parse_manifest(manifest_text(emit_in_process(aot_test::metrics_program())), "m");
  CHECK_NOTHROW(vyre_launch::check_environment(env, with_metrics));
}

TEST_CASE("the command line") {
  auto line = vyre_launch::parse_command_line({"b", "--in", "x=x.bin", "--in=y=y.bin", "--out", "o"}, "");
  CHECK(line.bundle_dir == "b");
  REQUIRE(line.inputs.size() == 2);
  CHECK(line.inputs[1] == std::pair<std::string, std::string>{"y", "y.bin"});
  CHECK(line.out_dir == "o");
  CHECK(vyre_launch::parse_command_line({}, "/bundle").out_dir.empty());  // BUNDLE/outputs, opened beneath it
  CHECK_THROWS_WITH_AS(vyre_launch::parse_command_line({}, ""), doctest::Contains("no bundle directory"), LaunchError);
  CHECK_THROWS_WITH_AS(vyre_launch::parse_command_line({"b", "--in", "x"}, ""), doctest::Contains("NAME=FILE"),
                       LaunchError);
  CHECK_THROWS_WITH_AS(vyre_launch::parse_command_line({"b", "--fast"}, ""), doctest::Contains("unknown option"),
                       LaunchError);
  CHECK_THROWS_WITH_AS(vyre_launch::parse_command_line({"b", "c"}, ""), doctest::Contains("unexpected argument"),
                       LaunchError);
}

TEST_CASE("launches are checked against the device limits") {
  const auto m = vyre_launch::parse_manifest(baseline("saxpy"), "m");
  auto device = h100_like();
  CHECK_NOTHROW(vyre_launch::check_launch_limits(m, m.entry, device, 1024));
  CHECK_THROWS_WITH_AS(vyre_launch::check_launch_limits(m, m.entry, device, 64),
                       doctest::Contains("the compiled kernel allows 64"), LaunchError);
  device.max_block[0] = 64;
  CHECK_THROWS_WITH_AS(vyre_launch::check_launch_limits(m, m.entry, device, 0), doctest::Contains("axis x"),
                       LaunchError);
  device = h100_like();
  device.max_threads_per_block = 64;
  CHECK_THROWS_WITH_AS(vyre_launch::check_launch_limits(m, m.entry, device, 0),
                       doctest::Contains("above the device limit 64"), LaunchError);
  device = h100_like();
  device.max_grid[0] = 4;
  CHECK_THROWS_WITH_AS(vyre_launch::check_launch_limits(m, m.entry, device, 0), doctest::Contains("grid [8, 1, 1]"),
                       LaunchError);
  const auto scan = vyre_launch::parse_manifest(baseline("prefix_sum"), "m");
  device = h100_like();
  device.max_shared_per_block = 16;
  CHECK_THROWS_WITH_AS(vyre_launch::check_launch_limits(scan, scan.entry, device, 0),
                       doctest::Contains("bytes of workgroup memory"), LaunchError);

  device = h100_like();
  device.sm = 80;
  CHECK_THROWS_WITH_AS(vyre_launch::check_device_target(m, device), doctest::Contains("vyre-aot --sm 80"), LaunchError);
}

TEST_CASE("grid_sync bundles launch cooperatively when the grid fits, else phase by phase") {
  const auto m = vyre_launch::parse_manifest(baseline("prefix_sum"), "m");
  REQUIRE(m.entry.cooperative);
  REQUIRE(m.phases.size() == 2);
  const auto device = h100_like();
  auto plan = vyre_launch::plan_launch(m, device, 132 * 4, false);
  CHECK(plan.cooperative);
  CHECK(plan.kernels == std::vector<const vyre_launch::Entry*>{&m.entry});
  plan = vyre_launch::plan_launch(m, device, 8, false);  // 16 workgroups do not fit 8
  CHECK_FALSE(plan.cooperative);
  CHECK(plan.kernels == std::vector<const vyre_launch::Entry*>{&m.phases[0], &m.phases[1]});
  plan = vyre_launch::plan_launch(m, device, 132 * 4, true);
  CHECK_FALSE(plan.cooperative);
  CHECK(plan.kernels.size() == 2);
  auto no_phases = m;
  no_phases.phases.clear();
  CHECK_THROWS_WITH_AS(vyre_launch::plan_launch(no_phases, device, 8, false), doctest::Contains("co-resident"),
                       LaunchError);
  const auto plain = vyre_launch::parse_manifest(baseline("saxpy"), "m");
  plan = vyre_launch::plan_launch(plain, device, 0, true);
  CHECK_FALSE(plan.cooperative);
  CHECK(plan.kernels.size() == 1);
}

TEST_CASE("kernel arguments follow the manifest's parameter layout") {
  const auto m = vyre_launch::parse_manifest(baseline("prefix_sum"), "m");
  const std::vector<vyre_launch::cuda::CUdeviceptr> pointers = {0x1000, 0x2000, 0x3000, 0};
  const auto values = vyre_launch::kernel_argument_values(m, m.entry, pointers, 0x9000);
  // 3 pointers, 3 counts, N, tail guard, grid barrier.
  CHECK(values == std::vector<std::uint64_t>{0x1000, 0x2000, 0x3000, 1024, 1024, 16, 1024, 0, 0x9000});
  CHECK_THROWS_AS(vyre_launch::kernel_argument_values(m, m.entry, pointers, 0), LaunchError);
  const auto phase = vyre_launch::kernel_argument_values(m, m.phases[1], pointers, 0);
  CHECK(phase.size() == 8);
  CHECK(vyre_launch::cubin_runs_on(m, h100_like()) == m.cubin.has_value());
}

TEST_CASE("the metrics record and its lines") {
  const float loss = 0.125f;
  std::uint32_t words[8] = {7, 0, 4096, 0, 0, 0, 0, 0};
  std::memcpy(&words[1], &loss, 4);
  const auto record = vyre_launch::decode_metric_record(words);
  CHECK(vyre_launch::final_line(record) == "FINAL step=7 loss=0.125000 tokens=4096");
  CHECK(vyre_launch::converged_line(3, record) == "TTT_CONVERGED step=3 loss=0.125000 tokens=4096");
}

TEST_CASE("loading a bundle checks files, sizes, SHA-256 and inputs before the device") {
  const vyre::Program saxpy = example("saxpy");
  const fs::path dir = aot_test::fresh_dir("load_bundle");
  aot_test::write_files(emit_in_process(saxpy), dir);
  const fs::path inputs = aot_test::fresh_dir("load_bundle_inputs");
  std::vector<std::pair<std::string, std::string>> in;
  for (const auto& [name, bytes] : aot_test::example_inputs(saxpy, 1)) {
    aot_test::write_bytes(inputs / (name + ".bin"), bytes);
    in.emplace_back(name, (inputs / (name + ".bin")).string());
  }
  const auto bundle = vyre_launch::load_bundle(dir.string(), in);
  REQUIRE(bundle.initial.size() == 3);
  CHECK(bundle.initial[0]->size() == 4);
  CHECK(bundle.initial[2]->size() == 4096);

  CHECK_THROWS_WITH_AS(vyre_launch::load_bundle(dir.string(), {in[0], in[1]}),
                       doctest::Contains("input buffer \"y\" (1024 f32) has no data"), LaunchError);
  auto wrong = in;
  wrong[1].second = in[0].second;  // 4 bytes for the 4096-byte x
  CHECK_THROWS_WITH_AS(vyre_launch::load_bundle(dir.string(), wrong), doctest::Contains("is 4 bytes; buffer \"x\""),
                       LaunchError);
  CHECK_THROWS_WITH_AS(vyre_launch::load_bundle(dir.string(), {{"nope", in[0].second}}),
                       doctest::Contains("does not have"), LaunchError);

  std::string ptx = aot_test::read_text(dir / "kernel.ptx");
  ptx[ptx.size() / 2] ^= 1;
  aot_test::write_bytes(dir / "kernel.ptx", std::vector<std::uint8_t>(ptx.begin(), ptx.end()));
  CHECK_THROWS_WITH_AS(vyre_launch::load_bundle(dir.string(), in), doctest::Contains("has SHA-256"), LaunchError);
  ptx.pop_back();
  aot_test::write_bytes(dir / "kernel.ptx", std::vector<std::uint8_t>(ptx.begin(), ptx.end()));
  CHECK_THROWS_WITH_AS(vyre_launch::load_bundle(dir.string(), in), doctest::Contains("bytes; the manifest says"),
                       LaunchError);
}

TEST_CASE("weights fill the first input buffer, zero-padded, and exclude --in for it") {
  const vyre::Program saxpy = example("saxpy");
  const std::vector<std::uint8_t> weights = {0, 0, 0x80, 0x3f};  // 1.0f
  const fs::path dir = aot_test::fresh_dir("weights_bundle");
  aot_test::write_files(emit_in_process(saxpy, {}, std::nullopt, weights), dir);
  const fs::path x = dir / "x.bin";
  aot_test::write_bytes(x, std::vector<std::uint8_t>(4096, 1));
  const auto bundle = vyre_launch::load_bundle(dir.string(), {{"x", x.string()}, {"y", x.string()}});
  CHECK(*bundle.initial[0] == std::string("\0\0\x80\x3f", 4));
  CHECK_THROWS_WITH_AS(vyre_launch::load_bundle(dir.string(), {{"alpha", x.string()}}),
                       doctest::Contains("is filled from the bundle's weights"), LaunchError);
}

// ---- hostile files: links, FIFOs, devices, sizes (docs/RELIABILITY.md, red team 2026-11-24) ---------

namespace {

// A saxpy bundle whose x input is bundled as inputs/x.bin, with its inputs for alpha and y.
struct LinkedBundle {
  fs::path root;    // scratch: bundle/, outside/
  fs::path bundle;  // root/bundle
  fs::path outside;
  std::vector<std::pair<std::string, std::string>> in;  // --in alpha, y
};

LinkedBundle linked_bundle(const std::string& name, const std::vector<std::uint8_t>& weights = {}) {
  LinkedBundle b;
  b.root = aot_test::fresh_dir(name);
  b.bundle = b.root / "bundle";
  b.outside = b.root / "outside";
  fs::create_directories(b.outside);
  const vyre::Program saxpy = example("saxpy");
  const auto files = emit_in_process(saxpy, {}, std::nullopt, weights);
  aot_test::write_files(files, b.bundle);
  const std::vector<std::uint8_t> x(4096, 7);
  fs::create_directories(b.bundle / "inputs");
  aot_test::write_bytes(b.bundle / "inputs" / "x.bin", x);
  const std::string text = edited(manifest_text(files), [&](boost::json::object& m) {
    m["inputs"] = boost::json::array{boost::json::object{
        {"buffer", "x"}, {"file", "inputs/x.bin"}, {"sha256", vyre::sha256_hex(x)}, {"byte_size", x.size()}}};
  });
  aot_test::write_bytes(b.bundle / "manifest.json", std::vector<std::uint8_t>(text.begin(), text.end()));
  for (const char* buffer : {"alpha", "y"}) {
    if (!weights.empty() && std::string(buffer) == "alpha") continue;
    const fs::path file = b.root / (std::string(buffer) + ".bin");
    aot_test::write_bytes(file, std::vector<std::uint8_t>(buffer == std::string("alpha") ? 4 : 4096, 1));
    b.in.emplace_back(buffer, file.string());
  }
  return b;
}

// Replace `file` by a symbolic link to `target`.
void make_link(const fs::path& file, const fs::path& target) {
  fs::remove_all(file);
  fs::create_symlink(target, file);
}

// Move `file` outside the bundle and link to it: the same bytes, so only the link can be refused.
void move_out_and_link(const LinkedBundle& b, const std::string& relative) {
  const fs::path moved = b.outside / fs::path(relative).filename();
  fs::rename(b.bundle / relative, moved);
  fs::create_symlink(moved, b.bundle / relative);
}

std::string load_error(const LinkedBundle& b) {
  try {
    vyre_launch::load_bundle(b.bundle.string(), b.in);
  } catch (const LaunchError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a bundle loads with no links in it (the baseline of the link cases)") {
  const LinkedBundle b = linked_bundle("links_baseline");
  const auto bundle = vyre_launch::load_bundle(b.bundle.string(), b.in);
  CHECK(*bundle.initial[1] == std::string(4096, '\7'));
}

TEST_CASE("every bundle file that is a symbolic link is refused before it is read, even with the right bytes") {
  for (const char* file : {"manifest.json", "kernel.ptx", "inputs/x.bin", "inputs"}) {
    CAPTURE(file);
    const LinkedBundle b = linked_bundle("links_file");
    move_out_and_link(b, file);
    const std::string error = load_error(b);
    CHECK(has(error, "is a symbolic link"));
    CHECK(has(error, "Fix:"));
  }
  const LinkedBundle w = linked_bundle("links_weights", {0, 0, 0x80, 0x3f});
  move_out_and_link(w, "weights.bin");
  CHECK(has(load_error(w), "\"" + (w.bundle / "weights.bin").string() + "\" is a symbolic link"));
}

TEST_CASE("a link to an outside file reveals nothing about it: neither its size nor its SHA-256") {
  const LinkedBundle b = linked_bundle("links_outside");
  const fs::path secret = b.outside / "secret";
  aot_test::write_bytes(secret, std::vector<std::uint8_t>(12345, 'S'));
  for (const char* file : {"kernel.ptx", "inputs/x.bin"}) {
    make_link(b.bundle / file, secret);
    const std::string error = load_error(b);
    CHECK(has(error, "is a symbolic link"));
    CHECK_FALSE(has(error, "12345"));
    CHECK_FALSE(has(error, "SHA-256"));
    CHECK_FALSE(has(error, secret.string()));
  }
}

TEST_CASE("links that stay inside the bundle are refused too (docs/AOT.md: a bundle holds no links)") {
  const LinkedBundle b = linked_bundle("links_inside");
  fs::rename(b.bundle / "kernel.ptx", b.bundle / "kernel.real");
  fs::create_symlink("kernel.real", b.bundle / "kernel.ptx");
  CHECK(has(load_error(b), "is a symbolic link"));
}

TEST_CASE("bundle files that are not regular files are refused by type, before they are opened or read") {
  const LinkedBundle b = linked_bundle("not_regular");
  // A FIFO would block a reader forever; /dev/zero would never end.
  fs::remove(b.bundle / "manifest.json");
  REQUIRE(::mkfifo((b.bundle / "manifest.json").c_str(), 0600) == 0);
  CHECK(has(load_error(b), "is a FIFO, not a regular file"));
  fs::remove(b.bundle / "manifest.json");
  fs::create_directory(b.bundle / "manifest.json");
  CHECK(has(load_error(b), "is a directory, not a regular file"));

  const LinkedBundle k = linked_bundle("not_regular_kernel");
  fs::remove(k.bundle / "kernel.ptx");
  REQUIRE(::mkfifo((k.bundle / "kernel.ptx").c_str(), 0600) == 0);
  CHECK(has(load_error(k), "is a FIFO, not a regular file"));
}

TEST_CASE("a manifest larger than the limit is refused by its size, unread") {
  const LinkedBundle b = linked_bundle("huge_manifest");
  fs::resize_file(b.bundle / "manifest.json", std::uintmax_t{1} << 40);  // sparse: 1 TiB of nothing
  const std::string error = load_error(b);
  CHECK(has(error, "more than the"));
  CHECK(has(error, "-byte limit of a manifest"));
}

TEST_CASE("--in files must be regular files of the buffer's size: no device, no FIFO, no unbounded read") {
  const LinkedBundle b = linked_bundle("in_files");
  auto in = b.in;
  in[1].second = "/dev/zero";
  CHECK_THROWS_WITH_AS(vyre_launch::load_bundle(b.bundle.string(), in),
                       doctest::Contains("\"/dev/zero\" is a character device, not a regular file"), LaunchError);
  const fs::path fifo = b.root / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  in[1].second = fifo.string();
  CHECK_THROWS_WITH_AS(vyre_launch::load_bundle(b.bundle.string(), in), doctest::Contains("is a FIFO"), LaunchError);
  // A link the user gives on the command line is the user's choice: followed.
  const fs::path link = b.root / "y_link";
  fs::create_symlink(b.in[1].second, link);
  in[1].second = link.string();
  CHECK_NOTHROW(vyre_launch::load_bundle(b.bundle.string(), in));
}

TEST_CASE("outputs are never written through a link: a linked outputs/ or NAME.bin is refused before the device") {
  const LinkedBundle b = linked_bundle("outputs_links");
  const auto bundle = vyre_launch::load_bundle(b.bundle.string(), b.in);
  CHECK_NOTHROW(vyre_launch::check_outputs(bundle, ""));  // absent: created when written
  CHECK_FALSE(fs::exists(b.bundle / "outputs"));

  // outputs/ a link to a directory elsewhere: refused, nothing created there.
  fs::create_directory_symlink(b.outside, b.bundle / "outputs");
  CHECK_THROWS_WITH_AS(vyre_launch::check_outputs(bundle, ""),
                       doctest::Contains(("\"" + (b.bundle / "outputs").string() + "\" is a symbolic link").c_str()),
                       LaunchError);
  CHECK_THROWS_WITH_AS(vyre_launch::open_outputs(bundle, ""), doctest::Contains("is a symbolic link"), LaunchError);
  CHECK(fs::is_empty(b.outside));

  // outputs/y.bin a link to a victim file: refused, the victim keeps its bytes.
  fs::remove(b.bundle / "outputs");
  fs::create_directory(b.bundle / "outputs");
  const fs::path victim = b.outside / "victim";
  aot_test::write_bytes(victim, {'k', 'e', 'e', 'p'});
  fs::create_symlink(victim, b.bundle / "outputs" / "y.bin");
  CHECK_THROWS_WITH_AS(vyre_launch::check_outputs(bundle, ""),
                       doctest::Contains("exists and is a symbolic link"), LaunchError);
  // Also when the link appears after the check: the write itself refuses it.
  const vyre_launch::Directory outputs = vyre_launch::open_outputs(bundle, "");
  CHECK_THROWS_WITH_AS(outputs.write("y.bin", "bundle-controlled bytes"), doctest::Contains("is a symbolic link"),
                       LaunchError);
  CHECK(aot_test::read_text(victim) == "keep");

  // The same rules for --out DIR: its NAME.bin may not be a link or a directory.
  const fs::path out = b.root / "out";
  fs::create_directories(out / "y.bin");
  CHECK_THROWS_WITH_AS(vyre_launch::check_outputs(bundle, out.string()),
                       doctest::Contains("exists and is a directory"), LaunchError);
}

TEST_CASE("an output replaces a regular file by a fresh one: hard links to it keep their bytes") {
  const LinkedBundle b = linked_bundle("outputs_replace");
  const auto bundle = vyre_launch::load_bundle(b.bundle.string(), b.in);
  const vyre_launch::Directory outputs = vyre_launch::open_outputs(bundle, "");
  CHECK(fs::is_directory(b.bundle / "outputs"));
  const fs::path victim = b.outside / "victim";
  aot_test::write_bytes(victim, {'k', 'e', 'e', 'p'});
  fs::create_hard_link(victim, b.bundle / "outputs" / "y.bin");
  CHECK_NOTHROW(vyre_launch::check_outputs(bundle, ""));
  outputs.write("y.bin", "new bytes");
  CHECK(aot_test::read_text(b.bundle / "outputs" / "y.bin") == "new bytes");
  CHECK(aot_test::read_text(victim) == "keep");
  // No temporary file is left beside it.
  CHECK(std::distance(fs::directory_iterator(b.bundle / "outputs"), fs::directory_iterator()) == 1);

  // --out DIR absent: created, with its parents.
  const fs::path out = b.root / "new" / "out";
  vyre_launch::open_outputs(bundle, out.string()).write("y.bin", "x");
  CHECK(aot_test::read_text(out / "y.bin") == "x");
}
