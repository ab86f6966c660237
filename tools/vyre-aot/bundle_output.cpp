#include "bundle_output.hpp"

#include <system_error>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <fmt/format.h>

#include "aot/manifest_json.hpp"
#include "errors.hpp"
#include "file_access.hpp"
#include "manifest.hpp"
#include "vyre/error.hpp"
#include "vyre/fingerprint.hpp"

namespace vyre::aot_tool {
namespace {

namespace fs = std::filesystem;

constexpr const char* kManifestName = "manifest.json";

vyre::AotFile* find_file(std::vector<vyre::AotFile>& files, std::string_view name) {
  for (vyre::AotFile& file : files)
    if (file.name == name) return &file;
  return nullptr;
}

const vyre::AotFile* find_file(const std::vector<vyre::AotFile>& files, std::string_view name) {
  for (const vyre::AotFile& file : files)
    if (file.name == name) return &file;
  return nullptr;
}

std::string as_text(const std::vector<std::uint8_t>& bytes) { return std::string(bytes.begin(), bytes.end()); }

std::string_view as_view(const std::vector<std::uint8_t>& bytes) {
  return std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

boost::json::object parse_manifest_object(const vyre::AotFile& manifest) {
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(as_text(manifest.data), ec);
  if (ec || !value.is_object())
    fail(VYRE_ERR_INTERNAL, fmt::format("the plugin's manifest.json is not a JSON object ({})", ec.message()),
         "report the backend plugin's AOT emitter with the program");
  return std::move(value.as_object());
}

// The launcher's check of one file the manifest names.
void check_file(const std::vector<vyre::AotFile>& files, const vyre_launch::FileRef& ref) {
  const vyre::AotFile* file = find_file(files, ref.file);
  if (file == nullptr)
    fail(VYRE_ERR_INTERNAL, fmt::format("the manifest names '{}' but the bundle has no such file", ref.file),
         "report the backend plugin's AOT emitter with the program");
  if (file->data.size() != ref.byte_size || sha256_hex(file->data) != ref.sha256)
    fail(VYRE_ERR_INTERNAL, fmt::format("'{}' does not match the size and SHA-256 the manifest records", ref.file),
         "report the backend plugin's AOT emitter with the program");
}

void prepare_directory(const fs::path& dir, bool force) {
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec))
      fail(VYRE_ERR_IO, fmt::format("--out '{}' exists and is not a directory", dir.string()), "choose another --out");
    if (!force && !fs::is_empty(dir, ec))
      fail(VYRE_ERR_IO, fmt::format("--out '{}' is not empty", dir.string()),
           "choose a new directory, or pass --force to replace the files of the same name");
  }
  fs::create_directories(dir, ec);
  if (ec)
    fail(VYRE_ERR_IO, fmt::format("cannot create '{}': {}", dir.string(), ec.message()), "choose a writable --out");
}

}  // namespace

std::vector<vyre::AotFile> complete_bundle(std::vector<vyre::AotFile> files, const PreparedProgram& prepared) {
  vyre::AotFile* manifest = find_file(files, kManifestName);
  if (manifest == nullptr)
    fail(VYRE_ERR_INTERNAL, "the plugin's AOT output has no manifest.json",
         "report the backend plugin's AOT emitter with the program");
  boost::json::object object = parse_manifest_object(*manifest);
  boost::json::array inputs;
  for (const InputData& input : prepared.inputs) {
    vyre::AotFile file{fmt::format("inputs/{}.bin", input.buffer), input.bytes};
    boost::json::object entry;
    entry["buffer"] = input.buffer;
    entry["file"] = file.name;
    entry["sha256"] = sha256_hex(file.data);
    entry["byte_size"] = file.data.size();
    inputs.push_back(std::move(entry));
    files.push_back(std::move(file));
  }
  object["inputs"] = std::move(inputs);
  if (prepared.specialised) object["source_program_fingerprint"] = prepared.source_fingerprint;
  const std::string text = cuda::aot::pretty_json(boost::json::value(std::move(object)));
  manifest = find_file(files, kManifestName);  // files grew: find it again
  manifest->data.assign(text.begin(), text.end());
  check_bundle(files);
  return files;
}

void check_bundle(const std::vector<vyre::AotFile>& files) {
  const vyre::AotFile* manifest = find_file(files, kManifestName);
  if (manifest == nullptr) fail(VYRE_ERR_INTERNAL, "the bundle has no manifest.json", "report the AOT emitter");
  try {
    const vyre_launch::Manifest m = vyre_launch::parse_manifest(as_text(manifest->data), kManifestName);
    vyre_launch::validate_manifest(m);
    check_file(files, m.ptx);
    if (m.cubin) check_file(files, *m.cubin);
    if (m.weights) check_file(files, m.weights->file);
    for (const vyre_launch::InputFile& input : m.inputs) check_file(files, input.file);
  } catch (const vyre_launch::LaunchError& error) {
    // The launcher's message already ends in its own "Fix: ...".
    throw Error(VYRE_ERR_INVALID_ARGUMENT, fmt::format("the bundle would not launch: {}", error.what()));
  }
}

void write_bundle(const std::vector<vyre::AotFile>& files, const fs::path& dir, bool force) {
  prepare_directory(dir, force);
  // The launcher's writer: nothing inside `dir` is followed if it is a link (a --force run over a
  // hostile directory cannot write elsewhere), and every file is a fresh one renamed into place.
  try {
    const vyre_launch::Directory out =
        vyre_launch::Directory::open(dir.string(), "the --out directory", false, "choose a writable --out directory");
    for (const vyre::AotFile& file : files)
      if (file.name != kManifestName) out.write(file.name, as_view(file.data));
    out.write(kManifestName, as_view(find_file(files, kManifestName)->data));
  } catch (const vyre_launch::LaunchError& error) {
    throw Error(VYRE_ERR_IO, error.what());  // the launcher's message already ends in "Fix: ..."
  }
}

}  // namespace vyre::aot_tool
