// K1..K13: the kernel suite (bench/kernels/). Each case runs its vyre program resident on the main
// backend (device-event timing, like the P cases), then its nvcc twin from libvyre_kernel_twins.so
// in the same process (CUDA events), and compares the outputs: bit for bit where SPEC requires it,
// else within the tolerance kernels.cpp states (SPEC §5 + the CUDA math library's bounds). The
// headline is vyre's median ms; extra holds vyre_ms, nvcc_ms and ratio = vyre_ms / nvcc_ms.
#include <algorithm>
#include <dlfcn.h>
#include <fmt/core.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "case_support.hpp"
#include "cases.hpp"
#include "kernels.hpp"
#include "stats.hpp"
#include "twin_abi.h"

namespace vyre::bench {
namespace {

namespace k = vyre::bench::kernels;

// libvyre_kernel_twins.so, loaded once: VYRE_KERNEL_TWINS, else the build tree's (when this
// vyre-bench was built with the twins), else next to vyre-bench.
class Twins {
 public:
  static Twins& get(const Context& context) {
    static Twins instance(context);
    return instance;
  }
  // The entry point, or throws with what is missing and how to get it.
  vyre_twin_fn entry(const std::string& name) const {
    if (handle_ == nullptr) throw std::runtime_error(why_);
    auto* fn = reinterpret_cast<vyre_twin_fn>(dlsym(handle_, name.c_str()));
    if (fn == nullptr)
      throw std::runtime_error(fmt::format("{} has no {}. Fix: rebuild libvyre_kernel_twins.so from this tree "
                                           "(-DVYRE_BENCH_NVCC_TWINS=ON).",
                                           path_, name));
    return fn;
  }
  const std::string& path() const { return path_; }

 private:
  explicit Twins(const Context& context) {
    std::vector<std::string> candidates;
    if (const char* env = std::getenv("VYRE_KERNEL_TWINS"); env != nullptr && *env != '\0') {
      candidates.emplace_back(env);
    } else {
#ifdef VYRE_BENCH_TWINS_PATH
      candidates.emplace_back(VYRE_BENCH_TWINS_PATH);
#endif
      candidates.push_back((context.self().parent_path() / "libvyre_kernel_twins.so").string());
    }
    std::string tried;
    for (const auto& c : candidates) {
      if (!std::filesystem::exists(c)) {
        tried += fmt::format(" {} (absent);", c);
        continue;
      }
      handle_ = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle_ == nullptr) {
        const char* e = dlerror();
        tried += fmt::format(" {} ({});", c, e != nullptr ? e : "dlopen failed");
        continue;
      }
      auto* version = reinterpret_cast<std::uint32_t (*)()>(dlsym(handle_, "vyre_twin_abi_version"));
      if (version == nullptr || version() != VYRE_TWIN_ABI_VERSION) {
        tried += fmt::format(" {} (another twin ABI);", c);
        dlclose(handle_);
        handle_ = nullptr;
        continue;
      }
      path_ = c;
      return;
    }
    why_ = fmt::format("no nvcc twin library:{} Fix: configure with -DVYRE_BENCH_NVCC_TWINS=ON (needs nvcc) and "
                       "build vyre-bench, or point VYRE_KERNEL_TWINS at libvyre_kernel_twins.so.",
                       tried);
  }

  void* handle_ = nullptr;
  std::string path_;
  std::string why_;
};

std::string tolerance_text(const k::Tolerance& t) {
  switch (t.kind) {
    case k::Compare::Exact: return "bit-exact";
    case k::Compare::Ulp: return fmt::format("within {} ULP", t.ulp);
    case k::Compare::Close: return fmt::format("within {:g} + {:g}|x|", t.abs, t.rel);
  }
  return "?";
}

struct VyreRun {
  std::vector<double> samples_ns;
  std::vector<std::vector<std::byte>> outputs;  // per output buffer, declaration order
  std::string clock;
};

VyreRun run_vyre(Context& context, const vyre::host::Backend& backend, const k::KernelCase& kc) {
  VyreRun run;
  const vyre::host::Program program = backend.compile(kc.program);
  std::vector<vyre::host::ResidentBuffer> residents;
  std::vector<vyre::host::Binding> bindings;
  for (const auto& b : kc.buffers) {
    residents.push_back(backend.alloc(b.data.size()));
    backend.upload(residents.back(), 0, b.data);
    bindings.push_back(vyre::host::Binding::of(residents.back()));
  }
  auto reset = [&] {
    for (std::size_t i = 0; i < kc.buffers.size(); ++i)
      if (kc.buffers[i].reset) backend.upload(residents[i], 0, kc.buffers[i].data);
  };
  const vyre::DispatchConfig config = kc.config();
  for (std::uint32_t w = 0; w < context.warmup(3); ++w) {
    reset();
    backend.dispatch_resident(program, bindings, config);
  }
  reset_metrics(backend);
  for (std::uint32_t r = 0; r < context.reps(20); ++r) {
    reset();
    const vyre::Timing t = backend.dispatch_resident_timed(program, bindings, config);
    run.samples_ns.push_back(timing_ns(t));
    run.clock = timing_clock(t);
  }
  for (std::size_t i = 0; i < kc.buffers.size(); ++i)
    if (kc.buffers[i].is_output()) {
      const auto bytes = backend.download(residents[i], 0, kc.buffers[i].data.size());
      run.outputs.emplace_back(bytes.begin(), bytes.end());
    }
  return run;
}

struct TwinRun {
  std::vector<double> samples_ns;
  std::vector<std::vector<std::byte>> outputs;
};

TwinRun run_twin(Context& context, const k::KernelCase& kc) {
  const vyre_twin_fn fn = Twins::get(context).entry(kc.twin);
  if (kc.buffers.size() > VYRE_TWIN_MAX_BUFFERS)
    throw std::runtime_error(fmt::format("{} has more buffers than the twin ABI carries. Fix: raise "
                                         "VYRE_TWIN_MAX_BUFFERS in twin_abi.h and rebuild both sides.",
                                         kc.id));
  TwinRun run;
  // Outputs get their own copies (read_write ones start from the input); inputs are only read.
  std::vector<std::vector<std::byte>> copies;
  for (const auto& b : kc.buffers)
    if (b.is_output()) copies.push_back(b.data);
  vyre_twin_args args{};
  args.struct_size = sizeof args;
  args.abi_version = VYRE_TWIN_ABI_VERSION;
  args.buffer_count = static_cast<std::uint32_t>(kc.buffers.size());
  std::size_t o = 0;
  for (std::size_t i = 0; i < kc.buffers.size(); ++i) {
    const auto& b = kc.buffers[i];
    auto& t = args.buffers[i];
    t.host = b.is_output() ? static_cast<void*>(copies[o++].data()) : const_cast<std::byte*>(b.data.data());
    t.bytes = b.data.size();
    t.reset = b.reset ? 1 : 0;
    t.output = b.is_output() ? 1 : 0;
  }
  for (int a = 0; a < 3; ++a) {
    args.grid[a] = kc.grid[a];
    args.block[a] = kc.block[a];
  }
  for (std::size_t p = 0; p < kc.params.size(); ++p) args.params[p] = kc.params[p];
  args.warmup = context.warmup(3);
  args.reps = context.reps(20);
  std::vector<double> ms(args.reps);
  args.sample_ms = ms.data();
  const char* ordinal = std::getenv("VYRE_CUDA_DEVICE_ORDINAL");
  args.device = ordinal != nullptr ? std::atoi(ordinal) : 0;
  if (fn(&args) != 0) {
    args.error[sizeof args.error - 1] = '\0';
    throw std::runtime_error(fmt::format("nvcc twin {}: {}", kc.twin, args.error));
  }
  for (double m : ms) run.samples_ns.push_back(m * 1e6);
  run.outputs = std::move(copies);
  return run;
}

CaseResult run_one(Context& context, const std::string& id) {
  vyre::host::Backend backend = context.main_backend();
  const vyre_device_profile profile = backend.device_profile();
  // --size-scale below 1 runs the small sizes of the CPU test (a quick look, not a measurement).
  const k::Size size = context.options().size_scale < 1.0 ? k::Size::Small : k::Size::Full;
  context.note(fmt::format("{}: building the program and its inputs", id));
  const k::KernelCase kc = k::make_case(id, size, profile.multiprocessors, context.seed_for(id));
  CaseResult result = start_case(id, kc.title, backend, "ms", "lower");
  result.extra["elements"] = kc.elements;
  result.extra["grid"] = boost::json::array{kc.grid[0], kc.grid[1], kc.grid[2]};
  result.extra["workgroup"] = boost::json::array{kc.block[0], kc.block[1], kc.block[2]};
  result.extra["vyre_grid"] = kc.explicit_grid ? "explicit (the same grid)" : "default (one invocation per element)";
  result.extra["size"] = size == k::Size::Full ? "full" : "small";
  result.warmup = context.warmup(3);

  VyreRun vyre_run = run_vyre(context, backend, kc);
  result.metrics = metrics_of(backend);
  result.clock = vyre_run.clock;
  set_time_figure(result, vyre_run.samples_ns, 1e-6);
  result.bytes_moved = kc.bytes_moved;
  const double vyre_ms = result.value.median;
  result.extra["vyre_ms"] = vyre_ms;

  context.note(fmt::format("{}: the nvcc twin", id));
  TwinRun twin;
  try {
    twin = run_twin(context, kc);
  } catch (const std::exception& e) {
    result.error = fmt::format("the vyre side ran ({:.4g} ms median), its nvcc twin did not: {}", vyre_ms, e.what());
    return result;
  }
  const Summary nvcc = summarize(twin.samples_ns);
  const double nvcc_ms = nvcc.median * 1e-6;
  result.extra["nvcc_ms"] = nvcc_ms;
  result.extra["ratio"] = nvcc_ms > 0 ? vyre_ms / nvcc_ms : 0.0;
  add_time_extra(result, "nvcc", twin.samples_ns, 1e-6, "ms");
  result.extra["twin"] = Twins::get(context).path() + ":" + kc.twin;
  if (kc.bytes_moved != 0) {
    result.extra["vyre_gbps"] = static_cast<double>(kc.bytes_moved) / result.time_ns.median;
    result.extra["nvcc_gbps"] = static_cast<double>(kc.bytes_moved) / nvcc.median;
  }

  bool ok = true;
  std::vector<std::string> lines;
  boost::json::object checks;
  std::size_t o = 0;
  for (const auto& b : kc.buffers) {
    if (!b.is_output()) continue;
    const k::Comparison c = k::compare(b, twin.outputs[o], vyre_run.outputs[o]);
    ++o;
    ok = ok && c.ok;
    checks[b.name] = boost::json::object{{"tolerance", tolerance_text(b.tolerance)}, {"why", b.tolerance.why},
                                         {"mismatches", c.mismatches}, {"max_ulp", c.max_ulp},
                                         {"max_abs", c.max_abs}, {"first_failure", c.first_failure}};
    lines.push_back(c.ok ? fmt::format("{} {} of nvcc (max {} ULP, {:.3g} abs)", b.name, tolerance_text(b.tolerance),
                                       c.max_ulp, c.max_abs)
                         : fmt::format("{}: {} of {} elements outside {}; first {}", b.name, c.mismatches,
                                       b.data.size() / vyre::byte_size(b.element), tolerance_text(b.tolerance),
                                       c.first_failure));
  }
  // Where the host computation is cheap, vyre against it as well (an error both compilers share
  // would otherwise pass).
  if (kc.cheap_host || size == k::Size::Small) {
    context.note(fmt::format("{}: the host computation", id));
    const auto host = k::host_outputs(kc);
    std::size_t h = 0;
    for (const auto& b : kc.buffers) {
      if (!b.is_output()) continue;
      const k::Comparison c = k::compare(b, host[h], vyre_run.outputs[h]);
      ++h;
      ok = ok && c.ok;
      checks[b.name + "_vs_host"] =
          boost::json::object{{"tolerance", tolerance_text(b.tolerance)}, {"mismatches", c.mismatches},
                              {"max_ulp", c.max_ulp}, {"max_abs", c.max_abs}, {"first_failure", c.first_failure}};
      lines.push_back(c.ok ? fmt::format("{} {} of the host", b.name, tolerance_text(b.tolerance))
                           : fmt::format("{} against the host: {} mismatches; first {}", b.name, c.mismatches,
                                         c.first_failure));
    }
  }
  result.extra["checks"] = std::move(checks);
  std::string what;
  for (const auto& l : lines) what += (what.empty() ? "" : "; ") + l;
  result.verified = ok;
  result.verification = checked(ok, what);
  if (!ok) context.note(fmt::format("{} MISMATCH against the nvcc twin: {}", id, what));
  return result;
}

}  // namespace

bool is_k13_function_case(std::string_view id) {
  const auto& functions = k::k13_functions();
  return id.starts_with("K13-") && std::find(functions.begin(), functions.end(), id.substr(4)) != functions.end();
}

std::vector<CaseResult> run_kernel_case(Context& context, std::string_view id) {
  if (id != "K13") return {run_one(context, std::string(id))};
  const auto& named = context.options().cases;
  const bool every_function =
      std::none_of(named.begin(), named.end(), [](const std::string& c) { return is_k13_function_case(c); }) ||
      std::any_of(named.begin(), named.end(), [](const std::string& c) { return c == "K13" || c == "kernels"; });
  std::vector<CaseResult> out;
  for (const auto& f : k::k13_functions()) {
    const std::string sub = "K13-" + f;
    if (!every_function && std::find(named.begin(), named.end(), sub) == named.end()) continue;
    try {
      out.push_back(run_one(context, sub));
    } catch (const std::exception& e) {  // one function failing leaves the others measured
      CaseResult failed = start_case(sub, "K13 " + f, context.options().backend, "ms", "lower");
      failed.error = e.what();
      context.note(fmt::format("{} failed: {}", sub, e.what()));
      out.push_back(std::move(failed));
    }
  }
  return out;
}

}  // namespace vyre::bench
