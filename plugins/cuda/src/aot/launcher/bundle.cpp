#include "bundle.hpp"

#include <filesystem>
#include <set>
#include <system_error>

#include "errors.hpp"
#include "json_lite.hpp"
#include "sha256.hpp"

namespace vyre_launch {
namespace {

constexpr const char* kManifestFile = "manifest.json";
constexpr const char* kOutputsDir = "outputs";  // the default output directory, beneath the bundle
constexpr const char* kBundleFix = "pass the bundle directory (the one holding manifest.json)";
constexpr const char* kOutFix = "pass --out with a writable directory";

std::string input_bytes(const std::string& path, const Buffer& buffer) {
  const std::string what = cat("the input file for buffer \"", buffer.name, "\"");
  const RegularFile file = open_user_file(path, what);
  if (file.size != buffer.byte_size)
    fail(cat(what, " \"", path, "\" is ", file.size, " bytes; buffer \"", buffer.name, "\" holds ", buffer.count, " ",
             buffer.element, " elements = ", buffer.byte_size, " bytes"),
         "pass a file of exactly the buffer's size (the bundle fixed the size at compile time)");
  return read_whole(file, what);
}

std::string weights_bytes(const Bundle& bundle, const Buffer& buffer) {
  std::string bytes = read_checked(bundle.root, bundle.manifest.weights->file, "weights");
  bytes.resize(static_cast<std::size_t>(buffer.byte_size), '\0');  // validated: weights <= buffer
  return bytes;
}

std::string read_manifest(const Directory& bundle) {
  const std::string what = "the bundle manifest";
  const RegularFile file = bundle.open_file(kManifestFile, what);
  if (file.size > json::kMaxTextBytes)
    fail(cat(what, " \"", file.path, "\" is ", file.size, " bytes, more than the ", json::kMaxTextBytes,
             "-byte limit of a manifest"),
         "regenerate the bundle with vyre-aot (a manifest is a few kilobytes)");
  return read_whole(file, what);
}

const InputFile* bundled_input(const Manifest& m, const std::string& name) {
  for (const InputFile& input : m.inputs)
    if (input.buffer == name) return &input;
  return nullptr;
}

void check_requested_inputs(const Manifest& m, const std::vector<std::pair<std::string, std::string>>& inputs) {
  std::set<std::string> seen;
  for (const auto& input : inputs) {
    const int index = find_buffer(m, input.first);
    if (index < 0)
      fail(cat("--in names buffer \"", input.first, "\", which the bundle does not have"),
           "check the buffer name in manifest.json");
    const Buffer& b = m.buffers[static_cast<std::size_t>(index)];
    if (!is_host_input(b.role))
      fail(cat("--in names ", role_name(b.role), " buffer \"", b.name, "\", which takes no input"),
           "pass --in only for read, uniform and read_write buffers");
    if (m.weights && m.weights->buffer == b.name)
      fail(cat("buffer \"", b.name, "\" is filled from the bundle's weights"),
           cat("drop --in ", b.name, ", or rebuild the bundle without --weights"));
    if (!seen.insert(b.name).second) fail(cat("--in names buffer \"", b.name, "\" twice"), "pass one file per buffer");
  }
}

std::optional<std::string> initial_bytes(const Bundle& bundle, const Buffer& buffer,
                                         const std::vector<std::pair<std::string, std::string>>& inputs) {
  if (!is_host_input(buffer.role)) return std::nullopt;
  if (bundle.manifest.weights && bundle.manifest.weights->buffer == buffer.name) return weights_bytes(bundle, buffer);
  for (const auto& input : inputs)
    if (input.first == buffer.name) return input_bytes(input.second, buffer);
  if (const InputFile* own = bundled_input(bundle.manifest, buffer.name))
    return read_checked(bundle.root, own->file, cat("the bundled input for buffer \"", buffer.name, "\""));
  fail(cat("input buffer \"", buffer.name, "\" (", buffer.count, " ", buffer.element, ") has no data: neither --in ",
           buffer.name, "=FILE nor a bundled input file"),
       cat("pass --in ", buffer.name, "=FILE with ", buffer.byte_size, " bytes, or bundle one with vyre-aot --in"));
}

}  // namespace

std::string read_checked(const Directory& bundle, const FileRef& ref, const std::string& what) {
  const RegularFile file = bundle.open_file(ref.file, what);
  if (file.size != ref.byte_size)
    fail(cat(what, " \"", file.path, "\" is ", file.size, " bytes; the manifest says ", ref.byte_size),
         "the bundle was modified or truncated: regenerate it with vyre-aot");
  std::string bytes = read_whole(file, what);
  const std::string actual = sha256_hex(bytes);
  if (actual != ref.sha256)
    fail(cat(what, " \"", file.path, "\" has SHA-256 ", actual, "; the manifest says ", ref.sha256),
         "the bundle was modified or corrupted: regenerate it with vyre-aot");
  return bytes;
}

std::string output_file_name(const Buffer& buffer) { return buffer.name + ".bin"; }

void check_outputs(const Bundle& bundle, const std::string& out_dir) {
  std::error_code ec;
  const bool default_dir = out_dir.empty();
  if (!default_dir && !std::filesystem::exists(out_dir, ec)) return;  // created when the outputs are written
  std::optional<Directory> given;
  if (!default_dir) given = Directory::open(out_dir, "the output directory", false, kOutFix);
  for (const Buffer& buffer : bundle.manifest.buffers) {
    if (!is_host_output(buffer.role)) continue;
    if (default_dir)
      bundle.root.check_replaceable(cat(kOutputsDir, "/", output_file_name(buffer)), "the output file");
    else
      given->check_replaceable(output_file_name(buffer), "the output file");
  }
}

Directory open_outputs(const Bundle& bundle, const std::string& out_dir) {
  if (out_dir.empty()) return bundle.root.subdirectory(kOutputsDir, "the output directory", true);
  return Directory::open(out_dir, "the output directory", true, kOutFix);
}

Bundle load_bundle(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& inputs) {
  Bundle bundle{dir, Directory::open(dir, "the bundle directory", false, kBundleFix), {}, {}, {}, {}};
  bundle.manifest = parse_manifest(read_manifest(bundle.root), bundle.root.path_of(kManifestFile));
  validate_manifest(bundle.manifest);
  check_requested_inputs(bundle.manifest, inputs);
  bundle.ptx = read_checked(bundle.root, bundle.manifest.ptx, "the kernel PTX");
  if (bundle.manifest.cubin) bundle.cubin = read_checked(bundle.root, *bundle.manifest.cubin, "the kernel cubin");
  for (const Buffer& buffer : bundle.manifest.buffers) bundle.initial.push_back(initial_bytes(bundle, buffer, inputs));
  return bundle;
}

}  // namespace vyre_launch
