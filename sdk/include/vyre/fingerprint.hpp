// SHA-256 (OpenSSL libcrypto) and program fingerprints.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "vyre/ir.hpp"

namespace vyre {

using Sha256 = std::array<std::uint8_t, 32>;

Sha256 sha256(std::span<const std::uint8_t> bytes);
Sha256 sha256(std::string_view text);
std::string to_hex(std::span<const std::uint8_t> bytes);  // lower case
std::string sha256_hex(std::span<const std::uint8_t> bytes);
// Hash of a whole file, streamed; throws vyre::Error (VYRE_ERR_IO) if it cannot be read.
std::string sha256_file_hex(const std::filesystem::path& path);

// Incremental hashing for keys built from several pieces.
class Sha256Builder {
 public:
  Sha256Builder();
  ~Sha256Builder();
  Sha256Builder(const Sha256Builder&) = delete;
  Sha256Builder& operator=(const Sha256Builder&) = delete;
  Sha256Builder& add(std::span<const std::uint8_t> bytes);
  Sha256Builder& add(std::string_view text);
  Sha256Builder& add_u64(std::uint64_t value);  // little-endian
  Sha256 finish();

 private:
  void* ctx_;
};

// The program fingerprint: SHA-256 hex of its canonical wire bytes.
std::string fingerprint(const Program& program);

}  // namespace vyre
