// Reading a file named from outside (a program file, a certificate, a data file given on a command
// line): its type and size are checked before a byte is read, and no more than the limit is read.
// A FIFO is refused without blocking on it, a device (/dev/zero) without reading from it, and a
// file over the limit without allocating for it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

namespace vyre {

// The bytes of the regular file `path` (links are followed: the caller named the path). Throws
// Error(VYRE_ERR_IO) naming `what` ("program file", "certificate") and the path, with a Fix, for a
// missing or unreadable file, anything but a regular file, and a file larger than `max_bytes`
// (judged by its size before reading; no more than that size is ever read). Thread-safe.
std::vector<std::uint8_t> read_regular_file(const std::filesystem::path& path, std::uint64_t max_bytes,
                                            std::string_view what);

}  // namespace vyre
