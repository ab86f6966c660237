// Resident dispatch arguments -> ResidentDispatch; upload/download ranges.
#include "resident_dispatch.hpp"

#include <string>

#include "checks.hpp"
#include "vyre/abi_convert.hpp"
#include "vyre/abi_structs.hpp"
#include "vyre/error.hpp"

namespace vyre::kit::detail {

namespace {

std::size_t non_workgroup_count(const Program& p) {
  std::size_t n = 0;
  for (const BufferDecl& b : p.buffers) n += b.access != Access::Workgroup;
  return n;
}

CheckedBinding bind_resident(Instance& instance, const BufferDecl& buffer, std::size_t index,
                      const vyre_binding& binding) {
  CheckedBinding out;
  try {
    out.resident = instance.residents.get(from_handle(binding.resident));
  } catch (const Error& e) {
    throw Error(e.code(), "binding of " + describe(buffer, index) + ": " + e.what());
  }
  if (out.resident->read_only() && buffer.access != Access::Read && buffer.access != Access::Uniform)
    fail(VYRE_ERR_INVALID_ARGUMENT,
         "binding of " + describe(buffer, index) + " is a read-only imported buffer but the buffer is " +
             std::string(access_name(buffer.access)),
         "bind read-only memory only to read or uniform buffers, or import it without "
         "VYRE_EXTERNAL_READ_ONLY");
  out.elements = bound_elements(buffer, out.resident->byte_len(), "binding");
  return out;
}

CheckedBinding bind_host(const BufferDecl& buffer, std::size_t index, const vyre_binding& binding,
                  bool resident_only) {
  if (resident_only)
    fail(VYRE_ERR_INVALID_ARGUMENT,
         "binding of " + describe(buffer, index) + " is VYRE_BIND_HOST in a sequence step",
         "bind every buffer of a sequence step to a resident buffer");
  if (buffer.access != Access::Read && buffer.access != Access::Uniform)
    fail(VYRE_ERR_INVALID_ARGUMENT,
         "binding of " + describe(buffer, index) + " is VYRE_BIND_HOST but the buffer is " +
             std::string(access_name(buffer.access)),
         "bind read_write and output buffers to resident buffers; host bytes are only for read "
         "and uniform buffers");
  if (binding.host_data == nullptr && binding.host_byte_len > 0)
    fail(VYRE_ERR_INVALID_ARGUMENT,
         "binding of " + describe(buffer, index) + " has host_data NULL and " +
             std::to_string(binding.host_byte_len) + " bytes",
         "pass the bytes, or a host_byte_len of 0");
  CheckedBinding out;
  out.host = Bytes(static_cast<const std::byte*>(binding.host_data), binding.host_byte_len);
  out.elements = bound_elements(buffer, binding.host_byte_len, "binding");
  return out;
}

CheckedBinding bind_one(Instance& instance, const BufferDecl& buffer, std::size_t index,
                 const vyre_binding& binding, bool resident_only) {
  if (binding.kind == VYRE_BIND_RESIDENT) return bind_resident(instance, buffer, index, binding);
  if (binding.kind == VYRE_BIND_HOST) return bind_host(buffer, index, binding, resident_only);
  fail(VYRE_ERR_INVALID_ARGUMENT,
       "binding of " + describe(buffer, index) + " has unknown kind " + std::to_string(binding.kind),
       "use VYRE_BIND_RESIDENT or VYRE_BIND_HOST");
}

void check_range(const DeviceBuffer& buffer, std::uint64_t offset, std::uint64_t byte_len,
                 std::string_view what, std::size_t i) {
  if (offset <= buffer.byte_len() && byte_len <= buffer.byte_len() - offset) return;
  fail(VYRE_ERR_INVALID_ARGUMENT,
       std::string(what) + "[" + std::to_string(i) + "] covers bytes [" + std::to_string(offset) +
           ", " + std::to_string(offset) + " + " + std::to_string(byte_len) +
           ") of a resident buffer of " + std::to_string(buffer.byte_len()) + " bytes",
       "keep offset + byte_len within the buffer");
}

// The bindings as a checked array. Their name for messages ("<what>.bindings") is built only when
// the array is malformed: this runs for every resident dispatch.
abi::StridedArray<vyre_binding> binding_array(const vyre_binding* bindings, std::size_t count,
                                              std::string_view what) {
  try {
    return abi::StridedArray<vyre_binding>(bindings, count, "bindings");
  } catch (const Error&) {
    return abi::StridedArray<vyre_binding>(bindings, count, std::string(what) + ".bindings");
  }
}

}  // namespace

ResidentDispatch make_resident_dispatch(Instance& instance,
                                        std::shared_ptr<const CompiledProgram> program,
                                        DispatchConfig config, const vyre_binding* bindings,
                                        std::size_t binding_count, bool resident_only,
                                        std::string_view what) {
  ResidentDispatch d;
  d.program = std::move(program);
  d.config = std::move(config);
  const Program& p = d.program->program();
  const std::size_t expected = non_workgroup_count(p);
  if (binding_count != expected)
    fail(VYRE_ERR_INVALID_ARGUMENT,
         std::string(what) + " has " + std::to_string(binding_count) +
             " bindings but the program has " + std::to_string(expected) +
             " non-workgroup buffers",
         "pass one binding per non-workgroup buffer, in declaration order");
  const abi::StridedArray<vyre_binding> array = binding_array(bindings, binding_count, what);
  d.bindings.resize(p.buffers.size());
  d.buffer_elements.resize(p.buffers.size());
  std::size_t next = 0;
  for (std::size_t i = 0; i < p.buffers.size(); ++i) {
    const BufferDecl& buffer = p.buffers[i];
    if (buffer.access == Access::Workgroup) {
      d.buffer_elements[i] = buffer.count;
      continue;
    }
    d.bindings[i] = bind_one(instance, buffer, i, array[next++], resident_only);
    d.buffer_elements[i] = d.bindings[i].elements;
  }
  d.geometry = checked_geometry(*d.program, d.config, d.buffer_elements);
  return d;
}

ResidentDispatch make_sequence_step(Instance& instance, const vyre_sequence_step& step,
                                    std::string_view what) {
  std::shared_ptr<const CompiledProgram> program = instance.programs.get(from_handle(step.program));
  return make_resident_dispatch(instance, std::move(program), abi::from_abi(step.config),
                                step.bindings, step.binding_count, true, what);
}

std::vector<CheckedWrite> make_writes(Instance& instance, const vyre_resident_write* writes,
                                       std::size_t count) {
  abi::StridedArray<vyre_resident_write> array(writes, count, "resident writes");
  std::vector<CheckedWrite> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const vyre_resident_write w = array[i];
    CheckedWrite write;
    write.dst = instance.residents.get(from_handle(w.dst));
    check_range(*write.dst, w.offset, w.byte_len, "writes", i);
    if (write.dst->read_only())
      fail(VYRE_ERR_INVALID_ARGUMENT,
           "writes[" + std::to_string(i) + "] uploads into a read-only imported buffer",
           "upload into buffers you allocated, or import the memory without VYRE_EXTERNAL_READ_ONLY");
    if (w.data == nullptr && w.byte_len > 0)
      fail(VYRE_ERR_INVALID_ARGUMENT, "writes[" + std::to_string(i) + "] has data NULL",
           "pass the bytes to upload");
    write.offset = w.offset;
    write.data = Bytes(static_cast<const std::byte*>(w.data), w.byte_len);
    out.push_back(std::move(write));
  }
  return out;
}

std::vector<CheckedRead> make_reads(Instance& instance, const vyre_resident_read* reads,
                                     std::size_t count, std::string_view what) {
  abi::StridedArray<vyre_resident_read> array(reads, count, what);
  std::vector<CheckedRead> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const vyre_resident_read r = array[i];
    CheckedRead read;
    read.src = instance.residents.get(from_handle(r.src));
    check_range(*read.src, r.offset, r.byte_len, what, i);
    if (r.data == nullptr && r.byte_len > 0)
      fail(VYRE_ERR_INVALID_ARGUMENT, std::string(what) + "[" + std::to_string(i) + "] has data NULL",
           "pass memory for the downloaded bytes");
    read.offset = r.offset;
    read.data = MutableBytes(static_cast<std::byte*>(r.data), r.byte_len);
    out.push_back(std::move(read));
  }
  return out;
}

std::vector<std::shared_ptr<DeviceBuffer>> residents_of(const ResidentDispatch& dispatch) {
  std::vector<std::shared_ptr<DeviceBuffer>> out;
  out.reserve(dispatch.bindings.size());
  for (const CheckedBinding& b : dispatch.bindings)
    if (b.resident) out.push_back(b.resident);
  return out;
}

}  // namespace vyre::kit::detail
