// Names and small queries of the manifest model.
#include "manifest.hpp"

#include <limits>

#include "errors.hpp"

namespace vyre_launch {

const char* role_name(Role role) {
  switch (role) {
    case Role::Read:
      return "read";
    case Role::Uniform:
      return "uniform";
    case Role::ReadWrite:
      return "read_write";
    case Role::Output:
      return "output";
    case Role::Workgroup:
      return "workgroup";
  }
  return "unknown";
}

const char* param_kind_name(ParamKind kind) {
  switch (kind) {
    case ParamKind::BufferPointer:
      return "buffer_pointer";
    case ParamKind::ElementCount:
      return "element_count";
    case ParamKind::DispatchN:
      return "dispatch_n";
    case ParamKind::TailGuard:
      return "tail_guard";
    case ParamKind::GridBarrier:
      return "grid_barrier";
  }
  return "unknown";
}

bool is_host_input(Role role) { return role == Role::Read || role == Role::Uniform || role == Role::ReadWrite; }

bool is_host_output(Role role) { return role == Role::ReadWrite || role == Role::Output; }

bool is_device_buffer(Role role) { return role != Role::Workgroup; }

std::uint32_t element_bytes_of(const std::string& element) {
  struct Size {
    const char* name;
    std::uint32_t bytes;
  };
  static const Size sizes[] = {{"bool", 4}, {"u32", 4}, {"i32", 4}, {"f32", 4}, {"u64", 8}, {"i64", 8}, {"f64", 8},
                               {"u8", 1},   {"i8", 1},  {"u16", 2}, {"i16", 2}, {"f16", 2}, {"bf16", 2}};
  for (const Size& size : sizes)
    if (element == size.name) return size.bytes;
  return 0;
}

std::uint64_t checked_product(const Dims& dims, const std::string& what) {
  std::uint64_t product = 1;
  for (std::uint32_t axis : dims) {
    if (axis != 0 && product > std::numeric_limits<std::uint64_t>::max() / axis)
      fail(cat(what, " [", dims[0], ", ", dims[1], ", ", dims[2], "] overflows u64 when multiplied"),
           "regenerate the bundle with a smaller grid or workgroup");
    product *= axis;
  }
  return product;
}

int find_buffer(const Manifest& manifest, const std::string& name) {
  for (std::size_t i = 0; i < manifest.buffers.size(); ++i)
    if (manifest.buffers[i].name == name) return static_cast<int>(i);
  return -1;
}

int metrics_buffer(const Manifest& manifest) { return find_buffer(manifest, kMetricsBufferName); }

int first_input_buffer(const Manifest& manifest) {
  for (std::size_t i = 0; i < manifest.buffers.size(); ++i)
    if (is_host_input(manifest.buffers[i].role)) return static_cast<int>(i);
  return -1;
}

std::uint64_t device_bytes(const Manifest& manifest) {
  std::uint64_t total = 0;
  for (const Buffer& buffer : manifest.buffers) {
    if (!is_device_buffer(buffer.role)) continue;
    if (buffer.byte_size > std::numeric_limits<std::uint64_t>::max() - total)
      fail("the manifest's device allocations add up to more than 2^64 bytes",
           "regenerate the bundle with smaller buffers");
    total += buffer.byte_size;
  }
  return total;
}

bool is_safe_bundle_path(const std::string& path) {
  if (path.empty() || path.size() > 255 || path.front() == '/') return false;
  if (path.find('\\') != std::string::npos || path.find('\0') != std::string::npos) return false;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    const std::string part = path.substr(start, slash - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = slash + 1;
  }
  return true;
}

}  // namespace vyre_launch
