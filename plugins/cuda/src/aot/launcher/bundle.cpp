#include "bundle.hpp"

#include <filesystem>
#include <fstream>
#include <set>
#include <system_error>

#include "errors.hpp"
#include "sha256.hpp"

namespace vyre_launch {
namespace {

namespace fs = std::filesystem;

std::uint64_t file_size_of(const std::string& path, const std::string& what) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec)
    fail(cat("cannot read ", what, " \"", path, "\": ", ec.message()), "check that the file exists and is readable");
  return size;
}

std::string input_bytes(const std::string& path, const Buffer& buffer) {
  const std::string what = cat("the input file for buffer \"", buffer.name, "\"");
  const std::uint64_t size = file_size_of(path, what);
  if (size != buffer.byte_size)
    fail(cat(what, " \"", path, "\" is ", size, " bytes; buffer \"", buffer.name, "\" holds ", buffer.count, " ",
             buffer.element, " elements = ", buffer.byte_size, " bytes"),
         "pass a file of exactly the buffer's size (the bundle fixed the size at compile time)");
  return read_file(path, what);
}

std::string weights_bytes(const Bundle& bundle, const Buffer& buffer) {
  std::string bytes = read_checked(bundle.dir, bundle.manifest.weights->file, "weights");
  bytes.resize(static_cast<std::size_t>(buffer.byte_size), '\0');  // validated: weights <= buffer
  return bytes;
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
    return read_checked(bundle.dir, own->file, cat("the bundled input for buffer \"", buffer.name, "\""));
  fail(cat("input buffer \"", buffer.name, "\" (", buffer.count, " ", buffer.element, ") has no data: neither --in ",
           buffer.name, "=FILE nor a bundled input file"),
       cat("pass --in ", buffer.name, "=FILE with ", buffer.byte_size, " bytes, or bundle one with vyre-aot --in"));
}

}  // namespace

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(cat("cannot open ", what, " \"", path, "\""), "check that the file exists and is readable");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) fail(cat("reading ", what, " \"", path, "\" failed"), "check the file system");
  return bytes;
}

std::string read_checked(const std::string& dir, const FileRef& ref, const std::string& what) {
  const std::string path = dir + "/" + ref.file;
  const std::uint64_t size = file_size_of(path, what);
  if (size != ref.byte_size)
    fail(cat(what, " \"", path, "\" is ", size, " bytes; the manifest says ", ref.byte_size),
         "the bundle was modified or truncated: regenerate it with vyre-aot");
  std::string bytes = read_file(path, what);
  const std::string actual = sha256_hex(bytes);
  if (actual != ref.sha256)
    fail(cat(what, " \"", path, "\" has SHA-256 ", actual, "; the manifest says ", ref.sha256),
         "the bundle was modified or corrupted: regenerate it with vyre-aot");
  return bytes;
}

void write_file(const std::string& path, const std::string& bytes) {
  std::error_code ec;
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  if (ec)
    fail(cat("cannot create directory \"", parent.string(), "\": ", ec.message()), "choose a writable --out directory");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) fail(cat("cannot write \"", path, "\""), "choose a writable --out directory with enough space");
}

Bundle load_bundle(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& inputs) {
  Bundle bundle;
  bundle.dir = dir;
  const std::string manifest_path = dir + "/manifest.json";
  bundle.manifest = parse_manifest(read_file(manifest_path, "the bundle manifest"), manifest_path);
  validate_manifest(bundle.manifest);
  check_requested_inputs(bundle.manifest, inputs);
  bundle.ptx = read_checked(dir, bundle.manifest.ptx, "the kernel PTX");
  if (bundle.manifest.cubin) bundle.cubin = read_checked(dir, *bundle.manifest.cubin, "the kernel cubin");
  for (const Buffer& buffer : bundle.manifest.buffers) bundle.initial.push_back(initial_bytes(bundle, buffer, inputs));
  return bundle;
}

}  // namespace vyre_launch
