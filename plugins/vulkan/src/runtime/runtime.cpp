#include "runtime/runtime.hpp"

#include <cstdlib>
#include <cstring>

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
  rt->telemetry.native_fma_f32 = rt->device->features().fma32 ? 1 : 0;
  rt->telemetry.native_fma_f64 = rt->device->features().fma64 ? 1 : 0;
  rt->telemetry.seeded_div_sqrt_f32 = rt->device->features().seeded_div_sqrt32 ? 1 : 0;
  rt->telemetry.seeded_div_sqrt_f64 = rt->device->features().seeded_div_sqrt64 ? 1 : 0;
  const char* no_mapped = std::getenv("VYRE_VULKAN_DISABLE_MAPPED_HOST");  // host_dispatch.hpp
  rt->mapped_host = no_mapped == nullptr || std::strcmp(no_mapped, "1") != 0;
  rt->memory_budget = options.memory_budget_bytes != 0 ? options.memory_budget_bytes : rt->device->device_local_bytes();
  return rt;
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
