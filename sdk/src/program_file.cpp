// Program files: wire bytes (sniffed by their magic) or JSON, read whole; written atomically
// (a temporary file in the same directory, then rename) so readers never see half a file.
#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "vyre/error.hpp"
#include "vyre/file_read.hpp"
#include "vyre/json.hpp"
#include "vyre/wire.hpp"

namespace vyre {

namespace {

// Larger files are refused unread: no program comes near it.
constexpr std::uint64_t kMaxProgramFileBytes = std::uint64_t{256} << 20;

bool is_json_path(const std::filesystem::path& path) { return path.extension() == ".json"; }

std::filesystem::path temporary_beside(const std::filesystem::path& path) {
  std::random_device entropy;
  auto name = fmt::format(".{}.tmp.{}.{:08x}", path.filename().string(), ::getpid(), entropy());
  return path.parent_path() / name;
}

void write_file(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (out) out.flush();
  if (!out)
    fail(VYRE_ERR_IO, fmt::format("cannot write '{}'", path.string()),
         "check that the directory exists, is writable and has free space");
}

}  // namespace

Program load_program_file(const std::filesystem::path& path) {
  std::vector<std::uint8_t> bytes = read_regular_file(path, kMaxProgramFileBytes, "program file");
  try {
    if (looks_like_wire(bytes)) return decode_wire(bytes);
    return from_json(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  } catch (const Error& e) {
    throw Error(e.code(), fmt::format("{}: {}", path.string(), e.what()));
  }
}

void save_program_file(const Program& program, const std::filesystem::path& path) {
  std::string content;
  if (is_json_path(path)) {
    content = to_json(program, true);
    content += '\n';
  } else {
    std::vector<std::uint8_t> bytes = encode_wire(program);
    content.assign(bytes.begin(), bytes.end());
  }
  std::filesystem::path temporary = temporary_beside(path);
  try {
    write_file(temporary, content);
    std::filesystem::rename(temporary, path);
  } catch (const std::filesystem::filesystem_error& e) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    fail(VYRE_ERR_IO, fmt::format("cannot replace '{}': {}", path.string(), e.code().message()),
         "check that the directory is writable and the path is not a directory");
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw;
  }
}

}  // namespace vyre
