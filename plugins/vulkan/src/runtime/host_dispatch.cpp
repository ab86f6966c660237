#include "runtime/host_dispatch.hpp"

#include <cstring>

namespace vyre::vulkan {

HostRun::HostRun(std::shared_ptr<Runtime> rt, const kit::HostDispatch& dispatch, bool timed)
    : rt_(std::move(rt)), program_(dispatch.program), outputs_(dispatch.outputs), submission_(*rt_) {
  const VulkanProgram& program = vulkan_program(*dispatch.program);
  const Program& ir = program.program();
  const std::vector<std::uint32_t>& slots = program.lowered().storage_buffers;

  // Layout: one aligned region per binding.
  std::vector<BoundBuffer> bindings(slots.size());
  std::vector<std::uint64_t> slot_of_buffer(ir.buffers.size(), 0);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const std::uint32_t b = slots[i];
    slot_of_buffer[b] = i;
    bindings[i].elements = dispatch.buffer_elements[b];
    const std::uint64_t bytes = bindings[i].elements * byte_size(ir.buffers[b].element);
    bindings[i].offset = align_up(total, kBindingAlignment);
    bindings[i].range = binding_range(bytes);
    total = bindings[i].offset + bindings[i].range;
  }
  check_launch(*rt_->device, dispatch.geometry, bindings);

  // Bound straight from mapped host memory: always where staging memory is device-local (unified),
  // and for small layouts elsewhere (the kernel reads and writes the few bytes over the bus, which
  // costs less than the fill, the two copies and their barriers), unless the program has atomics.
  const bool unified =
      rt_->memory->unified() || (rt_->mapped_host && total <= kMappedHostLimit && !program.uses_atomics());
  staging_ = rt_->memory->acquire(MemoryKind::Staging, std::max<std::uint64_t>(total, 16));
  if (!unified) device_ = rt_->memory->acquire(MemoryKind::Device, std::max<std::uint64_t>(total, 16));
  const Block& bound = unified ? staging_ : device_;
  for (BoundBuffer& b : bindings) b.buffer = bound.buffer();

  const DeviceFns& fn = rt_->device->fn();
  VkCommandBuffer cmd = submission_->begin(timed);
  std::vector<VkBufferCopy> uploads;
  std::uint64_t bytes_in = 0;
  const auto& inputs = program.input_buffers();
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const std::uint64_t offset = bindings[slot_of_buffer[inputs[k]]].offset;
    const kit::Bytes data = dispatch.inputs[k];
    if (data.empty()) continue;
    std::memcpy(staging_.mapped() + offset, data.data(), data.size());
    uploads.push_back({offset, offset, data.size()});
    bytes_in += data.size();
  }
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (ir.buffers[slots[i]].access != Access::Output) continue;
    if (unified) {
      std::memset(staging_.mapped() + bindings[i].offset, 0, bindings[i].range);
    } else {
      fn.vkCmdFillBuffer(cmd, device_.buffer(), bindings[i].offset, bindings[i].range, 0);
    }
  }
  if (!unified) {
    if (!uploads.empty())
      fn.vkCmdCopyBuffer(cmd, staging_.buffer(), device_.buffer(), static_cast<std::uint32_t>(uploads.size()), uploads.data());
    memory_barrier(fn, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
  }
  record_program(*rt_, cmd, program, dispatch.geometry, bindings);

  const auto& outputs = program.output_buffers();
  std::vector<VkBufferCopy> downloads;
  std::uint64_t bytes_out = 0;
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const std::uint64_t offset = bindings[slot_of_buffer[outputs[k]]].offset;
    output_offsets_.push_back(offset);
    const kit::OutputTarget& t = outputs_[k];
    bytes_out += t.dst.size();
    if (!t.dst.empty()) downloads.push_back({offset + t.buffer_offset, offset + t.buffer_offset, t.dst.size()});
  }
  if (unified) {
    memory_barrier(fn, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                   VK_ACCESS_HOST_READ_BIT);
  } else {
    memory_barrier(fn, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_ACCESS_TRANSFER_READ_BIT);
    if (!downloads.empty())
      fn.vkCmdCopyBuffer(cmd, device_.buffer(), staging_.buffer(), static_cast<std::uint32_t>(downloads.size()), downloads.data());
    memory_barrier(fn, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                   VK_ACCESS_HOST_READ_BIT);
  }
  value_ = submission_->submit();
  if (!timed) submission_.release();  // back to the pool: reused once value_ is reached
  Telemetry& t = rt_->telemetry;
  Telemetry::add(t.dispatches);
  Telemetry::add(t.submissions);
  Telemetry::add(t.bytes_in, bytes_in);
  Telemetry::add(t.bytes_out, bytes_out);
}

HostRun::~HostRun() {
  if (drivers_shut_down()) return;  // see loader.hpp
  try {
    rt_->device->wait_for(value_, UINT64_MAX);
  } catch (...) {
  }
}

void HostRun::deliver() {
  if (delivered_) return;
  for (std::size_t k = 0; k < outputs_.size(); ++k) {
    const kit::OutputTarget& t = outputs_[k];
    if (!t.dst.empty()) std::memcpy(t.dst.data(), staging_.mapped() + output_offsets_[k] + t.buffer_offset, t.dst.size());
  }
  delivered_ = true;
}

bool HostRun::poll() {
  if (!rt_->device->reached(value_)) return false;
  deliver();
  return true;
}

bool HostRun::wait(std::uint64_t timeout_ns) {
  if (!rt_->device->wait_for(value_, timeout_ns)) return false;
  deliver();
  return true;
}

HostPending::~HostPending() {
  std::lock_guard lock(mutex_);
  run_.reset();  // waits; never delivers
}

bool HostPending::poll() {
  std::lock_guard lock(mutex_);
  return run_->poll();
}

bool HostPending::wait(std::uint64_t timeout_ns) {
  std::lock_guard lock(mutex_);
  return run_->wait(timeout_ns);
}

}  // namespace vyre::vulkan
