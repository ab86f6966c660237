#include "runtime/kernel_args.hpp"

#include <bit>

#include <fmt/format.h>

#include "vyre/error.hpp"

namespace vyre::cuda {
namespace {

static_assert(std::endian::native == std::endian::little,
              "u32 kernel parameters are read from the low bytes of their 8-byte slots");

constexpr const char* kLayoutFix =
    "this is a bug in the vyre CUDA runtime or PTX emitter: KernelEntry::params must follow the "
    "layout of lowering.hpp; report it with the program";

[[noreturn]] void fail_u32(std::uint64_t value, std::string_view what, const KernelEntry& entry) {
  fail(VYRE_ERR_LIMIT,
       fmt::format("Kernel `{}`: {} is {}, which does not fit the kernel's u32 parameter", entry.name,
                   what, value),
       "bind fewer than 2^32 elements per buffer and dispatch fewer than 2^32 elements; split "
       "larger work into several dispatches");
}

// The message is formatted only on failure: this runs for every parameter of every launch.
std::uint64_t count_value(std::uint64_t value, const KernelParam& param, const KernelEntry& entry,
                          const LaunchBindings& bindings) {
  if (value > UINT32_MAX) fail_u32(value, fmt::format("the element count of buffer {}", param.buffer), entry);
  // The kit has checked every binding already; this guards the accesses the optimizer proved
  // against the declared count from any path that would launch with another length.
  if (param.declared_count != 0 && value != param.declared_count) {
    fail(VYRE_ERR_INTERNAL,
         fmt::format("Kernel `{}`: buffer {} is declared with {} elements but {} are bound", entry.name,
                     param.buffer, param.declared_count, value),
         "this is a bug in the vyre runtime (bindings are checked before launch); report it with the program");
  }
  // The same for accesses proved by a covering buffer's facts (LowerOptions::covering).
  if (param.covers_n && (!bindings.tail_guard || value < bindings.n)) {
    fail(VYRE_ERR_INTERNAL,
         fmt::format("Kernel `{}` assumes buffer {} covers the dispatch, but {} elements are bound for N = {}{}",
                     entry.name, param.buffer, value, bindings.n, bindings.tail_guard ? "" : " without the tail guard"),
         "this is a bug in the vyre runtime (exec_plan.cpp picks a module the dispatch's facts allow); report it "
         "with the program");
  }
  return value;
}

std::uint64_t n_value(std::uint64_t value, const KernelEntry& entry) {
  if (value > UINT32_MAX) fail_u32(value, "the dispatch element count N", entry);
  return value;
}

std::uint64_t param_value(const KernelParam& param, const KernelEntry& entry,
                          const LaunchBindings& bindings) {
  const bool names_buffer =
      param.kind == ParamKind::BufferPointer || param.kind == ParamKind::ElementCount;
  if (names_buffer && param.buffer >= bindings.pointers.size()) {
    fail(VYRE_ERR_INTERNAL,
         fmt::format("Kernel `{}` has a parameter for buffer {} but the program binds {} buffers",
                     entry.name, param.buffer, bindings.pointers.size()),
         kLayoutFix);
  }
  switch (param.kind) {
    case ParamKind::BufferPointer: return bindings.pointers[param.buffer];
    case ParamKind::ElementCount: return count_value(bindings.elements[param.buffer], param, entry, bindings);
    case ParamKind::DispatchN: return n_value(bindings.n, entry);
    case ParamKind::TailGuard: return bindings.tail_guard ? 1 : 0;
    case ParamKind::WorkgroupBase: return bindings.workgroup_base;
    case ParamKind::GridX: return bindings.grid_x;
    case ParamKind::GridBarrier:
      if (bindings.grid_barrier == 0) {
        fail(VYRE_ERR_INTERNAL,
             fmt::format("Cooperative kernel `{}` launched without grid-barrier memory", entry.name),
             kLayoutFix);
      }
      return bindings.grid_barrier;
  }
  fail(VYRE_ERR_INTERNAL, fmt::format("Kernel `{}` has an unknown parameter kind", entry.name),
       kLayoutFix);
}

}  // namespace

KernelArgs::KernelArgs(const KernelEntry& entry, const LaunchBindings& bindings) {
  if (bindings.elements.size() != bindings.pointers.size()) {
    fail(VYRE_ERR_INTERNAL, "Launch bindings have mismatched pointer and element lists", kLayoutFix);
  }
  size_ = entry.params.size();
  heap_ = size_ > kInline;
  if (heap_) {
    heap_values_.resize(size_);
    heap_slots_.resize(size_);
  }
  std::uint64_t* values = heap_ ? heap_values_.data() : inline_values_.data();
  void** table = this->slots();
  for (std::size_t i = 0; i < size_; ++i) {
    const KernelParam& param = entry.params[i];
    const std::uint64_t value = param_value(param, entry, bindings);
    values[i] = param.bytes == 4 ? (value & 0xffffffffu) : value;
    table[i] = &values[i];
  }
}

KernelArgs::KernelArgs(const KernelArgs& other) { assign(other.values()); }

KernelArgs& KernelArgs::operator=(const KernelArgs& other) {
  if (this != &other) assign(other.values());
  return *this;
}

KernelArgs::KernelArgs(KernelArgs&& other) noexcept { *this = std::move(other); }

KernelArgs& KernelArgs::operator=(KernelArgs&& other) noexcept {
  if (this == &other) return *this;
  size_ = other.size_;
  heap_ = other.heap_;
  if (heap_) {
    heap_values_ = std::move(other.heap_values_);  // the heap block moves: its slots stay valid
    heap_slots_ = std::move(other.heap_slots_);
    return *this;
  }
  for (std::size_t i = 0; i < size_; ++i) {
    inline_values_[i] = other.inline_values_[i];
    inline_slots_[i] = &inline_values_[i];
  }
  return *this;
}

void KernelArgs::assign(std::span<const std::uint64_t> values) {
  size_ = values.size();
  heap_ = size_ > kInline;
  if (heap_) {
    heap_values_.assign(values.begin(), values.end());
    heap_slots_.resize(size_);
  }
  std::uint64_t* own = heap_ ? heap_values_.data() : inline_values_.data();
  void** slots = this->slots();
  for (std::size_t i = 0; i < size_; ++i) {
    own[i] = values[i];
    slots[i] = &own[i];
  }
}

drv::KernelNodeParams kernel_node_params(drv::CUfunction function, const std::array<std::uint32_t, 3>& grid,
                                         const std::array<std::uint32_t, 3>& block, KernelArgs& args) {
  drv::KernelNodeParams params;
  params.func = function;
  params.gridDimX = grid[0];
  params.gridDimY = grid[1];
  params.gridDimZ = grid[2];
  params.blockDimX = block[0];
  params.blockDimY = block[1];
  params.blockDimZ = block[2];
  params.sharedMemBytes = 0;
  params.kernelParams = args.slots();
  return params;
}

}  // namespace vyre::cuda
