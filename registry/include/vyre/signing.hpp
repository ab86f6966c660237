// Ed25519 keys and signatures (OpenSSL libcrypto), for signing conformance certificates (SPEC §9).
//
// Keys are PEM files that `openssl pkey` reads and writes: a private key is PKCS#8
// ("-----BEGIN PRIVATE KEY-----"), a public key is SubjectPublicKeyInfo ("-----BEGIN PUBLIC
// KEY-----"). A key's id is the hex SHA-256 of its 32 raw public-key bytes.
//
// Where keys live (XDG base directories; $XDG_CONFIG_HOME defaults to ~/.config):
//   signing key    $VYRE_SIGNING_KEY, else $XDG_CONFIG_HOME/vyre/keys/certificate-signing.pem,
//                  created on first use with owner-only permissions (directory 0700, file 0600);
//                  its public key is written beside it as certificate-signing.pub.pem
//   trusted keys   $VYRE_TRUSTED_KEYS, else $XDG_CONFIG_HOME/vyre/trusted-keys: one public key
//                  per *.pem file; routing uses only certificates signed by one of them
//
//   vyre::SigningKey key = vyre::SigningKey::load_or_create(vyre::default_signing_key_file());
//   auto signature = key.sign(bytes);
//   bool good = vyre::verify_signature(key.public_key(), bytes, signature);
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vyre {

inline constexpr std::size_t kEd25519PublicKeyBytes = 32;
inline constexpr std::size_t kEd25519SignatureBytes = 64;

struct PublicKey {
  std::array<std::uint8_t, kEd25519PublicKeyBytes> raw{};

  std::string id() const;   // hex SHA-256 of `raw`
  std::string pem() const;  // "-----BEGIN PUBLIC KEY-----\n..."

  friend bool operator==(const PublicKey&, const PublicKey&) = default;
};

// Parse a PEM public key; throws vyre::Error (VYRE_ERR_DECODE) unless it is one Ed25519 key.
PublicKey parse_public_key_pem(std::string_view pem);
// Read a PEM public key file (at most 64 KiB, a regular file). Throws VYRE_ERR_IO or _DECODE.
PublicKey read_public_key(const std::filesystem::path& file);
// Write `key` to `file` (PEM, mode 0644), atomically. Throws VYRE_ERR_IO.
void write_public_key(const PublicKey& key, const std::filesystem::path& file);

// Whether `signature` is `key`'s Ed25519 signature of `message`. Never throws; a signature of
// the wrong length is simply false.
bool verify_signature(const PublicKey& key, std::string_view message, std::span<const std::uint8_t> signature);

// An Ed25519 private key. Thread-safe to use from many threads once made.
class SigningKey {
 public:
  // A new random key, in memory only.
  static SigningKey generate();
  // Read the private key in `file`. Throws vyre::Error: VYRE_ERR_IO when it cannot be read or is
  // not owned by this user with owner-only permissions (0600), VYRE_ERR_DECODE when it is not an
  // Ed25519 private key.
  static SigningKey load(const std::filesystem::path& file);
  // load(file) when the file exists; otherwise create a new key there (its directory 0700 if it
  // creates it, the file 0600, written completely before it appears; with two processes racing,
  // both end up with the same key) and its public key beside it (<stem>.pub.pem). `created` says
  // which happened.
  static SigningKey load_or_create(const std::filesystem::path& file, bool* created = nullptr);

  PublicKey public_key() const;
  std::array<std::uint8_t, kEd25519SignatureBytes> sign(std::string_view message) const;

 private:
  explicit SigningKey(std::shared_ptr<void> key) : key_(std::move(key)) {}
  std::shared_ptr<void> key_;  // EVP_PKEY
};

// $XDG_CONFIG_HOME/vyre, or ~/.config/vyre. Throws VYRE_ERR_IO when neither variable nor the
// password database gives a home directory.
std::filesystem::path vyre_config_dir();
// $VYRE_SIGNING_KEY when set and non-empty, else vyre_config_dir()/keys/certificate-signing.pem.
std::filesystem::path default_signing_key_file();
// The public key file written beside a signing key file: "<dir>/<stem>.pub.pem".
std::filesystem::path public_key_file_for(const std::filesystem::path& signing_key_file);
// $VYRE_TRUSTED_KEYS when set and non-empty, else vyre_config_dir()/trusted-keys.
std::filesystem::path default_trusted_keys_dir();

// The public keys of a trusted-keys directory.
struct TrustedKey {
  std::filesystem::path file;
  PublicKey key;
};
struct TrustedKeys {
  std::filesystem::path dir;
  std::vector<TrustedKey> keys;
  std::vector<std::string> problems;  // one line per *.pem file that is not a public key
  const TrustedKey* find(std::string_view key_id) const;
};
// Every *.pem file directly in `dir` (sorted); a missing directory gives no keys and no problem.
TrustedKeys load_trusted_keys(const std::filesystem::path& dir);

}  // namespace vyre
