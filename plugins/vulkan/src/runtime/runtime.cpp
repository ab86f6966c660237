#include "runtime/runtime.hpp"

#include <cstdlib>
#include <cstring>
#include <vector>

#include "runtime/host_dispatch.hpp"
#include "runtime/program.hpp"

namespace vyre::vulkan {

std::shared_ptr<Runtime> Runtime::open(const vyre::CreateOptions& options) {
  std::optional<int> ordinal = options.device_ordinal;
  if (!ordinal) ordinal = device_ordinal_from_env();  // validated before the loader opens
  auto rt = std::make_shared<Runtime>();
  rt->device = Device::open(ordinal);
  rt->memory = std::make_shared<Memory>(rt->device);
  rt->submissions = std::make_unique<SubmissionPool>(rt->device, &rt->telemetry.command_pools_created);
  rt->batcher = std::make_unique<Batcher>(rt->device, *rt->submissions, &rt->telemetry.submissions);
  rt->pipeline_cache = std::make_unique<PipelineCache>(rt->device);
  rt->telemetry.pipeline_cache_loaded_bytes = rt->pipeline_cache->loaded_bytes();
  const char* no_mapped = std::getenv("VYRE_VULKAN_DISABLE_MAPPED_HOST");  // host_dispatch.hpp
  rt->mapped_host = no_mapped == nullptr || std::strcmp(no_mapped, "1") != 0;
  rt->memory_budget = options.memory_budget_bytes != 0 ? options.memory_budget_bytes : rt->device->device_local_bytes();
  // Where the driver offers no VK_KHR_shader_fma for a width, probe GLSL.std.450 Fma once.
  FmaProbeOutcome probe32, probe64;
  if (native_fma_allowed()) {
    if (!rt->device->features().fma32) probe32 = probe_fma(rt, Type::F32);
    if (!rt->device->features().fma64 && rt->device->features().float64) probe64 = probe_fma(rt, Type::F64);
    // Neither gives a fused f32 fma: on request (VYRE_VULKAN_WIDE_FMA=1, device.hpp says why not by
    // default) compute it in f64 (wide_fma.hpp) where the device has f64 (and the 64-bit integers
    // of its fallback).
    const DeviceFeatures& f = rt->device->features();
    if (!f.fma32 && f.float64 && f.int64 && wide_fma_requested())
      rt->device->set_fma(Type::F32, DeviceFeatures::FmaSource::Wide);
  }
  rt->telemetry.reset();  // the probe's dispatches are not the user's
  const DeviceFeatures& f = rt->device->features();
  rt->telemetry.native_fma_f32 = f.fma32 ? 1 : 0;
  rt->telemetry.native_fma_f64 = f.fma64 ? 1 : 0;
  rt->telemetry.fma_source_f32 = static_cast<std::uint64_t>(f.fma_source32);
  rt->telemetry.fma_source_f64 = static_cast<std::uint64_t>(f.fma_source64);
  rt->telemetry.fma_probe_f32 = static_cast<std::uint64_t>(probe32.verdict);
  rt->telemetry.fma_probe_f64 = static_cast<std::uint64_t>(probe64.verdict);
  rt->telemetry.fma_probe_mismatches_f32 = probe32.mismatches;
  rt->telemetry.fma_probe_mismatches_f64 = probe64.mismatches;
  rt->telemetry.seeded_div_sqrt_f32 = f.seeded_div_sqrt32 ? 1 : 0;
  rt->telemetry.seeded_div_sqrt_f64 = f.seeded_div_sqrt64 ? 1 : 0;
  return rt;
}

std::size_t run_fma_probe(const std::shared_ptr<Runtime>& rt, Type t, std::span<const FmaProbeCase> cases) {
  const auto n = static_cast<std::uint32_t>(cases.size());
  const std::size_t width = t == Type::F32 ? 4 : 8;
  const std::string name = t == Type::F32 ? "vyre-vulkan-fma-probe-f32" : "vyre-vulkan-fma-probe-f64";
  auto program = std::make_shared<VulkanProgram>(fma_probe_program(t, n), name, rt);
  std::vector<std::byte> in[3];
  for (auto& v : in) v.resize(n * width);
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint64_t ops[3] = {cases[i].a, cases[i].b, cases[i].c};
    for (int k = 0; k < 3; ++k) std::memcpy(in[k].data() + i * width, &ops[k], width);  // the low bytes (little-endian)
  }
  std::vector<std::byte> out(n * width);
  kit::HostDispatch d;
  d.program = program;
  d.geometry.n = n;
  d.geometry.workgroup = {64, 1, 1};
  d.geometry.grid = {(n + 63) / 64, 1, 1};
  d.geometry.tail_guard = true;
  d.buffer_elements = {n, n, n, n};
  d.inputs = {kit::Bytes(in[0]), kit::Bytes(in[1]), kit::Bytes(in[2])};
  d.outputs = {kit::OutputTarget{kit::MutableBytes(out), 0}};
  HostRun run(rt, d, false);
  run.wait(UINT64_MAX);
  std::vector<std::uint64_t> results(n, 0);
  for (std::uint32_t i = 0; i < n; ++i) std::memcpy(&results[i], out.data() + i * width, width);
  return fma_probe_mismatches(cases, results);
}

FmaProbeOutcome probe_fma(const std::shared_ptr<Runtime>& rt, Type t) noexcept {
  using Source = DeviceFeatures::FmaSource;
  FmaProbeOutcome outcome;
  try {
    const char* table = std::getenv(kFmaProbeTableEnv);
    const bool exact = table != nullptr && std::strcmp(table, "exact") == 0;
    const std::vector<FmaProbeCase> cases = exact ? fma_probe_exact_cases(t) : fma_probe_cases(t);
    rt->device->set_fma(t, Source::Probe);  // the probe program lowers with GLSL.std.450 Fma
    outcome.mismatches = run_fma_probe(rt, t, cases);
    outcome.verdict = outcome.mismatches == 0 ? FmaProbeOutcome::Passed : FmaProbeOutcome::Mismatched;
  } catch (...) {
    outcome.verdict = FmaProbeOutcome::Failed;  // a failed probe is the emulation, never a failed create
  }
  if (outcome.verdict != FmaProbeOutcome::Passed) rt->device->set_fma(t, Source::Emulation);
  return outcome;
}

void SubmissionHandle::release() noexcept {
  if (!s_) return;
  try {
    rt_->submissions->release(std::move(s_));
  } catch (...) {
    s_.reset();  // the destructor waits; a lost device is reported by the caller's own wait
  }
}

}  // namespace vyre::vulkan
