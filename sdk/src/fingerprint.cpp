// SHA-256 through OpenSSL's EVP interface (the program fingerprint is in program_fingerprint.cpp).
#include "vyre/fingerprint.hpp"

#include <openssl/evp.h>

#include <array>
#include <fstream>

#include "vyre/error.hpp"

namespace vyre {

namespace {

EVP_MD_CTX* as_ctx(void* ctx) { return static_cast<EVP_MD_CTX*>(ctx); }

[[noreturn]] void openssl_failed(std::string_view what) {
  fail(VYRE_ERR_INTERNAL, std::string("OpenSSL SHA-256 failed in ") + std::string(what),
       "check that libcrypto is a working OpenSSL 1.1 or 3.x build");
}

}  // namespace

Sha256Builder::Sha256Builder() : ctx_(EVP_MD_CTX_new()) {
  if (ctx_ == nullptr) fail(VYRE_ERR_OUT_OF_MEMORY, "cannot allocate a SHA-256 context", "free memory");
  if (EVP_DigestInit_ex(as_ctx(ctx_), EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(as_ctx(ctx_));
    openssl_failed("EVP_DigestInit_ex");
  }
}

Sha256Builder::~Sha256Builder() { EVP_MD_CTX_free(as_ctx(ctx_)); }

Sha256Builder& Sha256Builder::add(std::span<const std::uint8_t> bytes) {
  if (bytes.empty()) return *this;
  if (EVP_DigestUpdate(as_ctx(ctx_), bytes.data(), bytes.size()) != 1)
    openssl_failed("EVP_DigestUpdate");
  return *this;
}

Sha256Builder& Sha256Builder::add(std::string_view text) {
  return add(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(text.data()),
                                           text.size()));
}

Sha256Builder& Sha256Builder::add_u64(std::uint64_t value) {
  std::array<std::uint8_t, 8> le{};
  for (std::size_t i = 0; i < le.size(); ++i) le[i] = static_cast<std::uint8_t>(value >> (8 * i));
  return add(le);
}

Sha256 Sha256Builder::finish() {
  Sha256 digest{};
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(as_ctx(ctx_), digest.data(), &length) != 1 || length != digest.size())
    openssl_failed("EVP_DigestFinal_ex");
  // Ready for reuse, as if newly constructed.
  if (EVP_DigestInit_ex(as_ctx(ctx_), EVP_sha256(), nullptr) != 1)
    openssl_failed("EVP_DigestInit_ex");
  return digest;
}

Sha256 sha256(std::span<const std::uint8_t> bytes) { return Sha256Builder().add(bytes).finish(); }

Sha256 sha256(std::string_view text) { return Sha256Builder().add(text).finish(); }

std::string to_hex(std::span<const std::uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (std::uint8_t byte : bytes) {
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 0xF];
  }
  return hex;
}

std::string sha256_hex(std::span<const std::uint8_t> bytes) { return to_hex(sha256(bytes)); }

std::string sha256_file_hex(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail(VYRE_ERR_IO, "cannot open '" + path.string() + "' to hash it",
         "check that the file exists and is readable");
  Sha256Builder builder;
  std::array<char, 1 << 16> chunk{};
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    auto got = static_cast<std::size_t>(in.gcount());
    builder.add(std::string_view(chunk.data(), got));
  }
  if (in.bad())
    fail(VYRE_ERR_IO, "reading '" + path.string() + "' failed while hashing it",
         "check the file system and retry");
  return to_hex(builder.finish());
}

}  // namespace vyre
