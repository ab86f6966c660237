// Host dispatch arguments -> HostDispatch.
#include "host_dispatch.hpp"

#include <cstddef>
#include <cstring>
#include <string>

#include "checks.hpp"
#include "vyre/abi_structs.hpp"
#include "vyre/error.hpp"

namespace vyre::kit::detail {

namespace {

void require_count(std::string_view what, std::size_t given, std::size_t expected,
                   std::string_view which) {
  if (given == expected) return;
  fail(VYRE_ERR_INVALID_ARGUMENT,
       "the dispatch passes " + std::to_string(given) + " " + std::string(what) +
           " but the program has " + std::to_string(expected),
       "pass one entry per " + std::string(which) + " buffer, in declaration order");
}

void bind_inputs(HostDispatch& d, const vyre_host_input* inputs, std::size_t count) {
  const Program& p = d.program->program();
  const std::vector<std::size_t>& indices = d.program->input_buffers();
  require_count("inputs", count, indices.size(), "read, uniform and read_write");
  abi::StridedArray<vyre_host_input> array(inputs, count, "vyre_dispatch_args.inputs");
  d.inputs.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const vyre_host_input in = array[i];
    const BufferDecl& buffer = p.buffers[indices[i]];
    if (in.data == nullptr && in.byte_len > 0)
      fail(VYRE_ERR_INVALID_ARGUMENT,
           "input " + describe(buffer, indices[i]) + " has data NULL and " +
               std::to_string(in.byte_len) + " bytes",
           "pass the input's bytes, or a byte_len of 0");
    d.buffer_elements[indices[i]] = bound_elements(buffer, in.byte_len, "input");
    d.inputs.emplace_back(static_cast<const std::byte*>(in.data), in.byte_len);
  }
}

OutputTarget bind_output(const BufferDecl& buffer, std::size_t index, std::uint64_t elements,
                         const vyre_host_output& out) {
  const std::uint64_t buffer_bytes = elements * byte_size(buffer.element);
  std::uint64_t begin = 0;
  std::uint64_t end = buffer_bytes;
  if (buffer.output_byte_range) {
    begin = buffer.output_byte_range->begin;
    end = buffer.output_byte_range->end;
    if (begin > end || end > buffer_bytes)
      fail(VYRE_ERR_INVALID_ARGUMENT,
           "output " + describe(buffer, index) + " has output_byte_range [" + std::to_string(begin) +
               ", " + std::to_string(end) + ") but the bound buffer has " +
               std::to_string(buffer_bytes) + " bytes",
           "bind at least " + std::to_string(end) + " bytes to the buffer, or narrow its "
           "output_byte_range");
  }
  const std::uint64_t needed = end - begin;
  if (out.capacity < needed)
    fail(VYRE_ERR_INVALID_ARGUMENT,
         "output " + describe(buffer, index) + " needs " + std::to_string(needed) +
             " bytes but its capacity is " + std::to_string(out.capacity),
         "pass an output of at least " + std::to_string(needed) + " bytes");
  if (out.data == nullptr && needed > 0)
    fail(VYRE_ERR_INVALID_ARGUMENT, "output " + describe(buffer, index) + " has data NULL",
         "pass memory for the output's bytes");
  return OutputTarget{MutableBytes(static_cast<std::byte*>(out.data), needed), begin};
}

void bind_outputs(HostDispatch& d, vyre_host_output* outputs, std::size_t count) {
  const Program& p = d.program->program();
  const std::vector<std::size_t>& indices = d.program->output_buffers();
  require_count("outputs", count, indices.size(), "read_write and output");
  abi::StridedArray<vyre_host_output> array(outputs, count, "vyre_dispatch_args.outputs");
  d.outputs.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t index = indices[i];
    d.outputs.push_back(bind_output(p.buffers[index], index, d.buffer_elements[index], array[i]));
  }
}

}  // namespace

HostDispatch make_host_dispatch(std::shared_ptr<const CompiledProgram> program, DispatchConfig config,
                                const vyre_host_input* inputs, std::size_t input_count,
                                vyre_host_output* outputs, std::size_t output_count) {
  HostDispatch d;
  d.program = std::move(program);
  d.config = std::move(config);
  const Program& p = d.program->program();
  d.buffer_elements.resize(p.buffers.size());
  for (std::size_t i = 0; i < p.buffers.size(); ++i) d.buffer_elements[i] = p.buffers[i].count;
  bind_inputs(d, inputs, input_count);
  bind_outputs(d, outputs, output_count);
  d.geometry = checked_geometry(*d.program, d.config, d.buffer_elements);
  return d;
}

void set_output_lengths(vyre_host_output* outputs, const HostDispatch& dispatch) {
  if (dispatch.outputs.empty()) return;
  abi::StridedArray<vyre_host_output> array(outputs, dispatch.outputs.size(), "outputs");
  for (std::size_t i = 0; i < dispatch.outputs.size(); ++i) {
    // memcpy: a caller's odd stride may leave the field unaligned.
    const std::size_t byte_len = dispatch.outputs[i].dst.size();
    auto* field = reinterpret_cast<unsigned char*>(const_cast<vyre_host_output*>(array.address(i))) +
                  offsetof(vyre_host_output, byte_len);
    std::memcpy(field, &byte_len, sizeof byte_len);
  }
}

}  // namespace vyre::kit::detail
