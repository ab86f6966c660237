// --offline: lower every op's programs for a CUDA target through the plugin's AOT emit (no device,
// no instance) and assemble each kernel.ptx with ptxas. Statuses: lowered, lowering_failed,
// unsupported; never pass.
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "certify.hpp"
#include "vyre/conform/cases.hpp"
#include "vyre/conform/op_programs.hpp"
#include "vyre/error.hpp"

namespace vyre::conform::detail {
namespace {

namespace fs = std::filesystem;

std::string find_ptxas() {
  if (const char* env = std::getenv("VYRE_PTXAS"); env && *env) return env;
  if (const char* path = std::getenv("PATH")) {
    std::string dirs = path;
    std::size_t start = 0;
    while (start <= dirs.size()) {
      const std::size_t end = std::min(dirs.find(':', start), dirs.size());
      const fs::path candidate = fs::path(dirs.substr(start, end - start)) / "ptxas";
      if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
      start = end + 1;
    }
  }
  if (::access("/usr/local/cuda/bin/ptxas", X_OK) == 0) return "/usr/local/cuda/bin/ptxas";
  fail(VYRE_ERR_NOT_FOUND, "the offline path needs ptxas and none was found (VYRE_PTXAS, PATH, /usr/local/cuda/bin)",
       "install the CUDA toolkit or set VYRE_PTXAS to the ptxas binary");
}

// Run a command; return its exit status and the first lines of its output.
std::pair<int, std::string> run_command(const std::string& command) {
  std::string output;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return {-1, "cannot start: " + command};
  std::array<char, 512> buf{};
  while (std::fgets(buf.data(), buf.size(), pipe))
    if (output.size() < 2000) output += buf.data();
  const int status = ::pclose(pipe);
  return {status, output};
}

std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n') c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

struct Lowering {
  const vyre_backend_fns* fns;
  std::string ptxas;
  std::string target;
  fs::path work;
};

// An AOT bundle fixes every buffer size, but the lowered code does not depend on the sizes
// (element counts are kernel parameters): give runtime-sized buffers a nominal count so that
// programs over runtime-sized inputs (BufLen tests) lower like the rest.
Program with_fixed_sizes(Program program, std::uint32_t nominal_count) {
  for (BufferDecl& buffer : program.buffers)
    if (buffer.count == 0) buffer.count = nominal_count;
  return program;
}

// Empty on success, else why the op's programs could not be lowered or assembled.
std::string lower_op(const Lowering& l, const OpInfo& op, const Options& options, std::size_t slot) {
  const auto tests = op_tests(op);
  for (std::size_t ti = 0; ti < tests.size(); ++ti) {
    const auto lanes = LaneSource::witnesses_then_random(tests[ti], options.seed, stream_id(op.id, ti), options.random_lanes);
    const BuiltTest built = tests[ti].build(lanes.cases_for(tests[ti]));
    std::vector<vyre::AotFile> files;
    try {
      host::AotOptions aot;
      aot.target = l.target;
      aot.config = built.config;
      files = host::Backend::aot_emit(l.fns, with_fixed_sizes(built.program, 64), aot);
    } catch (const Error& e) {
      return "test '" + tests[ti].name + "': AOT emit failed: " + one_line(e.what());
    }
    const vyre::AotFile* ptx = nullptr;
    for (const auto& f : files)
      if (f.name == "kernel.ptx") ptx = &f;
    if (!ptx) return "test '" + tests[ti].name + "': AOT emit returned no kernel.ptx";
    const fs::path file = l.work / ("op" + std::to_string(slot) + ".ptx");
    std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(ptx->data.data()),
                                                static_cast<std::streamsize>(ptx->data.size()));
    const auto [status, text] = run_command(shell_quote(l.ptxas) + " -arch=" + shell_quote(l.target) + " " +
                                            shell_quote(file.string()) + " -o " +
                                            shell_quote(file.string() + ".cubin"));
    if (status != 0) return "test '" + tests[ti].name + "': ptxas: " + one_line(text);
  }
  return {};
}

// AOT emission of a plain elementwise program: an "unsupported" answer means the plugin has no
// AOT path at all (yet), which makes the whole offline run unavailable rather than every op failed.
void probe_aot(const Lowering& l, const PluginInfo& plugin) {
  const OpTest test = op_tests("bin.add.u32").at(0);
  const BuiltTest built = test.build(1);
  host::AotOptions aot;
  aot.target = l.target;
  aot.config = built.config;
  try {
    (void)host::Backend::aot_emit(l.fns, built.program, aot);
  } catch (const Error& e) {
    if (e.code() != VYRE_ERR_UNSUPPORTED) return;
    fail(VYRE_ERR_UNSUPPORTED, "the offline path is unavailable for '" + plugin.id +
                                   "': its AOT emit is not implemented (" + one_line(e.what()) + ")",
         "certify on a device, or update the plugin once its AOT emission lands");
  }
}

}  // namespace

std::vector<CertOpEntry> lower_offline(const Registry& registry, const PluginInfo& plugin,
                                       const std::vector<std::string>& ops, const Options& options,
                                       Reporter& reporter) {
  if (!plugin.has(VYRE_CAP_AOT))
    fail(VYRE_ERR_UNSUPPORTED, "the offline path is unavailable for '" + plugin.id + "': it does not declare the AOT capability",
         "certify it on a device instead, or build a plugin version with AOT emission");
  Lowering l{registry.fns(plugin.id), find_ptxas(), options.target,
             fs::temp_directory_path() / ("vyre-conform-" + std::to_string(::getpid()) + "-" + plugin.id)};
  probe_aot(l, plugin);
  fs::create_directories(l.work);
  std::vector<CertOpEntry> entries(ops.size());
  std::atomic<std::size_t> next{0};
  reporter.start("lowering for " + options.target, ops.size());
  auto worker = [&] {
    for (std::size_t i = next++; i < ops.size(); i = next++) {
      const OpInfo& op = *find_op(ops[i]);
      CertOpEntry& e = entries[i];
      e.op = op.id;
      e.reason = unsupported_reason(op, plugin);
      if (e.reason.empty()) {
        e.reason = lower_op(l, op, options, i);
        e.status = e.reason.empty() ? CertStatus::Lowered : CertStatus::LoweringFailed;
      }
      reporter.advance();
    }
  };
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < options.jobs; ++w) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  reporter.finish();
  std::error_code ec;
  fs::remove_all(l.work, ec);
  return entries;
}

}  // namespace vyre::conform::detail
