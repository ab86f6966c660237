#include "reference_backend.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <thread>
#include <unordered_map>

#include <fmt/format.h>

#include "async_dispatch.hpp"
#include "host_memory.hpp"

namespace vyre::refcpu {

namespace {

constexpr std::uint64_t kWorkgroupMemoryLimit = 256ull << 20;
// Imported host memory must be aligned for every element type (8 bytes: u64, i64, f64).
constexpr std::uint32_t kExternalAlignment = 8;

class ReferenceProgram final : public kit::CompiledProgram {
 public:
  ReferenceProgram(Program program, std::string fingerprint)
      : kit::CompiledProgram(std::move(program), std::move(fingerprint)),
        executable_(compile_program(this->program())) {}
  const Executable& executable() const { return *executable_; }

 private:
  std::shared_ptr<const Executable> executable_;
};

const ReferenceProgram& as_reference(const std::shared_ptr<const kit::CompiledProgram>& program) {
  const auto* p = dynamic_cast<const ReferenceProgram*>(program.get());
  if (p == nullptr)
    fail(VYRE_ERR_INVALID_HANDLE, "the program was not compiled by reference_cpu",
         "compile the program with the same backend instance that dispatches it");
  return *p;
}

// A resident buffer: host memory of its own (resident_alloc), or the caller's (resident_import),
// which it never frees.
class HostResident final : public kit::DeviceBuffer {
 public:
  explicit HostResident(std::uint64_t byte_len)
      : kit::DeviceBuffer(byte_len), memory_(byte_len, "a resident buffer"), data_(memory_.data()) {}
  HostResident(std::byte* external, std::uint64_t byte_len)
      : kit::DeviceBuffer(byte_len), data_(external), imported_(true) {}
  std::byte* data() { return data_; }
  bool imported() const { return imported_; }

 private:
  HostMemory memory_;
  std::byte* data_ = nullptr;
  bool imported_ = false;
};

HostResident& as_host(kit::DeviceBuffer& buffer) {
  auto* r = dynamic_cast<HostResident*>(&buffer);
  if (r == nullptr)
    fail(VYRE_ERR_INVALID_HANDLE, "the resident buffer was not allocated by reference_cpu",
         "allocate resident buffers with the backend instance that uses them");
  return *r;
}

constexpr unsigned kMaxWorkers = 256;

unsigned default_workers(std::uint32_t requested) {
  if (requested != 0) return std::min<unsigned>(requested, kMaxWorkers);
  return std::clamp(std::thread::hardware_concurrency(), 1u, kMaxWorkers);
}

std::uint64_t physical_memory() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
}

void copy_name(char* dst, std::size_t capacity, std::string_view text) {
  std::size_t n = std::min(capacity - 1, text.size());
  std::memcpy(dst, text.data(), n);
  dst[n] = '\0';
}

void check_workgroup_memory(const Program& program) {
  std::uint64_t total = 0;
  for (const BufferDecl& b : program.buffers)
    if (b.access == Access::Workgroup) total += std::uint64_t{b.count} * byte_size(b.element);
  if (total <= kWorkgroupMemoryLimit) return;
  fail(VYRE_ERR_LIMIT,
       fmt::format("the program declares {} bytes of workgroup memory; reference_cpu allows {}", total,
                   kWorkgroupMemoryLimit),
       "use smaller workgroup buffers (keep per-workgroup scratch small; use global buffers for "
       "large data)");
}

}  // namespace

ReferenceBackend::ReferenceBackend(const vyre::CreateOptions& options)
    : workers_(default_workers(options.worker_threads)),
      reverse_(options.reverse_workgroups),
      memory_budget_(options.memory_budget_bytes) {
  if (options.device_ordinal && *options.device_ordinal != 0)
    fail(VYRE_ERR_NO_DEVICE,
         fmt::format("reference_cpu has one device (ordinal 0), not ordinal {}", *options.device_ordinal),
         "pass device_ordinal -1 or 0 for reference_cpu");
  if (reverse_) workers_ = 1;  // reverse order is one deterministic thread
  if (workers_ > 1) pool_ = std::make_unique<ThreadPool>(workers_ - 1);
}

void ReferenceBackend::device_profile(vyre_device_profile& out) {
  out.kind = VYRE_DEVICE_KIND_CPU;
  copy_name(out.name, sizeof(out.name), "cpu");
  copy_name(out.target, sizeof(out.target), "cpu");
  out.compute_major = 0;
  out.compute_minor = 0;
  out.driver_version = 0;
  out.multiprocessors = workers_;
  out.total_memory_bytes = physical_memory();
  out.subgroup_width = 32;
  out.max_threads_per_workgroup = 1024;
  for (auto& axis : out.max_workgroup_size) axis = 1024;
  for (auto& axis : out.max_grid_size) axis = 0xFFFFFFFFu;
  out.shared_memory_per_workgroup = kWorkgroupMemoryLimit;
  out.shared_memory_per_multiprocessor = kWorkgroupMemoryLimit;
  out.registers_per_workgroup = 0;
  out.registers_per_multiprocessor = 0;
  out.l2_cache_bytes = 0;
  out.memory_clock_khz = 0;
  out.memory_bus_width_bits = 0;
  out.memory_bandwidth_gbps = 0.0;
  out.cooperative_launch = 1;
  out.external_alignment = kExternalAlignment;
}

std::shared_ptr<kit::CompiledProgram> ReferenceBackend::compile(Program program, std::string fingerprint) {
  check_workgroup_memory(program);
  auto compiled = std::make_shared<ReferenceProgram>(std::move(program), std::move(fingerprint));
  counters_.programs.fetch_add(1, std::memory_order_relaxed);
  return compiled;
}

void ReferenceBackend::run(const Executable& exe, const LaunchGeometry& geometry,
                           std::span<const MemView> buffers, const StopCondition& stop) {
  LaunchOptions options{pool_.get(), workers_, reverse_, stop};
  LaunchStats stats;
  try {
    stats = launch(exe, geometry, buffers, options);
  } catch (const Error& e) {
    if (e.code() == VYRE_ERR_EXECUTION) counters_.execution_errors.fetch_add(1, std::memory_order_relaxed);
    throw;
  }
  counters_.workgroups.fetch_add(stats.workgroups, std::memory_order_relaxed);
  counters_.invocations.fetch_add(stats.invocations, std::memory_order_relaxed);
}

void ReferenceBackend::reserve(std::uint64_t bytes, std::string_view what) {
  const std::uint64_t before = budget_used_.fetch_add(bytes, std::memory_order_relaxed);
  if (memory_budget_ == 0 || (before + bytes >= before && before + bytes <= memory_budget_)) return;
  budget_used_.fetch_sub(bytes, std::memory_order_relaxed);
  fail(VYRE_ERR_OUT_OF_MEMORY,
       fmt::format("{} of {} bytes does not fit the memory budget: {} of {} bytes are available", what, bytes,
                   before > memory_budget_ ? 0 : memory_budget_ - before, memory_budget_),
       "free resident buffers, dispatch fewer elements, or create the backend with a larger "
       "memory_budget_bytes");
}

namespace {

// Bytes counted against the memory budget for as long as the reservation lives.
class Reservation {
 public:
  explicit Reservation(std::atomic<std::uint64_t>& used) : used_(used) {}
  ~Reservation() { used_.fetch_sub(bytes_, std::memory_order_relaxed); }
  Reservation(const Reservation&) = delete;
  Reservation& operator=(const Reservation&) = delete;
  void add(std::uint64_t bytes) { bytes_ += bytes; }

 private:
  std::atomic<std::uint64_t>& used_;
  std::uint64_t bytes_ = 0;
};

}  // namespace

void ReferenceBackend::dispatch(const kit::HostDispatch& d) {
  run_host(d, StopCondition(d.config, StopCondition::Clock::now(), nullptr));
}

std::unique_ptr<kit::Pending> ReferenceBackend::dispatch_async(const kit::HostDispatch& d) {
  const auto start = StopCondition::Clock::now();
  std::uint64_t copied = 0;
  for (const kit::Bytes& input : d.inputs) copied += input.size();
  reserve(copied, "the copied inputs of an asynchronous dispatch");
  try {
    return std::make_unique<AsyncDispatch>(d, start, [this, copied](const kit::HostDispatch& work,
                                                                    const StopCondition& stop) {
      Reservation inputs(budget_used_);
      inputs.add(copied);
      run_host(work, stop);
    });
  } catch (...) {
    release(copied);
    throw;
  }
}

namespace {

// Per declared buffer, the caller's output memory the dispatch may compute in directly, or null:
// only with VYRE_OUTPUTS_DISCARDED_ON_FAILURE, and only where the output receives the whole buffer
// (no output_byte_range trimming) at an address aligned for its element.
std::vector<std::byte*> in_place_outputs(const kit::HostDispatch& d, const ReferenceProgram& program) {
  const Program& ir = program.program();
  std::vector<std::byte*> out(ir.buffers.size(), nullptr);
  if (!d.outputs_discarded_on_failure) return out;
  for (std::size_t j = 0; j < d.outputs.size(); ++j) {
    const std::uint32_t index = program.output_buffers()[j];
    const std::uint64_t size = byte_size(ir.buffers[index].element);
    const kit::OutputTarget& target = d.outputs[j];
    const bool whole = target.buffer_offset == 0 && target.dst.size() == d.buffer_elements[index] * size;
    const bool aligned = reinterpret_cast<std::uintptr_t>(target.dst.data()) % size == 0;
    if (whole && aligned && !target.dst.empty()) out[index] = target.dst.data();
  }
  return out;
}

}  // namespace

// Inputs are used in place when aligned (read/uniform buffers are never written) and copied
// otherwise; read_write and output buffers are staged, and copied out only after success. The
// staged bytes count against the memory budget while the dispatch runs. Where the caller drops its
// outputs on failure (VYRE_OUTPUTS_DISCARDED_ON_FAILURE), whole aligned outputs are computed in
// place instead: held once, and not staged.
void ReferenceBackend::run_host(const kit::HostDispatch& d, const StopCondition& stop) {
  const ReferenceProgram& program = as_reference(d.program);
  const Program& ir = program.program();
  std::vector<MemView> views(ir.buffers.size());
  std::vector<HostMemory> staged(ir.buffers.size());
  const std::vector<std::byte*> in_place = in_place_outputs(d, program);
  Reservation reserved(budget_used_);
  auto stage = [&](std::uint64_t bytes, std::string_view what) {
    reserve(bytes, what);
    reserved.add(bytes);
  };
  std::size_t next_input = 0;
  std::uint64_t bytes_in = 0;
  for (std::size_t i = 0; i < ir.buffers.size(); ++i) {
    const BufferDecl& decl = ir.buffers[i];
    const std::uint32_t size = byte_size(decl.element);
    views[i].count = d.buffer_elements[i];
    if (decl.access == Access::Workgroup) continue;
    if (decl.access == Access::Output && in_place[i] != nullptr) {
      std::memset(in_place[i], 0, d.buffer_elements[i] * size);  // output buffers start zeroed
      views[i].data = in_place[i];
      continue;
    }
    if (decl.access == Access::Output) {
      stage(d.buffer_elements[i] * size, fmt::format("output buffer '{}'", decl.name));
      staged[i] = HostMemory(d.buffer_elements[i] * size, "an output buffer");
      views[i].data = staged[i].data();
      continue;
    }
    kit::Bytes input = d.inputs[next_input++];
    bytes_in += input.size();
    bool aligned = reinterpret_cast<std::uintptr_t>(input.data()) % size == 0;
    if (decl.access != Access::ReadWrite && aligned) {
      views[i].data = const_cast<std::byte*>(input.data());
      continue;
    }
    if (in_place[i] != nullptr) {  // read_write: the input's bytes, then computed in place
      if (!input.empty()) std::memcpy(in_place[i], input.data(), input.size());
      views[i].data = in_place[i];
      continue;
    }
    stage(input.size(), fmt::format("the staged copy of buffer '{}'", decl.name));
    staged[i] = HostMemory(input, "a staged input buffer");
    views[i].data = staged[i].data();
  }
  run(program.executable(), d.geometry, views, stop);
  std::uint64_t bytes_out = 0;
  for (std::size_t j = 0; j < d.outputs.size(); ++j) {
    const kit::OutputTarget& target = d.outputs[j];
    const std::uint32_t index = program.output_buffers()[j];
    const HostMemory& source = staged[index];
    if (in_place[index] == nullptr && !target.dst.empty()) std::memcpy(target.dst.data(), source.data() + target.buffer_offset, target.dst.size());
    bytes_out += target.dst.size();
  }
  counters_.dispatches.fetch_add(1, std::memory_order_relaxed);
  counters_.bytes_in.fetch_add(bytes_in, std::memory_order_relaxed);
  counters_.bytes_out.fetch_add(bytes_out, std::memory_order_relaxed);
}

// ---- resident buffers -----------------------------------------------------------------------------

std::shared_ptr<kit::DeviceBuffer> ReferenceBackend::resident_alloc(std::uint64_t byte_len) {
  reserve(byte_len, "a resident buffer");
  try {
    auto buffer = std::make_shared<HostResident>(byte_len);
    resident_bytes_.fetch_add(byte_len, std::memory_order_relaxed);
    return buffer;
  } catch (...) {
    release(byte_len);
    throw;
  }
}

void ReferenceBackend::resident_free(kit::DeviceBuffer& buffer) {
  if (as_host(buffer).imported()) return;
  resident_bytes_.fetch_sub(buffer.byte_len(), std::memory_order_relaxed);
  release(buffer.byte_len());
}

// Every dispatch completes before its call returns, so the caller's memory is in use only during
// calls; the memory budget counts only what this backend allocates.
std::shared_ptr<kit::DeviceBuffer> ReferenceBackend::resident_import(const kit::ImportRequest& memory) {
  if (memory.kind != VYRE_MEMORY_HOST)
    fail(VYRE_ERR_UNSUPPORTED,
         fmt::format("reference_cpu imports host memory only (VYRE_MEMORY_HOST), not memory kind {}", memory.kind),
         "pass a host pointer with kind VYRE_MEMORY_HOST, or copy device memory to the host first");
  if (memory.address == 0)
    fail(VYRE_ERR_INVALID_ARGUMENT, "the imported host pointer is null", "import a valid host pointer");
  if (memory.address + memory.byte_len < memory.address)
    fail(VYRE_ERR_INVALID_ARGUMENT, "the imported range wraps around the address space",
         "pass the pointer and length of one host allocation");
  auto* data = reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>(memory.address));
  return std::make_shared<HostResident>(data, memory.byte_len);
}

kit::MemoryLocation ReferenceBackend::resident_export(kit::DeviceBuffer& buffer) {
  const auto address = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(as_host(buffer).data()));
  return kit::MemoryLocation{VYRE_MEMORY_HOST, VYRE_DLPACK_CPU, 0, address};
}

void ReferenceBackend::resident_upload(std::span<const kit::CheckedWrite> writes) {
  for (const kit::CheckedWrite& w : writes) {
    if (w.data.empty()) continue;
    std::memcpy(as_host(*w.dst).data() + w.offset, w.data.data(), w.data.size());
    counters_.bytes_in.fetch_add(w.data.size(), std::memory_order_relaxed);
  }
}

void ReferenceBackend::resident_download(std::span<const kit::CheckedRead> reads) {
  for (const kit::CheckedRead& r : reads) {
    if (r.data.empty()) continue;
    std::memcpy(r.data.data(), as_host(*r.src).data() + r.offset, r.data.size());
    counters_.bytes_out.fetch_add(r.data.size(), std::memory_order_relaxed);
  }
}

// Bound memory is used as it is. A program that can fail at run time (barriers, subgroup ops)
// runs on copies of its writable bindings, written back only on success; one copy per distinct
// resident buffer, so buffers bound twice still alias.
void ReferenceBackend::run_resident(const kit::ResidentDispatch& d) {
  const auto start = StopCondition::Clock::now();
  const ReferenceProgram& program = as_reference(d.program);
  const Program& ir = program.program();
  const Executable& exe = program.executable();
  std::vector<MemView> views(ir.buffers.size());
  std::unordered_map<HostResident*, HostMemory> copies;
  for (std::size_t i = 0; i < ir.buffers.size(); ++i) {
    views[i].count = d.buffer_elements[i];
    const kit::CheckedBinding& binding = d.bindings[i];
    if (ir.buffers[i].access == Access::Workgroup) continue;
    if (!binding.resident) {
      views[i].data = const_cast<std::byte*>(binding.host.data());
      continue;
    }
    HostResident& resident = as_host(*binding.resident);
    views[i].data = resident.data();
    if (exe.can_fail && is_writable(ir.buffers[i].access) && copies.count(&resident) == 0) {
      auto bytes = std::span<const std::byte>(resident.data(), resident.byte_len());
      copies.emplace(&resident, HostMemory(bytes, "a staged resident buffer"));
    }
  }
  // Host-bound inputs may be unaligned: copy those.
  std::vector<HostMemory> host_copies;
  for (std::size_t i = 0; i < ir.buffers.size(); ++i) {
    const kit::CheckedBinding& binding = d.bindings[i];
    if (ir.buffers[i].access == Access::Workgroup) continue;
    if (binding.resident) {
      auto it = copies.find(&as_host(*binding.resident));
      if (it != copies.end()) views[i].data = it->second.data();
      continue;
    }
    if (reinterpret_cast<std::uintptr_t>(binding.host.data()) % byte_size(ir.buffers[i].element) == 0) continue;
    host_copies.emplace_back(binding.host, "a staged host-bound input");
    views[i].data = host_copies.back().data();
  }
  run(exe, d.geometry, views, StopCondition(d.config, start, nullptr));
  for (auto& [resident, copy] : copies)
    if (copy.byte_len() != 0) std::memcpy(resident->data(), copy.data(), copy.byte_len());
  counters_.resident_dispatches.fetch_add(1, std::memory_order_relaxed);
}

std::unique_ptr<kit::Pending> ReferenceBackend::dispatch_resident(const kit::ResidentDispatch& d, bool wait) {
  if (wait) {
    run_resident(d);
    return nullptr;
  }
  try {
    run_resident(d);
  } catch (const Error& e) {
    return std::make_unique<kit::CompletedPending>(e);
  }
  return std::make_unique<kit::CompletedPending>();
}

// ---- metrics --------------------------------------------------------------------------------------

std::vector<kit::Counter> ReferenceBackend::metrics() {
  auto get = [](const std::atomic<std::uint64_t>& c) { return c.load(std::memory_order_relaxed); };
  return {
      {"programs_compiled", get(counters_.programs)},
      {"dispatches", get(counters_.dispatches)},
      {"resident_dispatches", get(counters_.resident_dispatches)},
      {"workgroups", get(counters_.workgroups)},
      {"invocations", get(counters_.invocations)},
      {"bytes_in", get(counters_.bytes_in)},
      {"bytes_out", get(counters_.bytes_out)},
      {"execution_errors", get(counters_.execution_errors)},
      {"resident_bytes", get(resident_bytes_)},
      {"worker_threads", workers_},
  };
}

void ReferenceBackend::metrics_reset() {
  for (auto* c : {&counters_.programs, &counters_.dispatches, &counters_.resident_dispatches,
                  &counters_.workgroups, &counters_.invocations, &counters_.bytes_in,
                  &counters_.bytes_out, &counters_.execution_errors})
    c->store(0, std::memory_order_relaxed);
}

}  // namespace vyre::refcpu
