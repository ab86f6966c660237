// CI check: every program lowered for every op the emitter declares (conform's op programs) and the
// structure corpus (also its sharded variants) assembles with ptxas. Modules are merged into batches (one ptxas process per
// batch) and the batches run in parallel; a failing batch is re-run module by module so that the
// report names the op. Skips (exit 77) only when CMake found no ptxas.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "lowering.hpp"
#include "program_corpus.hpp"
#include "ptx_text.hpp"
#include "vyre/error.hpp"
#include "vyre/validate.hpp"

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kModulesPerBatch = 24;
constexpr unsigned kWorkers = 2;

struct Module {
  std::string label;
  std::string ptx;
};

struct Batch {
  std::vector<const Module*> modules;
  std::string target;
};

std::string ptxas_path() {
  std::string path = VYRE_PTXAS;
  if (path.empty() || path.find("NOTFOUND") != std::string::npos) return {};
  return path;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs ptxas on `ptx`; returns "" on success, else its diagnostics.
std::string assemble(const std::string& ptxas, const std::string& target, const std::string& ptx,
                     const fs::path& dir, const std::string& stem) {
  fs::path source = dir / (stem + ".ptx");
  fs::path log = dir / (stem + ".log");
  std::ofstream(source) << ptx;
  std::string command = "'" + ptxas + "' -arch=" + target + " -o /dev/null '" + source.string() +
                        "' > '" + log.string() + "' 2>&1";
  int status = std::system(command.c_str());
  if (status == 0) return {};
  std::string diagnostics = read_file(log);
  return diagnostics.empty() ? "ptxas exited with status " + std::to_string(status) : diagnostics;
}

std::vector<Module> lower_corpus(const std::vector<ptx_test::CorpusProgram>& corpus,
                                 const vyre::cuda::Target& target, std::vector<std::string>& errors,
                                 const vyre::cuda::LowerOptions& options = {}, bool specialise = false) {
  std::vector<Module> modules;
  for (const auto& entry : corpus) {
    try {
      vyre::validate_or_throw(entry.program);
      std::string label = options.sharded ? entry.label + " (sharded)" : entry.label;
      vyre::cuda::LowerOptions these = options;
      if (specialise) {
        these.workgroup = entry.program.workgroup_size;  // as the runtime lowers it (.reqntid)
        label += " (workgroup)";
      }
      modules.push_back({label, vyre::cuda::lower(entry.program, target, these).ptx});
    } catch (const std::exception& e) {
      errors.push_back(entry.label + ": " + e.what());
    }
  }
  return modules;
}

std::vector<Batch> make_batches(const std::vector<Module>& modules, const std::string& target) {
  std::vector<Batch> batches;
  for (std::size_t i = 0; i < modules.size(); ++i) {
    if (i % kModulesPerBatch == 0) batches.push_back({{}, target});
    batches.back().modules.push_back(&modules[i]);
  }
  return batches;
}

// Assemble every batch on kWorkers threads; failures name each failing module.
std::vector<std::string> assemble_batches(const std::string& ptxas, const std::vector<Batch>& batches,
                                          const fs::path& dir) {
  std::vector<std::string> failures;
  std::mutex mutex;
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t b = next++; b < batches.size(); b = next++) {
      const Batch& batch = batches[b];
      std::vector<std::string> texts;
      for (const Module* m : batch.modules) texts.push_back(m->ptx);
      std::string stem = batch.target + "_batch" + std::to_string(b);
      if (assemble(ptxas, batch.target, ptx_test::merge_modules(texts), dir, stem).empty()) continue;
      for (std::size_t m = 0; m < batch.modules.size(); ++m) {
        std::string single = stem + "_" + std::to_string(m);
        std::string error = assemble(ptxas, batch.target, batch.modules[m]->ptx, dir, single);
        if (error.empty()) continue;
        std::lock_guard lock(mutex);
        failures.push_back(batch.target + " " + batch.modules[m]->label + " (" +
                           (dir / (single + ".ptx")).string() + "):\n" + error);
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < kWorkers; ++w) threads.emplace_back(work);
  for (auto& t : threads) t.join();
  return failures;
}

fs::path work_directory() {
  fs::path dir = fs::path(VYRE_BINARY_DIR) / "tests" / "ptxas_check";
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("every lowered op program assembles with ptxas") {
  std::string ptxas = ptxas_path();
  if (ptxas.empty()) {
    std::printf("skipped: CMake found no ptxas (VYRE_PTXAS is unset); install the CUDA toolkit\n");
    std::exit(77);
  }
  fs::path dir = work_directory();

  // sm_90 is the device; sm_80 and sm_75 take the other paths (butterfly instead of redux.sync,
  // integer bf16 rounding) and lower PTX ISA versions.
  std::vector<std::string> lowering_errors;
  std::vector<std::vector<Module>> modules;  // kept alive: batches point into them
  std::vector<Batch> batches;
  const std::string names[] = {"sm_90", "sm_80", "sm_75"};
  for (const std::string& name : names) {
    auto target = vyre::cuda::parse_target(name);
    auto corpus = ptx_test::op_corpus(vyre::cuda::lowered_ops(target));
    auto structures = ptx_test::structure_corpus();
    corpus.insert(corpus.end(), structures.begin(), structures.end());
    modules.push_back(lower_corpus(corpus, target, lowering_errors));
    CHECK(modules.back().size() >= vyre::cuda::lowered_ops(target).size());
    MESSAGE("lowered " << modules.back().size() << " programs for " << name);
  }
  // The sharded variants (group dispatch) of the structure corpus, for the device's target.
  modules.push_back(lower_corpus(ptx_test::structure_corpus(), vyre::cuda::parse_target("sm_90"),
                                 lowering_errors, vyre::cuda::LowerOptions{.sharded = true}));
  // The runtime's modules: optimized for each program's own workgroup size, with .reqntid.
  {
    auto corpus = ptx_test::op_corpus(vyre::cuda::lowered_ops(vyre::cuda::Target{90}));
    auto structures = ptx_test::structure_corpus();
    corpus.insert(corpus.end(), structures.begin(), structures.end());
    modules.push_back(lower_corpus(corpus, vyre::cuda::Target{90}, lowering_errors, {}, true));
    modules.push_back(lower_corpus(structures, vyre::cuda::Target{90}, lowering_errors,
                                   vyre::cuda::LowerOptions{.sharded = true}, true));
  }
  for (const auto& error : lowering_errors) FAIL_CHECK(error);
  for (std::size_t t = 0; t < modules.size(); ++t) {
    auto more = make_batches(modules[t], t < std::size(names) ? names[t] : "sm_90");
    batches.insert(batches.end(), more.begin(), more.end());
  }
  auto failures = assemble_batches(ptxas, batches, dir);
  for (const auto& failure : failures) FAIL_CHECK(failure);
  if (failures.empty() && lowering_errors.empty()) fs::remove_all(dir);
}
