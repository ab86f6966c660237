// Every math library function, with its dependencies (math_closure), assembles with ptxas: each one
// alone in a module whose entry loads x, calls the function as the emitter does and stores f(x),
// for sm_90; and all of them in one module for sm_90, sm_80 and sm_75 (the emitter's other targets).
// Skips (exit 77) when CMake found no ptxas.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "math/math_library.hpp"

namespace {

namespace fs = std::filesystem;
using vyre::cuda::MathFunction;

std::string ptxas_path() {
  std::string path = VYRE_PTXAS;
  if (path.empty() || path.find("NOTFOUND") != std::string::npos) return {};
  return path;
}

bool is_function(const MathFunction& f) { return f.ptx.rfind(".func", 0) == 0; }

std::string float_type(const MathFunction& f) {
  return f.name.substr(f.name.size() - 3);  // "f32" / "f64"
}

// An entry that applies `f` to in[tid] and stores it to out[tid].
std::string probe_entry(const MathFunction& f, int index) {
  const std::string t = float_type(f);
  const std::string bytes = t == "f32" ? "4" : "8";
  std::ostringstream e;
  e << ".visible .entry probe_" << index << "(.param .u64 in, .param .u64 out)\n{\n"
    << "\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<8>;\n\t.reg ." << t << " %v<3>;\n"
    << "\tld.param.u64 %rd1, [in];\n\tld.param.u64 %rd2, [out];\n"
    << "\tcvta.to.global.u64 %rd3, %rd1;\n\tcvta.to.global.u64 %rd4, %rd2;\n"
    << "\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd5, %r1, " << bytes << ";\n"
    << "\tadd.s64 %rd6, %rd3, %rd5;\n\tadd.s64 %rd7, %rd4, %rd5;\n"
    << "\tld.global." << t << " %v1, [%rd6];\n"
    << "\t{\n\t.param ." << t << " arg;\n\t.param ." << t << " ret;\n"
    << "\tst.param." << t << " [arg], %v1;\n"
    << "\tcall (ret), " << f.name << ", (arg);\n"
    << "\tld.param." << t << " %v2, [ret];\n\t}\n"
    << "\tst.global." << t << " [%rd7], %v2;\n\tret;\n}\n";
  return e.str();
}

std::string module(const std::string& target, const std::vector<const MathFunction*>& functions) {
  std::string ptx = ".version 7.8\n.target " + target + "\n.address_size 64\n\n";
  for (const MathFunction* f : vyre::cuda::math_closure(functions)) ptx += f->ptx + "\n";
  for (std::size_t i = 0; i < functions.size(); ++i) ptx += probe_entry(*functions[i], static_cast<int>(i));
  return ptx;
}

// "" on success, else the diagnostics (ptxas warnings count as failures).
std::string assemble(const std::string& ptxas, const std::string& target, const std::string& ptx,
                     const std::string& stem) {
  const fs::path dir = fs::path(VYRE_BINARY_DIR) / "tests" / "math_ptxas";
  fs::create_directories(dir);
  const fs::path source = dir / (stem + ".ptx");
  const fs::path log = dir / (stem + ".log");
  std::ofstream(source) << ptx;
  const std::string command = "'" + ptxas + "' -arch=" + target + " -o /dev/null '" +
                              source.string() + "' > '" + log.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  if (status == 0 && text.str().empty()) return {};
  return source.string() + ": status " + std::to_string(status) + "\n" + text.str();
}

std::string require_ptxas() {
  std::string ptxas = ptxas_path();
  if (ptxas.empty()) {
    std::printf("skipped: CMake found no ptxas (VYRE_PTXAS is unset); install the CUDA toolkit\n");
    std::exit(77);
  }
  return ptxas;
}

}  // namespace

TEST_CASE("each math function assembles alone for sm_90") {
  const std::string ptxas = require_ptxas();
  int functions = 0;
  for (const MathFunction& f : vyre::cuda::math_library()) {
    if (!is_function(f)) continue;
    ++functions;
    INFO(f.name);
    CHECK(assemble(ptxas, "sm_90", module("sm_90", {&f}), f.name) == "");
  }
  CHECK(functions == 28);
}

TEST_CASE("all math functions assemble in one module for sm_90, sm_80 and sm_75") {
  const std::string ptxas = require_ptxas();
  std::vector<const MathFunction*> all;
  for (const MathFunction& f : vyre::cuda::math_library()) {
    if (is_function(f)) all.push_back(&f);
  }
  for (const char* target : {"sm_90", "sm_80", "sm_75"}) {
    INFO(target);
    CHECK(assemble(ptxas, target, module(target, all), std::string("all_") + target) == "");
  }
}
