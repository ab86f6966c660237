// SHA-256 (FIPS 180-4) for checking bundle files against the manifest, without any library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace vyre_launch {

// Lower-case hex SHA-256 of `size` bytes at `data`.
std::string sha256_hex(const void* data, std::size_t size);
inline std::string sha256_hex(const std::string& bytes) { return sha256_hex(bytes.data(), bytes.size()); }

}  // namespace vyre_launch
