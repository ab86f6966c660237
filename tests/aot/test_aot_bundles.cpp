// vyre-aot, run as a process through the registry against the AOT-only `cuda` test plugin (the real
// emitter behind the real ABI): a complete bundle for every example whose manifest validates with
// the launcher's checks and whose SHA-256 entries match the files; its errors; the emitter's target
// choice; and vyre-launch's clean failure before and without a driver.
#include <doctest/doctest.h>

#include <dlfcn.h>

#include <cstdlib>

#include <boost/json/parse.hpp>

#include "aot/aot_emit.hpp"
#include "aot/ptxas.hpp"
#include "aot_test_support.hpp"
#include "errors.hpp"
#include "manifest.hpp"
#include "vyre/builder.hpp"
#include "vyre/fingerprint.hpp"
#include "vyre/json.hpp"

namespace fs = std::filesystem;
using aot_test::Process;
using aot_test::quote;

namespace {

const std::string kPlugins = std::string("--no-default-plugins --plugins ") + VYRE_AOT_TEST_PLUGIN_DIR;

Process vyre_aot(const std::string& args, const std::string& env = "") {
  return aot_test::run(quote(VYRE_AOT_EXE) + " compile " + args + " " + kPlugins, env);
}

Process run_launch(const std::string& args, const std::string& env = "") {
  return aot_test::run(quote(VYRE_LAUNCH_EXE) + " " + args, env);
}

std::string sha_of(const fs::path& path) { return vyre::sha256_hex(aot_test::read_bytes(path)); }

// Every file the manifest names exists with the recorded size and SHA-256 (computed here with the
// SDK's OpenSSL SHA-256, independently of the launcher's).
void check_recorded(const fs::path& dir, const vyre_launch::FileRef& ref) {
  CAPTURE(ref.file);
  REQUIRE(fs::exists(dir / ref.file));
  CHECK(fs::file_size(dir / ref.file) == ref.byte_size);
  CHECK(sha_of(dir / ref.file) == ref.sha256);
}

vyre_launch::Manifest check_bundle_dir(const fs::path& dir, const vyre::Program& program) {
  const std::string text = aot_test::read_text(dir / "manifest.json");
  const vyre_launch::Manifest m = vyre_launch::parse_manifest(text, "manifest.json");
  CHECK_NOTHROW(vyre_launch::validate_manifest(m));
  check_recorded(dir, m.ptx);
  if (m.cubin) check_recorded(dir, *m.cubin);
  if (m.weights) check_recorded(dir, m.weights->file);
  for (const auto& input : m.inputs) check_recorded(dir, input.file);
  CHECK(m.buffers.size() == program.buffers.size());
  CHECK(m.program_fingerprint.size() == 64);
  CHECK(m.target == "sm_90");
  CHECK(!m.ptx_isa_version.empty());
  for (int axis = 0; axis < 3; ++axis) CHECK(m.grid[axis] > 0);
  // launcher/ is the launcher source tree, byte for byte.
  for (const std::string& name : vyre::cuda::aot::launcher_file_names()) {
    CAPTURE(name);
    const fs::path source = fs::path(VYRE_LAUNCHER_SOURCE_DIR) / fs::path(name).filename();
    CHECK(aot_test::read_text(dir / name) == aot_test::read_text(source));
  }
  return m;
}

bool ptxas_available() { return vyre::cuda::aot::find_ptxas().has_value(); }

}  // namespace

TEST_CASE("vyre-aot writes a complete bundle for every example") {
  const auto examples = aot_test::example_programs();
  REQUIRE(examples.size() >= 7);
  for (const fs::path& path : examples) {
    CAPTURE(path.filename().string());
    const vyre::Program program = vyre::load_program_file(path);
    const fs::path inputs = aot_test::fresh_dir("inputs_" + path.stem().string());
    std::string args = quote(path.string());
    for (const auto& [name, bytes] : aot_test::example_inputs(program, 7)) {
      aot_test::write_bytes(inputs / (name + ".bin"), bytes);
      args += " --in " + name + "=" + quote((inputs / (name + ".bin")).string());
    }
    const fs::path out = aot_test::fresh_dir("bundle_" + path.stem().string());
    const Process p = vyre_aot(args + " --target cuda --sm 90 --out " + quote(out.string()));
    REQUIRE_MESSAGE(p.exit_code == 0, p.err);
    CHECK(p.out_has("wrote "));
    const vyre_launch::Manifest m = check_bundle_dir(out, program);
    CHECK(m.program_fingerprint == vyre::fingerprint(program));
    CHECK(m.inputs.size() == program.input_indices().size());
    CHECK(fs::exists(out / "kernel.ptx"));
    CHECK(fs::exists(out / "kernel.cubin") == ptxas_available());
    for (const auto& [name, bytes] : aot_test::example_inputs(program, 7))
      CHECK(aot_test::read_bytes(out / "inputs" / (name + ".bin")) == bytes);
  }
}

TEST_CASE("vyre-aot fixes runtime-sized buffers from --in and --count, and records the source program") {
  const fs::path dir = aot_test::fresh_dir("runtime_sized");
  vyre::Program program = vyre::load_program_file(fs::path(VYRE_SOURCE_DIR) / "examples" / "xor.json");
  program.buffers[0].count = 0;  // a: runtime-sized
  program.buffers[1].count = 0;  // b: runtime-sized
  vyre::save_program_file(program, dir / "xor_rt.json");
  aot_test::write_bytes(dir / "a.bin", std::vector<std::uint8_t>(4096, 3));
  const std::string base = quote((dir / "xor_rt.json").string()) + " --in a=" + quote((dir / "a.bin").string());

  Process p = vyre_aot(base + " --out " + quote((dir / "missing").string()));
  CHECK(p.exit_code == 1);
  CHECK(p.err_has("buffer 'b' is runtime-sized (count 0)"));
  CHECK(p.err_has("--count b=N"));

  p = vyre_aot(base + " --count b=1024 --out " + quote((dir / "ok").string()));
  REQUIRE_MESSAGE(p.exit_code == 0, p.err);
  const std::string text = aot_test::read_text(dir / "ok" / "manifest.json");
  const auto m = vyre_launch::parse_manifest(text, "m");
  CHECK(m.buffers[0].count == 1024);
  CHECK(m.buffers[1].count == 1024);
  CHECK(m.inputs.size() == 1);
  const auto json = boost::json::parse(text).as_object();
  CHECK(json.at("source_program_fingerprint").as_string() == vyre::fingerprint(program));

  p = vyre_aot(base + " --count b=1000 --count a=7 --out " + quote((dir / "clash").string()));
  CHECK(p.exit_code == 1);
  CHECK(p.err_has("--count a=7 gives buffer 'a' 7 elements but it is declared with 1024"));
}

TEST_CASE("vyre-aot reports what is wrong with clear errors") {
  const fs::path dir = aot_test::fresh_dir("aot_errors");
  const std::string saxpy = quote(std::string(VYRE_SOURCE_DIR) + "/examples/saxpy.json");
  const auto out = [&](const std::string& name) { return " --out " + quote((dir / name).string()); };

  Process p = vyre_aot(saxpy + " --grid 0,1,1" + out("zero_grid"));
  CHECK(p.exit_code == 1);
  CHECK(p.err_has("zero"));
  CHECK(p.err_has("Fix:"));

  aot_test::write_bytes(dir / "big.bin", std::vector<std::uint8_t>(8, 0));
  p = vyre_aot(saxpy + " --weights " + quote((dir / "big.bin").string()) + out("big_weights"));
  CHECK(p.exit_code == 1);
  CHECK(p.err_has("the weights are 8 bytes but the first input buffer 'alpha' holds 4 bytes"));

  aot_test::write_bytes(dir / "w.bin", std::vector<std::uint8_t>(4, 0));
  p = vyre_aot(saxpy + " --weights " + quote((dir / "w.bin").string()) +
               " --in alpha=" + quote((dir / "w.bin").string()) + out("both"));
  CHECK(p.exit_code == 1);
  CHECK(p.err_has("gets both --weights and --in"));

  p = vyre_aot(saxpy + " --in x=" + quote((dir / "w.bin").string()) + out("short_input"));
  CHECK(p.exit_code == 1);
  CHECK(p.err_has("gives buffer 'x' 1 elements but it is declared with 1024"));

  p = vyre_aot(saxpy + " --in nothing=" + quote((dir / "w.bin").string()) + out("unknown_input"));
  CHECK(p.exit_code == 1);
  CHECK(p.err_has("which the program does not declare"));

  // Devices and FIFOs are refused unread (red team 2026-11-24): /dev/zero would never end.
  p = vyre_aot(saxpy + " --in x=/dev/zero" + out("zero_input"));
  CHECK(p.exit_code == 1);
  CHECK(p.err_has("[io]: input file for buffer 'x' '/dev/zero' is a character device, not a regular file"));
  p = vyre_aot(saxpy + " --weights /dev/zero" + out("zero_weights"));
  CHECK(p.exit_code == 1);
  CHECK(p.err_has("weights file '/dev/zero' is a character device"));

  p = vyre_aot(saxpy + " --target nosuch" + out("unknown_backend"));
  CHECK(p.exit_code == 1);
  CHECK(p.err_has("no backend plugin 'nosuch'"));

  p = vyre_aot(saxpy + " --sm 12" + out("bad_sm"));
  CHECK(p.exit_code == 1);
  CHECK(p.err_has("is not a CUDA target"));

  {
    using namespace vyre::dsl;
    vyre::ProgramBuilder b;
    b.workgroup(8);
    vyre::Buf metrics = b.buffer("metrics", vyre::Access::Output, vyre::Type::F32, 8);
    b.store(metrics, invocation_id(0), f32(1.0f));
    vyre::save_program_file(b.build(), dir / "f32_metrics.json");
  }
  p = vyre_aot(quote((dir / "f32_metrics.json").string()) + out("f32_metrics"));
  CHECK(p.exit_code == 1);
  CHECK(p.err_has("the bundle would not launch"));
  CHECK(p.err_has("metrics records are u32 words"));
  CHECK_FALSE(fs::exists(dir / "f32_metrics" / "manifest.json"));

  p = vyre_aot(saxpy);
  CHECK(p.exit_code == 2);
  CHECK(p.err_has("missing --out"));

  p = vyre_aot(saxpy + out("twice"));
  REQUIRE_MESSAGE(p.exit_code == 0, p.err);
  p = vyre_aot(saxpy + out("twice"));
  CHECK(p.exit_code == 1);
  CHECK(p.err_has("is not empty"));
  p = vyre_aot(saxpy + " --force" + out("twice"));
  CHECK_MESSAGE(p.exit_code == 0, p.err);

  // --force over a directory whose files or subdirectories are links: refused, nothing written
  // through them (red team 2026-11-24).
  aot_test::write_bytes(dir / "victim", {'k', 'e', 'e', 'p'});
  fs::remove(dir / "twice" / "kernel.ptx");
  fs::create_symlink(dir / "victim", dir / "twice" / "kernel.ptx");
  p = vyre_aot(saxpy + " --force" + out("twice"));
  CHECK(p.exit_code == 1);
  CHECK(p.err_has("kernel.ptx\" exists and is a symbolic link"));
  CHECK(aot_test::read_text(dir / "victim") == "keep");
  fs::remove(dir / "twice" / "kernel.ptx");
  fs::create_directory(dir / "elsewhere");
  fs::remove_all(dir / "twice" / "launcher");
  fs::create_directory_symlink(dir / "elsewhere", dir / "twice" / "launcher");
  p = vyre_aot(saxpy + " --force" + out("twice"));
  CHECK(p.exit_code == 1);
  CHECK(p.err_has("launcher\" is a symbolic link"));
  CHECK(fs::is_empty(dir / "elsewhere"));
}

TEST_CASE("vyre-aot bundles weights and the geometry options") {
  const fs::path dir = aot_test::fresh_dir("aot_options");
  const std::string saxpy = quote(std::string(VYRE_SOURCE_DIR) + "/examples/saxpy.json");
  aot_test::write_bytes(dir / "w.bin", std::vector<std::uint8_t>{0, 0, 0x80, 0x3f});
  const Process p = vyre_aot(saxpy + " --weights " + quote((dir / "w.bin").string()) +
                             " --elements 1000 --grid 4 --iterations 3 --out " + quote((dir / "b").string()));
  REQUIRE_MESSAGE(p.exit_code == 0, p.err);
  const auto m = vyre_launch::parse_manifest(aot_test::read_text(dir / "b" / "manifest.json"), "m");
  REQUIRE(m.weights.has_value());
  CHECK(m.weights->buffer == "alpha");
  CHECK(m.weights->file.byte_size == 4);
  CHECK(aot_test::read_bytes(dir / "b" / "weights.bin") == std::vector<std::uint8_t>{0, 0, 0x80, 0x3f});
  CHECK(m.grid == vyre_launch::Dims{4, 1, 1});
  CHECK(m.dispatch_elements == 1000);
  CHECK_FALSE(m.tail_guard);  // an explicit grid runs full workgroups (SPEC §3)
  CHECK(m.fixpoint_iterations == 3);

  const Process wg = vyre_aot(saxpy + " --workgroup 64 --sm sm_80 --out " + quote((dir / "wg").string()));
  REQUIRE_MESSAGE(wg.exit_code == 0, wg.err);
  const auto w = vyre_launch::parse_manifest(aot_test::read_text(dir / "wg" / "manifest.json"), "m");
  CHECK(w.workgroup == vyre_launch::Dims{64, 1, 1});
  CHECK(w.grid == vyre_launch::Dims{16, 1, 1});
  CHECK(w.tail_guard);
  CHECK(w.target == "sm_80");
}

// Emit `program` in process with VYRE_PTXAS set to `ptxas`, restoring the variable after.
std::vector<vyre::AotFile> emit_with_ptxas(const vyre::Program& program, const char* ptxas) {
  const char* saved = std::getenv("VYRE_PTXAS");
  const std::string previous = saved != nullptr ? saved : "";
  setenv("VYRE_PTXAS", ptxas, 1);
  auto files = aot_test::emit_in_process(program);
  if (saved != nullptr)
    setenv("VYRE_PTXAS", previous.c_str(), 1);
  else
    unsetenv("VYRE_PTXAS");
  return files;
}

TEST_CASE("a bundle without ptxas carries only PTX and says why") {
  const vyre::Program program = vyre::load_program_file(fs::path(VYRE_SOURCE_DIR) / "examples" / "xor.json");
  for (const char* ptxas : {"off", "/bin/false", "/nonexistent/ptxas"}) {
    CAPTURE(ptxas);
    const auto files = emit_with_ptxas(program, ptxas);
    CHECK(aot_test::find_file(files, "kernel.cubin") == nullptr);
    const auto* manifest = aot_test::find_file(files, "manifest.json");
    REQUIRE(manifest != nullptr);
    const std::string text(manifest->data.begin(), manifest->data.end());
    const auto m = vyre_launch::parse_manifest(text, "m");
    CHECK_NOTHROW(vyre_launch::validate_manifest(m));
    CHECK_FALSE(m.cubin.has_value());
    const std::string status = boost::json::parse(text).at("kernel").at("cubin_status").as_string().c_str();
    CHECK(status.rfind("no cubin: ", 0) == 0);
    if (std::string(ptxas) == "/bin/false") CHECK(status.find("failed (exit 1)") != std::string::npos);
  }
}

TEST_CASE("the emitter chooses the requested target, else the instance's, else sm_90") {
  const vyre::Program program = vyre::load_program_file(fs::path(VYRE_SOURCE_DIR) / "examples" / "xor.json");
  const auto target_of = [](const std::vector<vyre::AotFile>& files) {
    const auto* m = aot_test::find_file(files, "manifest.json");
    return vyre_launch::parse_manifest(std::string(m->data.begin(), m->data.end()), "m").target;
  };
  CHECK(target_of(aot_test::emit_in_process(program)) == "sm_90");
  CHECK(target_of(aot_test::emit_in_process(program, {}, std::string("sm_80"))) == "sm_80");
  CHECK(target_of(aot_test::emit_in_process(program, {}, std::string("86"))) == "sm_86");
  vyre::kit::AotRequest request;
  request.program = program;
  request.fingerprint = vyre::fingerprint(program);
  CHECK(target_of(vyre::cuda::aot::emit_aot_bundle(request, vyre::cuda::Target{89})) == "sm_89");
  request.target = "sm_80";
  CHECK(target_of(vyre::cuda::aot::emit_aot_bundle(request, vyre::cuda::Target{89})) == "sm_80");
}

TEST_CASE("vyre-launch validates before touching the device and fails cleanly without a driver") {
  const fs::path dir = aot_test::fresh_dir("launch_cpu");
  const vyre::Program program = vyre::load_program_file(fs::path(VYRE_SOURCE_DIR) / "examples" / "xor.json");
  aot_test::write_files(aot_test::emit_in_process(program), dir / "bundle");
  std::string ins;
  for (const auto& [name, bytes] : aot_test::example_inputs(program, 3)) {
    aot_test::write_bytes(dir / (name + ".bin"), bytes);
    ins += " --in " + name + "=" + quote((dir / (name + ".bin")).string());
  }
  const std::string bundle = quote((dir / "bundle").string());

  Process p = run_launch(bundle);  // inputs missing: found before the driver is opened
  CHECK(p.exit_code == 1);
  CHECK(p.err_has("input buffer \"a\" (1024 u32) has no data"));

  p = run_launch(bundle + ins, "VYRE_TTT_STEPS=0");
  CHECK(p.exit_code == 1);
  CHECK(p.err_has("VYRE_TTT_STEPS=0 would launch nothing"));

  p = run_launch(bundle + ins, "VYRE_TTT_TARGET_LOSS=0.1");
  CHECK(p.exit_code == 1);
  CHECK(p.err_has("has no `metrics` buffer"));

  p = run_launch(bundle + ins, "VYRE_CUDA_DEVICE_ORDINAL=x");
  CHECK(p.exit_code == 1);
  CHECK(p.err_has("is not a device ordinal"));

  // Outputs through links (red team 2026-11-24): refused before the driver, nothing written.
  fs::create_directory(dir / "elsewhere");
  fs::create_directory_symlink(dir / "elsewhere", dir / "bundle" / "outputs");
  p = run_launch(bundle + ins);
  CHECK(p.exit_code == 1);
  CHECK(p.err_has("outputs\" is a symbolic link"));
  CHECK(p.err_has("Fix:"));
  fs::remove(dir / "bundle" / "outputs");
  fs::create_directory(dir / "bundle" / "outputs");
  aot_test::write_bytes(dir / "victim", {'k', 'e', 'e', 'p'});
  fs::create_symlink(dir / "victim", dir / "bundle" / "outputs" / "out.bin");
  p = run_launch(bundle + ins);
  CHECK(p.exit_code == 1);
  CHECK(p.err_has("out.bin\" exists and is a symbolic link"));
  CHECK(aot_test::read_text(dir / "victim") == "keep");
  CHECK(fs::is_empty(dir / "elsewhere"));
  fs::remove_all(dir / "bundle" / "outputs");

  p = run_launch(quote((dir / "nowhere").string()));
  CHECK(p.exit_code == 1);
  CHECK(p.err_has("manifest.json"));

  p = run_launch("--bogus");
  CHECK(p.exit_code == 2);

  p = run_launch("--help");
  CHECK(p.exit_code == 0);
  CHECK(p.out_has("VYRE_TTT_STEPS"));

  // A driver library that cannot be opened (here or on any machine): a clean no-device error.
  p = run_launch(bundle + ins + " --out " + quote((dir / "out").string()),
                 "VYRE_CUDA_DRIVER_LIBRARY=/nonexistent/libcuda.so.1");
  CHECK(p.exit_code == vyre_launch::kExitNoDevice);
  CHECK(p.err_has("cannot load the CUDA driver /nonexistent/libcuda.so.1"));
  CHECK(p.err_has("Fix:"));
  CHECK_FALSE(fs::exists(dir / "out"));

  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver != nullptr) {
    dlclose(driver);
    MESSAGE("libcuda.so.1 is present: the no-driver failure is not checked here (test_aot_gpu runs bundles)");
    return;
  }
  p = run_launch(bundle + ins + " --out " + quote((dir / "out").string()));
  CHECK(p.exit_code == vyre_launch::kExitNoDevice);
  CHECK(p.err_has("cannot load the CUDA driver libcuda.so.1"));
  CHECK(p.err_has("Fix:"));
  CHECK_FALSE(fs::exists(dir / "out"));
}
