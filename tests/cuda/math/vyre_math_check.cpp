// vyre-math-check: the accuracy certification of the math library (plugins/shared/math, as the CUDA plugin emits it),
// run on the CPU twin of each PTX function (bit-identical instruction sequences).
//
//   vyre-math-check [--function NAME[,NAME...]] [--threads N] [--f32-stride N]
//                   [--f64-samples N] [--seed S] [--markdown]
//
// NAME: exp_f32, sin_f64, ... or all, all_f32, all_f64 (default all). f32 functions run every
// bit pattern (2^32 inputs; --f32-stride N checks every Nth instead; the functions with an
// approximate first guess once per admissible guess: inverse_sqrt, asin and acos per rsqrt.approx
// value, tanh, sinh, cosh, atan and tan per rcp.approx value, cpu_math.hpp, a guess that repeats the
// previous one's evaluation counted without evaluating again: sweep.hpp); f64 functions run the
// witnesses plus --f64-samples seeded random inputs (default 10 million). Prints, per function, the
// largest ULP distance from the correctly rounded result and the worst input; exits 1 if any
// function exceeds its SPEC §5 bound or misses an exact case.
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "cpu_math.hpp"
#include "math/algorithms/functions.hpp"
#include "reference.hpp"
#include "sweep.hpp"
#include "witnesses.hpp"

namespace {

using namespace vyre::cuda::math_test;

struct Options {
  std::vector<std::string> functions;
  unsigned threads = 2;
  std::uint64_t f32_stride = 1;
  std::uint64_t f64_samples = 10'000'000;
  std::uint64_t seed = 20240601;
  bool markdown = false;
};

struct Job {
  vyre::UnOp op;
  bool f64;
};

[[noreturn]] void usage(const char* problem) {
  std::fprintf(stderr,
               "vyre-math-check: %s\nusage: vyre-math-check [--function NAME[,NAME...]] "
               "[--threads N] [--f32-stride N] [--f64-samples N] [--seed S] [--markdown]\n"
               "NAME: exp_f32, sin_f64, ..., all, all_f32, all_f64\n",
               problem);
  std::exit(2);
}

std::uint64_t number(const char* text) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (end == text || *end != '\0') usage("expected a number");
  return v;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage(("missing value after " + arg).c_str());
      return argv[++i];
    };
    if (arg == "--function") {
      std::string list = value();
      for (std::size_t start = 0; start <= list.size();) {
        const std::size_t comma = list.find(',', start);
        const std::size_t end = comma == std::string::npos ? list.size() : comma;
        o.functions.push_back(list.substr(start, end - start));
        start = end + 1;
      }
    } else if (arg == "--threads") {
      o.threads = static_cast<unsigned>(number(value()));
    } else if (arg == "--f32-stride") {
      o.f32_stride = number(value());
    } else if (arg == "--f64-samples") {
      o.f64_samples = number(value());
    } else if (arg == "--seed") {
      o.seed = number(value());
    } else if (arg == "--markdown") {
      o.markdown = true;
    } else {
      usage(("unknown argument " + arg).c_str());
    }
  }
  if (o.functions.empty()) o.functions.push_back("all");
  if (o.threads == 0 || o.f32_stride == 0) usage("--threads and --f32-stride must be positive");
  return o;
}

std::vector<Job> jobs(const Options& o) {
  std::vector<Job> out;
  for (const std::string& name : o.functions) {
    bool matched = false;
    for (bool f64 : {false, true}) {
      for (vyre::UnOp op : vyre::math::kLibraryOps) {
        const bool all = name == "all" || (name == "all_f32" && !f64) || (name == "all_f64" && f64);
        if (all || name == function_label(op, f64)) {
          out.push_back({op, f64});
          matched = true;
        }
      }
    }
    if (!matched) usage(("unknown function " + name).c_str());
  }
  return out;
}

SweepResult run(const Job& job, const Options& o) {
  if (!job.f64) {
    // Every admissible value of an unspecified instruction (cpu_math.hpp) for every input, each
    // evaluation counted once per variant (sweep.hpp); then the witnesses under each variant.
    const int variants = f32_variants(job.op);
    SweepResult r = sweep_f32_variants(job.op, 0, std::uint64_t{1} << 32, o.f32_stride, o.threads, variants);
    for (int v = 0; v < variants; ++v) {
      use_f32_variant(v);
      r.merge(sweep_f32_inputs(job.op, witnesses_f32(job.op)));
    }
    use_f32_variant(0);
    return r;
  }
  std::vector<double> inputs = witnesses_f64(job.op);
  const auto random = random_f64_inputs(job.op, o.f64_samples, o.seed);
  inputs.insert(inputs.end(), random.begin(), random.end());
  return sweep_f64_inputs(job.op, inputs, o.threads);
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  bool ok = true;
  for (const Job& job : jobs(o)) {
    const auto start = std::chrono::steady_clock::now();
    const SweepResult r = run(job, o);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string label = function_label(job.op, job.f64);
    const bool pass = r.over_bound == 0 && r.max_ulp <= ulp_bound(job.op);
    ok = ok && pass;
    if (o.markdown) {
      std::printf("| %s | %u | %s | %llu | %s | %s | %.0f s |\n", label.c_str(), ulp_bound(job.op),
                  r.max_ulp == kMismatch ? "MISMATCH" : std::to_string(r.max_ulp).c_str(),
                  static_cast<unsigned long long>(r.cases),
                  (job.f64 ? describe(std::bit_cast<double>(r.worst_input))
                           : describe(std::bit_cast<float>(static_cast<std::uint32_t>(r.worst_input))))
                      .c_str(),
                  date, seconds);
    } else {
      std::printf("%-18s %s %s (%.1f s)\n", label.c_str(), pass ? "PASS" : "FAIL",
                  summary(r, job.f64).c_str(), seconds);
    }
    std::fflush(stdout);
  }
  return ok ? 0 : 1;
}
