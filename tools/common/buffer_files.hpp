// Data files named on a command line for a program's buffers (vyre run --input NAME=FILE, vyre-aot
// --in NAME=FILE and --weights FILE): read through vyre/file_read.hpp, so a FIFO, a device or a
// file larger than the buffer can hold is refused before a byte is read.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

#include "vyre/ir.hpp"

namespace vyre::tool {

// The largest any buffer can be: 2^32 - 1 elements of 8 bytes.
inline constexpr std::uint64_t kMaxBufferFileBytes = std::uint64_t{UINT32_MAX} * 8;

// The most bytes a file for `buffer` may hold: its byte size, or for a runtime-sized buffer that
// of the largest count (2^32 - 1 elements).
std::uint64_t max_buffer_file_bytes(const BufferDecl& buffer);

// The bytes of `path` for `buffer`, at most max_buffer_file_bytes(buffer); `what` names the file
// in messages. Throws Error(VYRE_ERR_IO).
std::vector<std::uint8_t> read_buffer_file(const std::filesystem::path& path, const BufferDecl& buffer,
                                           std::string_view what);

}  // namespace vyre::tool
