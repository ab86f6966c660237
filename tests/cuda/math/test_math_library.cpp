// The math library's interface: one function per (transcendental op, f32/f64) with the documented
// name and calling convention, nothing for other ops or types, dependency closures in emission
// order, and PTX that uses only IEEE round-to-nearest arithmetic (no .ftz, no .approx).
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "math/algorithms/functions.hpp"
#include "math/math_library.hpp"

namespace {

using vyre::Type;
using vyre::UnOp;
using vyre::cuda::math_function;

const UnOp kOps[] = {UnOp::Exp,  UnOp::Exp2, UnOp::Log,  UnOp::Log2, UnOp::Sin,
                     UnOp::Cos,  UnOp::Tan,  UnOp::Asin, UnOp::Acos, UnOp::Atan,
                     UnOp::Sinh, UnOp::Cosh, UnOp::Tanh, UnOp::InverseSqrt};

// Whether `f` is the f32 function of one of `ops`.
template <std::size_t N>
bool guesses(const std::array<UnOp, N>& ops, const vyre::cuda::MathFunction& f) {
  return std::any_of(ops.begin(), ops.end(), [&](UnOp op) { return math_function(op, Type::F32) == &f; });
}

}  // namespace

TEST_CASE("every transcendental has an f32 and an f64 function with the calling convention") {
  for (UnOp op : kOps) {
    for (Type type : {Type::F32, Type::F64}) {
      const std::string t = type == Type::F32 ? "f32" : "f64";
      const std::string name = "vyre_" + std::string(vyre::un_op_name(op)) + "_" + t;
      INFO(name);
      const auto* f = math_function(op, type);
      REQUIRE(f != nullptr);
      CHECK(f->name == name);
      CHECK(vyre::cuda::math_function_by_name(name) == f);
      const std::string header = ".func (.param ." + t + " " + name + "_r) " + name + " (.param ." +
                                 t + " " + name + "_x)\n";
      CHECK(f->ptx.rfind(header, 0) == 0);
      CHECK(f->ptx.find("st.param." + t + " [" + name + "_r]") != std::string::npos);
    }
  }
}

TEST_CASE("other ops and types are not library functions") {
  for (UnOp op : {UnOp::Sqrt, UnOp::Reciprocal, UnOp::Abs, UnOp::Neg, UnOp::Floor, UnOp::IsNan}) {
    CHECK(math_function(op, Type::F32) == nullptr);
    CHECK(math_function(op, Type::F64) == nullptr);
  }
  for (Type type : {Type::U32, Type::I32, Type::U64, Type::I64, Type::F16, Type::BF16, Type::Bool}) {
    CHECK(math_function(UnOp::Exp, type) == nullptr);
  }
  CHECK(vyre::cuda::math_function_by_name("vyre_nope_f32") == nullptr);
}

TEST_CASE("closures list dependencies first, each once") {
  std::vector<const vyre::cuda::MathFunction*> roots = {math_function(UnOp::Sin, Type::F32),
                                                        math_function(UnOp::Tan, Type::F64),
                                                        math_function(UnOp::Sin, Type::F32),
                                                        math_function(UnOp::Exp, Type::F32)};
  auto order = vyre::cuda::math_closure(roots);
  std::set<std::string> seen;
  for (const auto* f : order) {
    INFO(f->name);
    CHECK(seen.insert(f->name).second);
    for (const auto& dep : f->dependencies) CHECK(seen.count(dep) == 1);
  }
  // The functions in the order given, each after its data: the 2/pi table and the f64 constants
  // (sin_f32's Payne-Hanek path computes in f64).
  std::vector<std::string> functions;
  for (const auto* f : order) {
    if (f->ptx.rfind(".func", 0) == 0) functions.push_back(f->name);
  }
  CHECK(functions == std::vector<std::string>{"vyre_sin_f32", "vyre_tan_f64", "vyre_exp_f32"});
  CHECK(seen.count("vyre_math_two_over_pi") == 1);
  const auto* table = vyre::cuda::math_function_by_name("vyre_math_two_over_pi");
  REQUIRE(table != nullptr);
  CHECK(table->ptx.rfind(".global .align 8 .b64 vyre_math_two_over_pi[", 0) == 0);
  // exp_f64: itself after its constant-bank data, nothing else.
  const auto exp64 = vyre::cuda::math_closure({math_function(UnOp::Exp, Type::F64)});
  REQUIRE(exp64.size() > 1);
  CHECK(exp64.back()->name == "vyre_exp_f64");
  for (std::size_t i = 0; i + 1 < exp64.size(); ++i) {
    INFO(exp64[i]->ptx);
    CHECK(exp64[i]->ptx.rfind(".const .align 8 .b64 vyre_math_k64_", 0) == 0);
  }
}

TEST_CASE("f64 constants with a nonzero low word come from the constant bank, by their bits") {
  // ptxas makes such an immediate two UMOVs at each use, a `.const` datum one ULDC.64.
  const std::regex wide_immediate(R"(mov\.f64\s+\S+,\s*0d[0-9A-F]{8}([0-9A-F]{8}))");
  const std::regex constant(R"(^\.const \.align 8 \.b64 vyre_math_k64_([0-9A-F]{16}) = 0x([0-9A-F]{16});\n$)");
  int constants = 0;
  for (const auto& f : vyre::cuda::math_library()) {
    INFO(f.name);
    std::smatch m;
    if (std::regex_match(f.ptx, m, constant)) {
      ++constants;
      CHECK(m[1] == m[2]);
      CHECK(m[1].str().substr(8) != "00000000");
      continue;
    }
    std::istringstream lines(f.ptx);
    std::string line;
    while (std::getline(lines, line)) {
      INFO(line);
      if (std::regex_search(line, m, wide_immediate)) CHECK(m[1] == "00000000");
    }
  }
  CHECK(constants > 20);
}

TEST_CASE("the PTX uses only round-to-nearest IEEE arithmetic") {
  // Float arithmetic must carry .rn (no contraction, no approximation); no .ftz anywhere.
  // rcp only as rcp.rn (IEEE, correctly rounded). The exceptions, first guesses the algorithms
  // correct (or, sinh's, give little weight) and the CPU model covers over their whole error
  // intervals (functions.hpp): rsqrt.approx.ftz.f32 once in each f32 function of kRsqrtGuessOps
  // (inverse_sqrt, asin, acos: the argument is never subnormal), and rcp.approx.ftz.f32 once in
  // each of kRcpGuessOps (tanh, atan: recip_refined_f32; tan, sinh, cosh: recip_guess_f32).
  const std::regex unrounded(R"(^\s*(add|sub|mul|fma|div|sqrt|rcp)\.f(32|64)\b)");
  const std::regex approx(R"(\.(approx|ftz)\b|\b(ex2|lg2|sin|cos|rsqrt|tanh)\.|\brcp\.(?!rn\.))");
  const std::regex rsqrt_guess(R"(^\s*rsqrt\.approx\.ftz\.f32\s)");
  const std::regex rcp_guess(R"(^\s*rcp\.approx\.ftz\.f32\s)");
  int rsqrt_guesses = 0;
  int rcp_guesses = 0;
  for (const auto& f : vyre::cuda::math_library()) {
    INFO(f.name);
    std::istringstream lines(f.ptx);
    std::string line;
    while (std::getline(lines, line)) {
      INFO(line);
      CHECK_FALSE(std::regex_search(line, unrounded));
      if (guesses(vyre::math::kRsqrtGuessOps, f) && std::regex_search(line, rsqrt_guess)) {
        ++rsqrt_guesses;
        continue;
      }
      if (guesses(vyre::math::kRcpGuessOps, f) && std::regex_search(line, rcp_guess)) {
        ++rcp_guesses;
        continue;
      }
      CHECK_FALSE(std::regex_search(line, approx));
    }
  }
  CHECK(rsqrt_guesses == static_cast<int>(vyre::math::kRsqrtGuessOps.size()));
  CHECK(rcp_guesses == static_cast<int>(vyre::math::kRcpGuessOps.size()));
}

TEST_CASE("min.f32, whose NaN rule drops a NaN operand, appears only where an algorithm relies on it") {
  // inverse_sqrt f32 turns the NaN residual of its special inputs into 1 with it (inverse_sqrt.hpp);
  // anywhere else a NaN that should propagate could be lost.
  const std::regex min_f32(R"(^\s*min\.f32\s)");
  for (const auto& f : vyre::cuda::math_library()) {
    INFO(f.name);
    std::istringstream lines(f.ptx);
    std::string line;
    int uses = 0;
    while (std::getline(lines, line)) uses += std::regex_search(line, min_f32) ? 1 : 0;
    CHECK(uses == (f.name == "vyre_inverse_sqrt_f32" ? 1 : 0));
  }
}
