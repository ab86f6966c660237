#include "runtime/resident_transfer.hpp"

#include <cstring>
#include <map>

#include "runtime/byte_ranges.hpp"
#include "runtime/cuda_resident.hpp"

namespace vyre::cuda {
namespace {

constexpr std::uint64_t kAlignment = 64;

struct BufferCopies {
  CudaResident* buffer = nullptr;
  RangePlan plan;
  std::vector<std::uint64_t> staging_offsets;  // per merged copy
};

// Queue a transfer's copies on `stream`: queue_copies(order) queues them, calling order.use on
// each buffer first so they run after its earlier operations; then `fence` (recorded with
// `record_call` naming it in errors) becomes the last operation of every buffer used. A failure
// drains the stream before it propagates: the staging must outlive what was queued.
template <class QueueCopies>
void queue_fenced(Runtime& runtime, drv::CUstream stream, const EventRef& fence, const char* record_call,
                  QueueCopies&& queue_copies) {
  try {
    ResidentOrder order(runtime, stream);
    queue_copies(order);
    const Driver& driver = runtime.driver();
    driver.check(driver.cuEventRecord(fence->get(), stream), record_call);
    order.commit(fence);
  } catch (...) {
    runtime.drain(stream);
    throw;
  }
}

}  // namespace

void upload_resident(Runtime& runtime, std::span<const kit::CheckedWrite> writes) {
  runtime.bind();
  runtime.deferred().reap();
  std::vector<std::uint64_t> sizes;
  for (const kit::CheckedWrite& write : writes) sizes.push_back(write.data.size());
  std::uint64_t total = 0;
  const auto offsets = pack_offsets(sizes, kAlignment, &total);
  if (total == 0) return;
  std::vector<CudaResident*> targets;
  for (const kit::CheckedWrite& write : writes) targets.push_back(&cuda_resident(*write.dst));

  Block staging = runtime.staging().acquire(total);
  for (std::size_t i = 0; i < writes.size(); ++i) {
    if (!writes[i].data.empty()) std::memcpy(staging.host() + offsets[i], writes[i].data.data(), writes[i].data.size());
  }
  StreamLease stream = runtime.streams().acquire();
  const Driver& driver = runtime.driver();
  Telemetry& telemetry = runtime.telemetry();
  EventRef fence = runtime.events().acquire();
  queue_fenced(runtime, stream.get(), fence, "cuEventRecord(resident upload)", [&](ResidentOrder& order) {
    for (std::size_t i = 0; i < writes.size(); ++i) {
      const kit::CheckedWrite& write = writes[i];
      if (write.data.empty()) continue;
      order.use(*targets[i]);
      driver.check(driver.cuMemcpyHtoDAsync(targets[i]->pointer() + write.offset, staging.host() + offsets[i],
                                            write.data.size(), stream.get()),
                   "cuMemcpyHtoDAsync(resident)");
      Telemetry::add(telemetry.h2d_operations);
      Telemetry::add(telemetry.h2d_bytes, write.data.size());
    }
  });
  std::vector<Block> keep;
  keep.push_back(std::move(staging));
  runtime.deferred().park(std::move(fence), std::move(keep));
}

void download_resident(Runtime& runtime, std::span<const kit::CheckedRead> reads) {
  runtime.bind();
  runtime.deferred().reap();
  // Group the reads by buffer and merge each buffer's ranges.
  std::map<CudaResident*, std::vector<std::size_t>> by_buffer;
  for (std::size_t i = 0; i < reads.size(); ++i) by_buffer[&cuda_resident(*reads[i].src)].push_back(i);
  std::vector<BufferCopies> groups;
  std::vector<std::uint64_t> copy_sizes;
  for (const auto& [buffer, indices] : by_buffer) {
    std::vector<ByteSpan> spans;
    for (std::size_t i : indices) spans.push_back(ByteSpan{reads[i].offset, reads[i].data.size()});
    BufferCopies group{buffer, plan_ranges(spans), {}};
    for (const ByteSpan& copy : group.plan.copies) copy_sizes.push_back(copy.length);
    groups.push_back(std::move(group));
  }
  std::uint64_t total = 0;
  const auto offsets = pack_offsets(copy_sizes, kAlignment, &total);
  if (total == 0) return;
  std::size_t next = 0;
  for (BufferCopies& group : groups) {
    for (std::size_t c = 0; c < group.plan.copies.size(); ++c) group.staging_offsets.push_back(offsets[next++]);
  }

  Block staging = runtime.staging().acquire(total);
  StreamLease stream = runtime.streams().acquire();
  const Driver& driver = runtime.driver();
  Telemetry& telemetry = runtime.telemetry();
  EventRef fence = runtime.events().acquire();
  queue_fenced(runtime, stream.get(), fence, "cuEventRecord(resident download)", [&](ResidentOrder& order) {
    for (const BufferCopies& group : groups) {
      if (group.plan.copies.empty()) continue;
      order.use(*group.buffer);
      for (std::size_t c = 0; c < group.plan.copies.size(); ++c) {
        const ByteSpan& copy = group.plan.copies[c];
        driver.check(driver.cuMemcpyDtoHAsync(staging.host() + group.staging_offsets[c],
                                              group.buffer->pointer() + copy.offset, copy.length, stream.get()),
                     "cuMemcpyDtoHAsync(resident)");
        Telemetry::add(telemetry.d2h_operations);
        Telemetry::add(telemetry.d2h_bytes, copy.length);
      }
    }
  });
  const drv::CUresult done = driver.cuEventSynchronize(fence->get());
  Telemetry::add(telemetry.sync_points);
  if (done != drv::CUDA_SUCCESS) {
    runtime.drain(stream.get());  // the copies may still be writing into staging
    driver.check(done, "cuEventSynchronize(resident download)",
                 "download again; after a sticky device error (see the error) the instance must be "
                 "recreated");
  }
  for (const BufferCopies& group : groups) {
    const auto& indices = by_buffer.at(group.buffer);
    for (std::size_t k = 0; k < indices.size(); ++k) {
      const std::size_t copy_index = group.plan.copy_of[k];
      if (copy_index == kNoCopy) continue;
      const kit::CheckedRead& read = reads[indices[k]];
      const ByteSpan& copy = group.plan.copies[copy_index];
      std::memcpy(read.data.data(), staging.host() + group.staging_offsets[copy_index] + (read.offset - copy.offset),
                  read.data.size());
    }
  }
}

}  // namespace vyre::cuda
