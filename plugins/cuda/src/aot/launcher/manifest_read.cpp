// Reading the manifest's JSON into the model: required fields, their types and ranges. The
// semantic checks live in manifest_check.cpp.
#include <cstddef>
#include <limits>

#include "errors.hpp"
#include "manifest.hpp"

namespace vyre_launch {
namespace {

constexpr const char* kRegenerate = "regenerate the bundle with vyre-aot (do not edit manifest.json by hand)";

class Reader {
 public:
  explicit Reader(const std::string& what) : what_(what) {}

  [[noreturn]] void bad(const std::string& path, const std::string& problem) const {
    fail(cat(what_, ": \"", path, "\" ", problem), kRegenerate);
  }

  const json::Value& field(const json::Value& object, const std::string& key, const std::string& path) const {
    if (object.kind != json::Kind::Object) bad(path, "must be an object");
    const json::Value* value = object.find(key);
    if (value == nullptr) bad(join(path, key), "is missing");
    return *value;
  }

  const json::Value* optional_field(const json::Value& object, const std::string& key) const {
    const json::Value* value = object.find(key);
    if (value == nullptr || value->kind == json::Kind::Null) return nullptr;
    return value;
  }

  std::uint64_t to_u64(const json::Value& value, const std::string& path) const {
    if (value.kind != json::Kind::Number) bad(path, cat("must be a number, not ", json::kind_name(value.kind)));
    const std::string& text = value.text;
    std::uint64_t result = 0;
    for (char c : text) {
      if (c < '0' || c > '9') bad(path, cat("must be a non-negative integer, not ", text));
      const std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
      if (result > (std::numeric_limits<std::uint64_t>::max() - digit) / 10)
        bad(path, cat("is ", text, ", which does not fit 64 bits"));
      result = result * 10 + digit;
    }
    return result;
  }

  std::uint32_t to_u32(const json::Value& value, const std::string& path) const {
    const std::uint64_t result = to_u64(value, path);
    if (result > std::numeric_limits<std::uint32_t>::max())
      bad(path, cat("is ", result, ", which does not fit 32 bits"));
    return static_cast<std::uint32_t>(result);
  }

  std::string to_string(const json::Value& value, const std::string& path) const {
    if (value.kind != json::Kind::String) bad(path, cat("must be a string, not ", json::kind_name(value.kind)));
    return value.text;
  }

  bool to_bool(const json::Value& value, const std::string& path) const {
    if (value.kind != json::Kind::Bool) bad(path, cat("must be true or false, not ", json::kind_name(value.kind)));
    return value.boolean;
  }

  const std::vector<json::Value>& to_array(const json::Value& value, const std::string& path) const {
    if (value.kind != json::Kind::Array) bad(path, cat("must be an array, not ", json::kind_name(value.kind)));
    return value.items;
  }

  Dims to_dims(const json::Value& value, const std::string& path) const {
    const auto& items = to_array(value, path);
    if (items.size() != 3) bad(path, cat("must have 3 axes [x, y, z], not ", items.size()));
    Dims dims{};
    for (std::size_t axis = 0; axis < 3; ++axis) dims[axis] = to_u32(items[axis], index(path, axis));
    return dims;
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }
  static std::string index(const std::string& path, std::size_t i) { return cat(path, "[", i, "]"); }

  // Shorthands for "the field `key` of `object` at `path`, as T".
  std::uint64_t u64(const json::Value& o, const std::string& key, const std::string& path) const {
    return to_u64(field(o, key, path), join(path, key));
  }
  std::uint32_t u32(const json::Value& o, const std::string& key, const std::string& path) const {
    return to_u32(field(o, key, path), join(path, key));
  }
  std::string str(const json::Value& o, const std::string& key, const std::string& path) const {
    return to_string(field(o, key, path), join(path, key));
  }
  bool boolean(const json::Value& o, const std::string& key, const std::string& path) const {
    return to_bool(field(o, key, path), join(path, key));
  }

 private:
  const std::string& what_;
};

// The one of `values` whose name (as manifest.cpp spells it) is `text`; anything else fails,
// listing every name, so the message can never disagree with what is accepted.
template <class Enum, std::size_t N>
Enum parse_named(const Reader& r, const std::string& text, const std::string& path, const Enum (&values)[N],
                 const char* (*name_of)(Enum)) {
  for (Enum value : values)
    if (text == name_of(value)) return value;
  std::string expected;
  for (std::size_t i = 0; i < N; ++i) expected += cat(i == 0 ? "" : i + 1 < N ? ", " : " or ", name_of(values[i]));
  r.bad(path, cat("is \"", text, "\"; expected ", expected));
}

Role parse_role(const Reader& r, const std::string& text, const std::string& path) {
  static const Role roles[] = {Role::Read, Role::Uniform, Role::ReadWrite, Role::Output, Role::Workgroup};
  return parse_named(r, text, path, roles, role_name);
}

ParamKind parse_param_kind(const Reader& r, const std::string& text, const std::string& path) {
  static const ParamKind kinds[] = {ParamKind::BufferPointer, ParamKind::ElementCount, ParamKind::DispatchN,
                                    ParamKind::TailGuard, ParamKind::GridBarrier};
  return parse_named(r, text, path, kinds, param_kind_name);
}

std::vector<Param> read_params(const Reader& r, const json::Value& list, const std::string& path) {
  std::vector<Param> params;
  const auto& items = r.to_array(list, path);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string at = Reader::index(path, i);
    Param param;
    param.kind = parse_param_kind(r, r.str(items[i], "kind", at), Reader::join(at, "kind"));
    param.bytes = r.u32(items[i], "bytes", at);
    if (param.kind == ParamKind::BufferPointer || param.kind == ParamKind::ElementCount)
      param.buffer = r.u32(items[i], "buffer", at);
    params.push_back(param);
  }
  return params;
}

Entry read_entry(const Reader& r, const json::Value& object, const std::string& path) {
  Entry entry;
  entry.name = r.str(object, "entry_point", path);
  entry.params = read_params(r, r.field(object, "kernel_params", path), Reader::join(path, "kernel_params"));
  entry.shared_bytes = r.u64(object, "shared_bytes", path);
  entry.cooperative = r.boolean(object, "cooperative", path);
  return entry;
}

FileRef read_file_ref(const Reader& r, const json::Value& object, const std::string& path) {
  FileRef ref;
  ref.file = r.str(object, "file", path);
  ref.sha256 = r.str(object, "sha256", path);
  ref.byte_size = r.u64(object, "byte_size", path);
  return ref;
}

Buffer read_buffer(const Reader& r, const json::Value& object, const std::string& path) {
  Buffer buffer;
  buffer.name = r.str(object, "name", path);
  buffer.binding = r.u32(object, "binding", path);
  buffer.role = parse_role(r, r.str(object, "role", path), Reader::join(path, "role"));
  buffer.element = r.str(object, "element", path);
  buffer.element_bytes = r.u32(object, "element_bytes", path);
  buffer.count = r.u64(object, "count", path);
  buffer.byte_size = r.u64(object, "byte_size", path);
  if (const json::Value* range = r.optional_field(object, "output_byte_range")) {
    const std::string at = Reader::join(path, "output_byte_range");
    const auto& items = r.to_array(*range, at);
    if (items.size() != 2) r.bad(at, "must be [begin, end]");
    buffer.output_byte_range =
        ByteRange{r.to_u64(items[0], Reader::index(at, 0)), r.to_u64(items[1], Reader::index(at, 1))};
  }
  return buffer;
}

void read_kernel_files(const Reader& r, const json::Value& document, Manifest& m) {
  const json::Value& kernel = r.field(document, "kernel", "");
  m.ptx = read_file_ref(r, r.field(kernel, "ptx", "kernel"), "kernel.ptx");
  if (const json::Value* cubin = r.optional_field(kernel, "cubin")) m.cubin = read_file_ref(r, *cubin, "kernel.cubin");
}

void read_weights_and_inputs(const Reader& r, const json::Value& document, Manifest& m) {
  if (const json::Value* weights = r.optional_field(document, "weights")) {
    Weights w;
    w.file = read_file_ref(r, *weights, "weights");
    w.buffer = r.str(*weights, "buffer", "weights");
    m.weights = w;
  }
  if (const json::Value* inputs = r.optional_field(document, "inputs")) {
    const auto& items = r.to_array(*inputs, "inputs");
    for (std::size_t i = 0; i < items.size(); ++i) {
      const std::string at = Reader::index("inputs", i);
      InputFile input;
      input.buffer = r.str(items[i], "buffer", at);
      input.file = read_file_ref(r, items[i], at);
      m.inputs.push_back(input);
    }
  }
}

}  // namespace

Manifest read_manifest(const json::Value& document, const std::string& what) {
  const Reader r(what);
  if (document.kind != json::Kind::Object) r.bad("(document)", "must be a JSON object");
  Manifest m;
  m.schema = r.str(document, "schema", "");
  if (m.schema != kManifestSchema)
    fail(cat(what, " has schema \"", m.schema, "\"; this launcher reads \"", kManifestSchema, "\""),
         "rebuild the bundle with the vyre-aot that matches this launcher");
  m.program_fingerprint = r.str(document, "program_fingerprint", "");
  m.target = r.str(document, "target", "");
  m.target_sm = r.u32(document, "target_sm", "");
  m.ptx_isa_version = r.str(document, "ptx_isa_version", "");
  m.entry = read_entry(r, document, "");
  const auto& phases = r.to_array(r.field(document, "phases", ""), "phases");
  for (std::size_t i = 0; i < phases.size(); ++i)
    m.phases.push_back(read_entry(r, phases[i], Reader::index("phases", i)));
  m.grid_barrier_bytes = r.u32(document, "grid_barrier_bytes", "");
  m.workgroup = r.to_dims(r.field(document, "workgroup", ""), "workgroup");
  m.grid = r.to_dims(r.field(document, "grid", ""), "grid");
  m.dispatch_elements = r.u64(document, "dispatch_elements", "");
  m.tail_guard = r.boolean(document, "tail_guard", "");
  m.fixpoint_iterations = r.u32(document, "fixpoint_iterations", "");
  const auto& buffers = r.to_array(r.field(document, "buffers", ""), "buffers");
  for (std::size_t i = 0; i < buffers.size(); ++i)
    m.buffers.push_back(read_buffer(r, buffers[i], Reader::index("buffers", i)));
  read_kernel_files(r, document, m);
  read_weights_and_inputs(r, document, m);
  return m;
}

Manifest parse_manifest(const std::string& text, const std::string& what) {
  return read_manifest(json::parse(text, what), what);
}

}  // namespace vyre_launch
