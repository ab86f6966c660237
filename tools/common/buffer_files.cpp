#include "buffer_files.hpp"

#include <cstdint>

#include "vyre/file_read.hpp"
#include "vyre/types.hpp"

namespace vyre::tool {

std::uint64_t max_buffer_file_bytes(const BufferDecl& buffer) {
  const std::uint64_t count = buffer.count != 0 ? buffer.count : std::uint64_t{UINT32_MAX};
  return count * byte_size(buffer.element);
}

std::vector<std::uint8_t> read_buffer_file(const std::filesystem::path& path, const BufferDecl& buffer,
                                           std::string_view what) {
  return read_regular_file(path, max_buffer_file_bytes(buffer), what);
}

}  // namespace vyre::tool
