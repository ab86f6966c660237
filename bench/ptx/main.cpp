// vyre-bench-ptx: the PTX the CUDA emitter makes of each benchmark program, and ptxas's resource
// report of it, without a device (bench/README.md, "Reading the code without a GPU").
//
//   vyre-bench-ptx OUTDIR [--target sm_90] [--ptxas PATH]
#include <fmt/core.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "../src/chain_program.hpp"
#include "../src/programs.hpp"
#include "kernels.hpp"
#include "lowering.hpp"
#include "optimize/value_range.hpp"
#include "vyre/error.hpp"
#include "vyre/validate.hpp"

namespace {

std::vector<std::pair<std::string, vyre::Program>> bench_programs() {
  std::vector<std::pair<std::string, vyre::Program>> out = {
      {"P1_xor_256M", vyre::bench::xor_program(256u << 20)},
      {"P2_P3_xor_1024", vyre::bench::xor_program(1024)},
      {"P5_chain", vyre::bench::chain_program(0x1234'5678u)},
      {"P7_sum", vyre::bench::sum_program()},
  };
  const auto steps = vyre::bench::sequence_step_programs(1024);
  for (std::size_t i = 0; i < steps.size(); ++i) out.emplace_back(fmt::format("P4_step{}", i), steps[i]);
  // The kernel suite at its full sizes, grids for a 132-multiprocessor H100/H200 (the grid is not
  // part of the PTX).
  namespace k = vyre::bench::kernels;
  for (const auto& id : k::kernel_ids())
    out.emplace_back(id, k::make_case(id, k::Size::Full, 132, 0, k::Inputs::None).program);
  return out;
}

std::string ptxas_path(const std::string& given) {
  if (!given.empty()) return given;
  if (const char* env = std::getenv("VYRE_PTXAS")) return env;
#ifdef VYRE_BENCH_PTXAS
  return VYRE_BENCH_PTXAS;
#else
  return "ptxas";
#endif
}

int run(const std::filesystem::path& dir, const std::string& target_text, const std::string& ptxas) {
  std::filesystem::create_directories(dir);
  const vyre::cuda::Target target = vyre::cuda::parse_target(target_text);
  int status = 0;
  for (const auto& [name, program] : bench_programs()) {
    // As the runtime lowers it first (CudaBackend::compile): specialised to the declared workgroup
    // size (the optimizer's local_id bounds, .reqntid), every global buffer offered as covering.
    namespace opt = vyre::cuda::optimize;
    auto covering = vyre::cuda::global_buffers(program);
    const vyre::cuda::LoweredProgram lowered = vyre::cuda::lower(
        program, target, vyre::cuda::LowerOptions{.workgroup = program.workgroup_size, .covering = covering});
    const opt::RangeAnalysis ranges(program, {program.workgroup_size, std::move(covering)});
    const std::filesystem::path ptx = dir / (name + ".ptx");
    std::ofstream(ptx) << lowered.ptx;
    const std::string command = fmt::format("'{}' -v --gpu-name {} -o '{}' '{}' > '{}' 2>&1", ptxas, target.name(),
                                            (dir / (name + ".cubin")).string(), ptx.string(),
                                            (dir / (name + ".ptxas.txt")).string());
    const int rc = std::system(command.c_str());
    fmt::print("{:<16} {} ({} bytes of PTX; {} of {} accesses proved in bounds){}\n", name, ptx.string(),
               lowered.ptx.size(), ranges.proven(), ranges.accesses(),
               rc == 0 ? "" : fmt::format("; ptxas failed, see {}.ptxas.txt", name));
    if (rc != 0) status = 1;
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string target = "sm_90", ptxas;
  std::filesystem::path dir;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--target" && i + 1 < args.size()) target = args[++i];
    else if (args[i] == "--ptxas" && i + 1 < args.size()) ptxas = args[++i];
    else if (dir.empty() && !args[i].starts_with("-")) dir = args[i];
    else {
      fmt::print(stderr, "usage: vyre-bench-ptx OUTDIR [--target sm_90] [--ptxas PATH]\n");
      return 2;
    }
  }
  if (dir.empty()) {
    fmt::print(stderr, "usage: vyre-bench-ptx OUTDIR [--target sm_90] [--ptxas PATH]\n");
    return 2;
  }
  try {
    return run(dir, target, ptxas_path(ptxas));
  } catch (...) {  // with its stable code and a Fix (vyre::Error, bad_alloc, iostream, ...)
    const vyre::Error e = vyre::current_exception_as_error();
    fmt::print(stderr, "vyre-bench-ptx: error ({}): {}\n", vyre::status_name(e.code()), e.what());
    return 1;
  }
}
