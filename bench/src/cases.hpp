// The cases of vyre-bench (bench/README.md): one function each, in its own file.
#pragma once

#include <string_view>
#include <vector>

#include "case_result.hpp"
#include "context.hpp"

namespace vyre::bench {

using CaseFn = std::vector<CaseResult> (*)(Context& context);

struct CaseInfo {
  std::string_view id;
  std::string_view title;
  CaseFn run;
};

std::vector<CaseResult> run_p1_resident_xor(Context& context);
std::vector<CaseResult> run_p2_round_trip(Context& context);
std::vector<CaseResult> run_p3_enqueue(Context& context);
std::vector<CaseResult> run_p4_sequence(Context& context);
std::vector<CaseResult> run_p5_first_dispatch(Context& context);
std::vector<CaseResult> run_p6_conform(Context& context);
std::vector<CaseResult> run_p7_sum(Context& context);
std::vector<CaseResult> run_p9_resident_dispatch(Context& context);
std::vector<CaseResult> run_r1_reference_xor(Context& context);
std::vector<CaseResult> run_c1_process(Context& context);
std::vector<CaseResult> run_m1_allreduce(Context& context);
std::vector<CaseResult> run_m2_sharded(Context& context);
std::vector<CaseResult> run_r2_large_program(Context& context);
// K1..K13 (bench/kernels/): the vyre program against its nvcc twin; "K13" runs every K13-<function>,
// unless --case named some K13-<function> ids and neither K13 nor --kernels: then only those.
std::vector<CaseResult> run_kernel_case(Context& context, std::string_view id);
// Whether id names one function of K13 ("K13-exp"); --case accepts these.
bool is_k13_function_case(std::string_view id);

// Every case in run order. --all runs the P and R cases; --kernels runs the K cases (they need
// libvyre_kernel_twins.so).
const std::vector<CaseInfo>& case_table();

// The child side of P5 (--p5-child): compile and first-dispatch the salted program, print JSON.
int run_p5_child(const Options& options, vyre::Registry& registry);

}  // namespace vyre::bench
