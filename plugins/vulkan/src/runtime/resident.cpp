#include "runtime/resident.hpp"

#include <chrono>
#include <cstring>
#include <mutex>

#include "vyre/error.hpp"

namespace vyre::vulkan {

namespace {

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

void reserve(Runtime& rt, std::uint64_t bytes) {
  std::uint64_t used = rt.resident_reserved.load();
  do {
    if (used + bytes > rt.memory_budget || used + bytes < used)
      fail(VYRE_ERR_OUT_OF_MEMORY,
           "resident_alloc of " + std::to_string(bytes) + " bytes exceeds the Vulkan memory budget (" +
               std::to_string(rt.memory_budget - std::min(used, rt.memory_budget)) + " of " +
               std::to_string(rt.memory_budget) + " bytes available)",
           "free resident buffers, or raise memory_budget_bytes");
  } while (!rt.resident_reserved.compare_exchange_weak(used, used + bytes));
}

}  // namespace

VulkanResident::VulkanResident(std::shared_ptr<Runtime> runtime, std::uint64_t byte_len)
    : kit::DeviceBuffer(byte_len), rt_(std::move(runtime)) {
  reserve(*rt_, byte_len);
  try {
    block_ = rt_->memory->acquire(MemoryKind::Device, binding_range(byte_len));
    SubmissionHandle s(*rt_);
    VkCommandBuffer cmd = s->begin(false);
    rt_->device->fn().vkCmdFillBuffer(cmd, block_.buffer(), 0, VK_WHOLE_SIZE, 0);
    s->submit();
    s->wait(UINT64_MAX);
  } catch (...) {
    rt_->resident_reserved.fetch_sub(byte_len);
    throw;
  }
  Telemetry::add(rt_->telemetry.resident_allocations);
  Telemetry::add(rt_->telemetry.resident_bytes, byte_len);
}

VulkanResident::~VulkanResident() {
  rt_->resident_reserved.fetch_sub(byte_len());
  rt_->telemetry.resident_bytes.fetch_sub(byte_len());
  Telemetry::add(rt_->telemetry.resident_frees);
}

VulkanResident& vulkan_resident(kit::DeviceBuffer& buffer) {
  auto* r = dynamic_cast<VulkanResident*>(&buffer);
  if (r == nullptr)
    fail(VYRE_ERR_INVALID_HANDLE, "the resident buffer does not belong to the vulkan backend",
         "allocate it with this backend instance");
  return *r;
}

void upload(Runtime& rt, std::span<const kit::CheckedWrite> writes) {
  std::uint64_t total = 0;
  for (const auto& w : writes) total += w.data.size();
  if (total == 0) return;
  Block staging = rt.memory->acquire(MemoryKind::Staging, total);
  SubmissionHandle s(rt);
  VkCommandBuffer cmd = s->begin(false);
  std::uint64_t at = 0;
  for (const auto& w : writes) {
    if (w.data.empty()) continue;
    std::memcpy(staging.mapped() + at, w.data.data(), w.data.size());
    const VkBufferCopy region{at, w.offset, w.data.size()};
    rt.device->fn().vkCmdCopyBuffer(cmd, staging.buffer(), vulkan_resident(*w.dst).block().buffer(), 1, &region);
    at += w.data.size();
  }
  s->submit();
  s->wait(UINT64_MAX);
  Telemetry::add(rt.telemetry.bytes_in, total);
}

void download(Runtime& rt, std::span<const kit::CheckedRead> reads) {
  std::uint64_t total = 0;
  for (const auto& r : reads) total += r.data.size();
  if (total == 0) return;
  Block staging = rt.memory->acquire(MemoryKind::Staging, total);
  SubmissionHandle s(rt);
  VkCommandBuffer cmd = s->begin(false);
  std::uint64_t at = 0;
  for (const auto& r : reads) {
    if (r.data.empty()) continue;
    const VkBufferCopy region{r.offset, at, r.data.size()};
    rt.device->fn().vkCmdCopyBuffer(cmd, vulkan_resident(*r.src).block().buffer(), staging.buffer(), 1, &region);
    at += r.data.size();
  }
  memory_barrier(rt.device->fn(), cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                 VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  s->submit();
  s->wait(UINT64_MAX);
  at = 0;
  for (const auto& r : reads) {
    if (r.data.empty()) continue;
    std::memcpy(r.data.data(), staging.mapped() + at, r.data.size());
    at += r.data.size();
  }
  Telemetry::add(rt.telemetry.bytes_out, total);
}

PreparedResident prepare_resident(Runtime& rt, const kit::ResidentDispatch& dispatch, std::vector<Block>& temporaries) {
  PreparedResident p;
  p.program = &vulkan_program(*dispatch.program);
  p.geometry = &dispatch.geometry;
  const Program& ir = p.program->program();
  const std::vector<std::uint32_t>& slots = p.program->lowered().storage_buffers;
  p.bindings.resize(slots.size());
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const std::uint32_t b = slots[i];
    BoundBuffer& bound = p.bindings[i];
    bound.elements = dispatch.buffer_elements[b];
    bound.range = binding_range(bound.elements * byte_size(ir.buffers[b].element));
  }
  check_launch(*rt.device, dispatch.geometry, p.bindings);
  if (!dispatch.geometry.empty())  // made now, so that recording cannot fail half-way
    for (std::size_t phase = 0; phase < p.program->lowered().entries.size(); ++phase)
      (void)p.program->pipeline(phase, dispatch.geometry.workgroup);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const kit::CheckedBinding& binding = dispatch.bindings[slots[i]];
    BoundBuffer& bound = p.bindings[i];
    if (binding.resident) {
      bound.buffer = vulkan_resident(*binding.resident).block().buffer();
      continue;
    }
    // Host bytes of a read/uniform buffer: staged for this dispatch.
    Block staging = rt.memory->acquire(MemoryKind::Staging, bound.range);
    if (!binding.host.empty()) std::memcpy(staging.mapped(), binding.host.data(), binding.host.size());
    if (rt.memory->unified()) {
      bound.buffer = staging.buffer();
    } else {
      Block device = rt.memory->acquire(MemoryKind::Device, bound.range);
      if (!binding.host.empty()) p.copies.push_back({staging.buffer(), device.buffer(), binding.host.size()});
      bound.buffer = device.buffer();
      temporaries.push_back(std::move(device));
    }
    temporaries.push_back(std::move(staging));
  }
  return p;
}

void record_prepared(Runtime& rt, VkCommandBuffer cmd, const PreparedResident& p) {
  const DeviceFns& fn = rt.device->fn();
  for (const auto& c : p.copies) {
    const VkBufferCopy region{0, 0, c.bytes};
    fn.vkCmdCopyBuffer(cmd, c.from, c.to, 1, &region);
  }
  if (!p.copies.empty())
    memory_barrier(fn, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                   VK_ACCESS_SHADER_READ_BIT);
  record_program(rt, cmd, *p.program, *p.geometry, p.bindings);
}

void record_resident(Runtime& rt, VkCommandBuffer cmd, const kit::ResidentDispatch& dispatch, std::vector<Block>& temporaries) {
  record_prepared(rt, cmd, prepare_resident(rt, dispatch, temporaries));
}

namespace {

class ResidentPending final : public kit::Pending {
 public:
  // Batched: completion is the ticket's timeline value once its batch is submitted.
  ResidentPending(std::shared_ptr<Runtime> rt, std::shared_ptr<Ticket> ticket, std::vector<Block> temporaries,
                  std::unique_ptr<InFlightGuard> guard)
      : rt_(std::move(rt)), ticket_(std::move(ticket)), temporaries_(std::move(temporaries)), guard_(std::move(guard)) {}
  ~ResidentPending() override {
    std::lock_guard lock(mutex_);
    try {
      // the temporaries stay alive until the work is done
      rt_->device->wait_for(rt_->batcher->value_of(ticket_), UINT64_MAX);
    } catch (...) {
    }
  }
  bool poll() override {
    std::lock_guard lock(mutex_);
    std::uint64_t value = ticket_->value.load(std::memory_order_acquire);
    if (value == 0) {
      if (!ticket_->failed.load(std::memory_order_acquire)) return false;  // the submit thread has it
      value = rt_->batcher->value_of(ticket_);  // throws the batch's error
    }
    if (!rt_->device->reached(value)) return false;
    guard_->clear();
    return true;
  }
  bool wait(std::uint64_t timeout_ns) override {
    std::lock_guard lock(mutex_);
    if (!rt_->device->wait_for(rt_->batcher->value_of(ticket_), timeout_ns)) return false;
    guard_->clear();
    return true;
  }

 private:
  std::mutex mutex_;
  std::shared_ptr<Runtime> rt_;
  std::shared_ptr<Ticket> ticket_;
  std::vector<Block> temporaries_;
  std::unique_ptr<InFlightGuard> guard_;
};

}  // namespace

std::unique_ptr<kit::Pending> dispatch_resident(std::shared_ptr<Runtime> rt, const kit::ResidentDispatch& dispatch,
                                                bool wait, vyre::Timing* timing) {
  if (!wait) {
    // Asynchronous: prepared (checks, pipelines, staging) first, then recorded into the batch.
    std::vector<Block> temporaries;
    const PreparedResident prepared = prepare_resident(*rt, dispatch, temporaries);
    auto guard = std::make_unique<InFlightGuard>();
    for (const kit::CheckedBinding& b : dispatch.bindings) guard->add(b.resident);
    Runtime& runtime = *rt;
    auto ticket = rt->batcher->add([&](VkCommandBuffer cmd) { record_prepared(runtime, cmd, prepared); });
    Telemetry::add(rt->telemetry.resident_dispatches);
    return std::make_unique<ResidentPending>(std::move(rt), std::move(ticket), std::move(temporaries), std::move(guard));
  }
  const std::uint64_t start = now_ns();
  SubmissionHandle s(*rt);
  std::vector<Block> temporaries;
  VkCommandBuffer cmd = s->begin(timing != nullptr);
  record_resident(*rt, cmd, dispatch, temporaries);
  InFlightGuard guard;
  for (const kit::CheckedBinding& b : dispatch.bindings) guard.add(b.resident);
  s->submit();
  Telemetry::add(rt->telemetry.submissions);
  Telemetry::add(rt->telemetry.resident_dispatches);
  const std::uint64_t queued = now_ns();
  s->wait(UINT64_MAX);
  if (timing != nullptr) {
    timing->enqueue_ns = queued - start;
    timing->wait_ns = now_ns() - queued;
    timing->wall_ns = now_ns() - start;
    timing->device_ns = s->device_ns();
    timing->has_device_ns = true;
  }
  return nullptr;
}

void InFlightGuard::add(const std::shared_ptr<kit::DeviceBuffer>& buffer) {
  if (!buffer) return;
  for (const auto& held : buffers_)
    if (held == buffer) return;
  buffer->in_flight.fetch_add(1);
  buffers_.push_back(buffer);
}

void InFlightGuard::clear() {
  for (const auto& buffer : buffers_) buffer->in_flight.fetch_sub(1);
  buffers_.clear();
}

}  // namespace vyre::vulkan
