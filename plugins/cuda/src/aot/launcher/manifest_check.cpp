// validate_manifest: every device-independent check a runner makes before touching the device.
// Each check is one function and fails with the first problem it finds.
#include <limits>
#include <set>

#include "errors.hpp"
#include "manifest.hpp"

namespace vyre_launch {
namespace {

constexpr const char* kRegenerate = "regenerate the bundle with vyre-aot";
const char* const kAxis[3] = {"x", "y", "z"};

std::string dims_text(const Dims& d) { return cat("[", d[0], ", ", d[1], ", ", d[2], "]"); }

bool is_sha256_hex(const std::string& text) {
  if (text.size() != 64) return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// Buffer names are IR identifiers; outputs are written as OUT/NAME.bin, so nothing else may pass.
bool is_identifier(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

bool is_entry_name(const std::string& name) {
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
    if (!ok) return false;
  }
  return true;
}

void check_entry_name(const Entry& entry, const std::string& what) {
  if (entry.name.empty())
    fail(cat("the manifest's ", what, " is empty; there is no kernel to launch"),
         "regenerate the bundle with vyre-aot so that it names the PTX entry");
  if (!is_entry_name(entry.name))
    fail(cat("the manifest's ", what, " \"", entry.name, "\" is not a PTX identifier"), kRegenerate);
}

void check_buffer_shape(const Buffer& b, std::size_t index) {
  const std::string label = cat("buffer ", index, " \"", b.name, "\"");
  if (!is_identifier(b.name))
    fail(cat("buffer ", index, " has the name \"", b.name, "\", which is not an identifier"), kRegenerate);
  const std::uint32_t size = element_bytes_of(b.element);
  if (size == 0) fail(cat(label, " has element type \"", b.element, "\", which is not a storage type"), kRegenerate);
  if (b.element_bytes != size)
    fail(cat(label, " says element_bytes=", b.element_bytes, " but ", b.element, " elements are ", size, " bytes"),
         kRegenerate);
  if (b.count == 0)
    fail(cat(label, " has count 0; a bundle fixes every buffer size at compile time"),
         "pass the buffer's size to vyre-aot (--in NAME=FILE or --count NAME=N) and regenerate");
  if (b.count > std::numeric_limits<std::uint64_t>::max() / size)
    fail(cat(label, " byte size overflows u64: count ", b.count, " x ", size, " bytes"), kRegenerate);
  if (b.byte_size != b.count * size)
    fail(cat(label, " says byte_size=", b.byte_size, " but count ", b.count, " x ", size, " bytes is ", b.count * size),
         kRegenerate);
  if (b.count > std::numeric_limits<std::uint32_t>::max())
    fail(cat(label, " has ", b.count, " elements; kernels index buffers with u32"), "split the buffer");
}

void check_output_range(const Buffer& b, std::size_t index) {
  if (!b.output_byte_range) return;
  const std::string label = cat("buffer ", index, " \"", b.name, "\"");
  if (!is_host_output(b.role))
    fail(cat(label, " is ", role_name(b.role), " but has an output_byte_range"), kRegenerate);
  const ByteRange& r = *b.output_byte_range;
  if (r.begin > r.end || r.end > b.byte_size)
    fail(cat(label, " output_byte_range [", r.begin, ", ", r.end, ") is not inside its ", b.byte_size, " bytes"),
         kRegenerate);
}

void check_has_buffers(const Manifest& m) {
  if (m.buffers.empty())
    fail("the manifest has no buffers; the kernel would have nothing to read or write",
         "regenerate the bundle from a program that declares its buffers");
}

void check_buffers(const Manifest& m) {
  std::set<std::string> names;
  std::set<std::uint32_t> bindings;
  for (std::size_t i = 0; i < m.buffers.size(); ++i) {
    const Buffer& b = m.buffers[i];
    check_buffer_shape(b, i);
    check_output_range(b, i);
    if (!names.insert(b.name).second) fail(cat("two buffers are named \"", b.name, "\""), kRegenerate);
    if (!bindings.insert(b.binding).second) fail(cat("two buffers use binding ", b.binding), kRegenerate);
  }
  device_bytes(m);  // throws when the sum overflows
}

void check_axes(const Dims& dims, const std::string& what) {
  for (int axis = 0; axis < 3; ++axis) {
    if (dims[axis] != 0) continue;
    fail(cat("the manifest's ", what, " ", dims_text(dims), " has a zero ", kAxis[axis],
             " axis; a bundle launches an explicit, non-zero geometry (0 never means 1)"),
         "regenerate the bundle with vyre-aot --grid X,Y,Z or --elements N");
  }
}

void check_geometry(const Manifest& m) {
  check_axes(m.workgroup, "workgroup");
  check_axes(m.grid, "grid");
  const std::uint64_t threads = checked_product(m.workgroup, "workgroup");
  if (threads > kMaxWorkgroupInvocations)
    fail(cat("the manifest's workgroup ", dims_text(m.workgroup), " has ", threads, " invocations; at most ",
             kMaxWorkgroupInvocations, " are allowed"),
         kRegenerate);
  checked_product(m.grid, "grid");
  for (int axis = 0; axis < 3; ++axis) {
    const std::uint64_t ids = static_cast<std::uint64_t>(m.grid[axis]) * m.workgroup[axis];
    if (ids > std::numeric_limits<std::uint32_t>::max())
      fail(cat("grid x workgroup on axis ", kAxis[axis], " is ", ids, " invocations, over the u32 invocation id range"),
           "regenerate the bundle with a smaller grid");
  }
  if (m.dispatch_elements > std::numeric_limits<std::uint32_t>::max())
    fail(cat("dispatch_elements is ", m.dispatch_elements, "; kernels take N as u32"), "split the dispatch");
  if (m.fixpoint_iterations == 0)
    fail("fixpoint_iterations is 0; the kernel would never run", "regenerate with --iterations 1 or more");
}

void check_param(const Manifest& m, const Entry& entry, const Param& p, std::size_t index) {
  const std::string label = cat("parameter ", index, " (", param_kind_name(p.kind), ") of kernel ", entry.name);
  const bool pointer = p.kind == ParamKind::BufferPointer || p.kind == ParamKind::GridBarrier;
  const std::uint32_t expected = pointer ? 8 : 4;
  if (p.bytes != expected) fail(cat(label, " is ", p.bytes, " bytes; it must be ", expected), kRegenerate);
  if (p.kind == ParamKind::GridBarrier && !entry.cooperative)
    fail(cat(label, " takes a grid barrier but the entry is not cooperative"), kRegenerate);
  if (p.kind != ParamKind::BufferPointer && p.kind != ParamKind::ElementCount) return;
  if (p.buffer >= m.buffers.size())
    fail(cat(label, " names buffer ", p.buffer, " but the manifest has ", m.buffers.size()), kRegenerate);
  if (!is_device_buffer(m.buffers[p.buffer].role))
    fail(cat(label, " names workgroup buffer \"", m.buffers[p.buffer].name, "\", which has no device allocation"),
         kRegenerate);
}

void check_entry(const Manifest& m, const Entry& entry, const std::string& what) {
  check_entry_name(entry, what);
  if (entry.params.empty())
    fail(cat("kernel ", entry.name, " has no parameters; the argument table would be empty"), kRegenerate);
  std::size_t barriers = 0;
  for (std::size_t i = 0; i < entry.params.size(); ++i) {
    check_param(m, entry, entry.params[i], i);
    if (entry.params[i].kind == ParamKind::GridBarrier) ++barriers;
  }
  if (entry.cooperative && barriers != 1)
    fail(cat("cooperative kernel ", entry.name, " has ", barriers, " grid-barrier parameters; it needs exactly 1"),
         kRegenerate);
  if (entry.cooperative && m.grid_barrier_bytes == 0)
    fail(cat("cooperative kernel ", entry.name, " needs grid_barrier_bytes > 0"), kRegenerate);
}

void check_entries(const Manifest& m) {
  check_entry(m, m.entry, "entry_point");
  std::set<std::string> names{m.entry.name};
  for (std::size_t i = 0; i < m.phases.size(); ++i) {
    const Entry& phase = m.phases[i];
    check_entry(m, phase, cat("phases[", i, "].entry_point"));
    if (phase.cooperative)
      fail(cat("phase kernel ", phase.name, " is cooperative; phases launch plainly"), kRegenerate);
    if (!names.insert(phase.name).second) fail(cat("the kernel name ", phase.name, " appears twice"), kRegenerate);
  }
  if (!m.phases.empty() && !m.entry.cooperative)
    fail("the manifest lists phase entries but its entry point is not cooperative", kRegenerate);
}

void check_metrics(const Manifest& m) {
  std::size_t found = 0;
  for (std::size_t i = 0; i < m.buffers.size(); ++i) {
    const Buffer& b = m.buffers[i];
    if (b.name != kMetricsBufferName) continue;
    ++found;
    if (b.element != "u32" || b.element_bytes != 4)
      fail(cat("the metrics buffer (buffer ", i, ") holds ", b.element, "; metrics records are u32 words"),
           "declare `metrics` with element u32 and regenerate the bundle");
    if (b.count < kMetricRecordWords)
      fail(cat("the metrics buffer (buffer ", i, ") has ", b.count, " words; a metrics record needs ",
               kMetricRecordWords),
           cat("declare `metrics` with a count of at least ", kMetricRecordWords));
    if (!is_host_output(b.role))
      fail(cat("the metrics buffer is a ", role_name(b.role), " buffer; the kernel must write it and the host read it"),
           "declare `metrics` as read_write or output");
  }
  if (found > 1)
    fail(cat("the manifest has ", found, " buffers named metrics; the metrics record would be ambiguous"),
         "keep exactly one buffer named `metrics`");
}

void check_file(const FileRef& ref, const std::string& what) {
  if (!is_safe_bundle_path(ref.file))
    fail(cat("the ", what, " file name \"", ref.file, "\" is not a plain path inside the bundle"), kRegenerate);
  if (!is_sha256_hex(ref.sha256))
    fail(cat("the ", what, " SHA-256 \"", ref.sha256, "\" is not 64 lower-case hex digits"), kRegenerate);
}

void check_kernel_files(const Manifest& m) {
  check_file(m.ptx, "kernel PTX");
  if (m.ptx.byte_size == 0) fail("the kernel PTX file is empty", kRegenerate);
  if (!m.cubin) return;
  check_file(*m.cubin, "kernel cubin");
  if (m.cubin->byte_size == 0) fail("the kernel cubin file is empty", kRegenerate);
}

void check_weights(const Manifest& m) {
  if (!m.weights) return;
  check_file(m.weights->file, "weights");
  const int first = first_input_buffer(m);
  if (first < 0)
    fail("the bundle has weights but the program has no input buffer to upload them into",
         "regenerate the bundle without --weights, or declare an input buffer first");
  const Buffer& target = m.buffers[static_cast<std::size_t>(first)];
  if (m.weights->buffer != target.name)
    fail(
        cat("the weights go to buffer \"", m.weights->buffer, "\" but the first input buffer is \"", target.name, "\""),
        kRegenerate);
  if (m.weights->file.byte_size > target.byte_size)
    fail(cat("the weights are ", m.weights->file.byte_size, " bytes but the first input buffer \"", target.name,
             "\" holds ", target.byte_size),
         "regenerate the bundle with weights that fit the first input buffer, or a larger buffer");
}

void check_inputs(const Manifest& m) {
  std::set<std::string> seen;
  for (const InputFile& input : m.inputs) {
    check_file(input.file, cat("input for buffer ", input.buffer));
    const int index = find_buffer(m, input.buffer);
    if (index < 0) fail(cat("the manifest has an input file for unknown buffer \"", input.buffer, "\""), kRegenerate);
    const Buffer& b = m.buffers[static_cast<std::size_t>(index)];
    if (!is_host_input(b.role))
      fail(cat("the manifest has an input file for ", role_name(b.role), " buffer \"", b.name, "\""), kRegenerate);
    if (m.weights && m.weights->buffer == b.name)
      fail(cat("buffer \"", b.name, "\" has both the weights and an input file"), kRegenerate);
    if (input.file.byte_size != b.byte_size)
      fail(cat("the input file for buffer \"", b.name, "\" is ", input.file.byte_size, " bytes; the buffer holds ",
               b.byte_size),
           kRegenerate);
    if (!seen.insert(b.name).second) fail(cat("buffer \"", b.name, "\" has two input files"), kRegenerate);
  }
}

void check_target(const Manifest& m) {
  if (m.target_sm == 0 || m.target != cat("sm_", m.target_sm))
    fail(cat("the manifest's target \"", m.target, "\" does not match target_sm ", m.target_sm), kRegenerate);
}

}  // namespace

void validate_manifest(const Manifest& m) {
  check_target(m);
  check_entry_name(m.entry, "entry_point");
  check_has_buffers(m);
  check_metrics(m);
  check_buffers(m);
  check_entries(m);
  check_geometry(m);
  check_kernel_files(m);
  check_weights(m);
  check_inputs(m);
}

}  // namespace vyre_launch
