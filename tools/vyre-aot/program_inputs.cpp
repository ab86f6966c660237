#include "program_inputs.hpp"

#include <set>

#include <fmt/format.h>

#include "buffer_files.hpp"
#include "vyre/error.hpp"
#include "vyre/file_read.hpp"
#include "vyre/fingerprint.hpp"
#include "vyre/json.hpp"
#include "vyre/types.hpp"

namespace vyre::aot_tool {
namespace {

BufferDecl& input_buffer(Program& program, const std::string& name, std::string_view option) {
  for (BufferDecl& buffer : program.buffers) {
    if (buffer.name != name) continue;
    if (!is_host_input(buffer.access))
      fail(VYRE_ERR_INVALID_ARGUMENT,
           fmt::format("{} names {} buffer '{}', which is not an input", option, access_name(buffer.access), name),
           "pass --in/--count only for read, uniform and read_write buffers");
    return buffer;
  }
  fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("{} names buffer '{}', which the program does not declare", option, name),
       "use one of the program's buffer names");
}

// Fix `buffer` to `count` elements (a runtime-sized buffer), or check that it already has them.
void fix_count(BufferDecl& buffer, std::uint64_t count, std::string_view source, bool& specialised) {
  if (count == 0 || count > UINT32_MAX)
    fail(VYRE_ERR_INVALID_ARGUMENT,
         fmt::format("{} gives buffer '{}' {} elements; a buffer holds 1 to 2^32-1", source, buffer.name, count),
         "give the buffer at least one element");
  if (buffer.count == 0) {
    buffer.count = static_cast<std::uint32_t>(count);
    specialised = true;
    return;
  }
  if (buffer.count != count)
    fail(VYRE_ERR_INVALID_ARGUMENT,
         fmt::format("{} gives buffer '{}' {} elements but it is declared with {} ({} bytes)", source, buffer.name,
                     count, buffer.count, std::uint64_t{buffer.count} * byte_size(buffer.element)),
         "pass data of exactly the declared size");
}

void apply_input(PreparedProgram& out, const std::string& name, const std::filesystem::path& file) {
  BufferDecl& buffer = input_buffer(out.program, name, "--in");
  InputData input{name, tool::read_buffer_file(file, buffer, fmt::format("input file for buffer '{}'", name))};
  const std::uint32_t size = byte_size(buffer.element);
  if (input.bytes.size() % size != 0)
    fail(VYRE_ERR_INVALID_ARGUMENT,
         fmt::format("--in {}={} is {} bytes, not a whole number of {} elements ({} bytes each)", name, file.string(),
                     input.bytes.size(), type_name(buffer.element), size),
         "pass a file of whole elements");
  fix_count(buffer, input.bytes.size() / size, fmt::format("--in {}={}", name, file.string()), out.specialised);
  out.inputs.push_back(std::move(input));
}

void check_weights_target(const PreparedProgram& out) {
  if (out.weights.empty()) return;
  const auto inputs = out.program.input_indices();
  if (inputs.empty()) return;  // the emitter reports it
  const std::string& first = out.program.buffers[inputs.front()].name;
  for (const InputData& input : out.inputs)
    if (input.buffer == first)
      fail(VYRE_ERR_INVALID_ARGUMENT,
           fmt::format("buffer '{}' gets both --weights and --in; weights fill the first input buffer", first),
           fmt::format("drop --in {} or --weights", first));
}

}  // namespace

PreparedProgram prepare_program(const CompileOptions& options) {
  PreparedProgram out;
  out.program = load_program_file(options.program);
  out.source_fingerprint = fingerprint(out.program);
  std::set<std::string> seen;
  for (const auto& [name, file] : options.inputs) {
    if (!seen.insert(name).second)
      fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("--in names buffer '{}' twice", name), "pass one file per buffer");
    apply_input(out, name, file);
  }
  for (const auto& [name, count] : options.counts) {
    BufferDecl& buffer = input_buffer(out.program, name, "--count");
    fix_count(buffer, count, fmt::format("--count {}={}", name, count), out.specialised);
  }
  // Checked against the first input buffer's size by check_weights and the emitter.
  if (options.weights) out.weights = read_regular_file(*options.weights, tool::kMaxBufferFileBytes, "weights file");
  check_weights_target(out);
  return out;
}

}  // namespace vyre::aot_tool
