// Ed25519 keys and signatures through OpenSSL's EVP interface (vyre/signing.hpp).
#include "vyre/signing.hpp"

#include <fcntl.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <system_error>

#include "vyre/error.hpp"
#include "vyre/file_read.hpp"
#include "vyre/fingerprint.hpp"

namespace vyre {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxKeyFileBytes = 64 * 1024;

using Pkey = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using Bio = std::unique_ptr<BIO, decltype(&BIO_free)>;
using MdCtx = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

std::shared_ptr<void> shared(EVP_PKEY* key) {
  return std::shared_ptr<void>(key, [](void* k) { EVP_PKEY_free(static_cast<EVP_PKEY*>(k)); });
}

EVP_PKEY* pkey_of(const std::shared_ptr<void>& key) { return static_cast<EVP_PKEY*>(key.get()); }

// The text of a small regular file (vyre/file_read.hpp). Throws VYRE_ERR_IO.
std::string read_small_file(const fs::path& file, std::string_view what) {
  const std::vector<std::uint8_t> bytes = read_regular_file(file, kMaxKeyFileBytes, what);
  return std::string(bytes.begin(), bytes.end());
}

std::string pem_of(EVP_PKEY* key, bool private_key) {
  Bio bio(BIO_new(BIO_s_mem()), &BIO_free);
  const int ok = private_key ? PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr)
                             : PEM_write_bio_PUBKEY(bio.get(), key);
  if (bio == nullptr || ok != 1) fail(VYRE_ERR_INTERNAL, "OpenSSL could not encode a key", "report this");
  char* data = nullptr;
  const long length = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(length));
}

Pkey public_pkey(const PublicKey& key) {
  return Pkey(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, key.raw.data(), key.raw.size()),
              &EVP_PKEY_free);
}

PublicKey raw_public(EVP_PKEY* key) {
  PublicKey out;
  std::size_t length = out.raw.size();
  if (EVP_PKEY_get_raw_public_key(key, out.raw.data(), &length) != 1 || length != out.raw.size())
    fail(VYRE_ERR_DECODE, "the key has no Ed25519 public part", "use an Ed25519 key");
  return out;
}

// Owner-only and ours: a signing key anyone else can read signs for them too.
void check_private_key_file(const fs::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0)
    fail(VYRE_ERR_IO, "cannot stat the signing key " + file.string(), "check the path");
  if (st.st_uid != ::geteuid() || (st.st_mode & 077) != 0)
    fail(VYRE_ERR_IO,
         "the signing key " + file.string() + " must belong to this user and be readable by no one else " +
             "(its mode is " + std::to_string((st.st_mode >> 6) & 7) + std::to_string((st.st_mode >> 3) & 7) +
             std::to_string(st.st_mode & 7) + ")",
         "chmod 600 " + file.string() + " (and make sure no one else has had a copy; if so, make a new key)");
}

// Write `text` to a fresh file in `dir` with `mode` (O_EXCL). Returns its path. Throws VYRE_ERR_IO.
fs::path write_fresh(const fs::path& dir, const std::string& stem, const std::string& text, mode_t mode) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const fs::path tmp = dir / (stem + ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(attempt));
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0)
      fail(VYRE_ERR_IO, "cannot create " + tmp.string() + ": " + std::generic_category().message(errno),
           "check the permissions of " + dir.string());
    const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    const bool closed = ::fsync(fd) == 0 && ::close(fd) == 0;
    if (!ok || !closed) {
      ::unlink(tmp.c_str());
      fail(VYRE_ERR_IO, "cannot write " + tmp.string(), "check the disk space of " + dir.string());
    }
    return tmp;
  }
  fail(VYRE_ERR_IO, "cannot create a temporary file in " + dir.string(), "remove stale *.tmp* files there");
}

void create_private_dir(const fs::path& dir) {
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return;
  fs::create_directories(dir.parent_path(), ec);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    fail(VYRE_ERR_IO, "cannot create the key directory " + dir.string() + ": " + std::generic_category().message(errno),
         "create it (mode 700) or choose another signing key file (--signing-key, VYRE_SIGNING_KEY)");
}

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::string(value) : std::string();
}

}  // namespace

std::string PublicKey::id() const { return sha256_hex(raw); }

std::string PublicKey::pem() const {
  Pkey key = public_pkey(*this);
  if (!key) fail(VYRE_ERR_DECODE, "not an Ed25519 public key", "use an Ed25519 key");
  return pem_of(key.get(), false);
}

PublicKey parse_public_key_pem(std::string_view pem) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(std::min(pem.size(), kMaxKeyFileBytes))), &BIO_free);
  Pkey key(bio ? PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr) : nullptr, &EVP_PKEY_free);
  if (!key || EVP_PKEY_id(key.get()) != EVP_PKEY_ED25519)
    fail(VYRE_ERR_DECODE, "not a PEM Ed25519 public key (\"-----BEGIN PUBLIC KEY-----\")",
         "export it with `openssl pkey -in KEY -pubout` or take the .pub.pem file vyre-conform wrote");
  return raw_public(key.get());
}

PublicKey read_public_key(const fs::path& file) {
  const std::string text = read_small_file(file, "public key");
  try {
    return parse_public_key_pem(text);
  } catch (const Error& e) {
    throw Error(e.code(), file.string() + ": " + e.what());
  }
}

void write_public_key(const PublicKey& key, const fs::path& file) {
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  const fs::path tmp = write_fresh(file.parent_path(), file.filename().string(), key.pem(), 0644);
  if (::rename(tmp.c_str(), file.c_str()) != 0) {
    ::unlink(tmp.c_str());
    fail(VYRE_ERR_IO, "cannot write " + file.string(), "check the permissions of " + file.parent_path().string());
  }
}

bool verify_signature(const PublicKey& key, std::string_view message, std::span<const std::uint8_t> signature) {
  if (signature.size() != kEd25519SignatureBytes) return false;
  Pkey pkey = public_pkey(key);
  MdCtx ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!pkey || !ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, pkey.get()) != 1) return false;
  return EVP_DigestVerify(ctx.get(), signature.data(), signature.size(),
                          reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1;
}

SigningKey SigningKey::generate() {
  std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> ctx(EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr),
                                                                  &EVP_PKEY_CTX_free);
  EVP_PKEY* key = nullptr;
  if (!ctx || EVP_PKEY_keygen_init(ctx.get()) != 1 || EVP_PKEY_keygen(ctx.get(), &key) != 1)
    fail(VYRE_ERR_INTERNAL, "OpenSSL could not generate an Ed25519 key", "check the OpenSSL installation");
  return SigningKey(shared(key));
}

SigningKey SigningKey::load(const fs::path& file) {
  check_private_key_file(file);
  const std::string text = read_small_file(file, "signing key");
  Bio bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())), &BIO_free);
  EVP_PKEY* key = bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr;
  if (key == nullptr || EVP_PKEY_id(key) != EVP_PKEY_ED25519) {
    EVP_PKEY_free(key);
    fail(VYRE_ERR_DECODE, file.string() + " is not a PEM Ed25519 private key",
         "point --signing-key (VYRE_SIGNING_KEY) to the key vyre-conform created, or to a new path to "
         "create one");
  }
  return SigningKey(shared(key));
}

SigningKey SigningKey::load_or_create(const fs::path& file, bool* created) {
  if (created != nullptr) *created = false;
  std::error_code ec;
  if (fs::exists(file, ec)) return load(file);
  create_private_dir(file.parent_path());
  SigningKey key = generate();
  const fs::path tmp = write_fresh(file.parent_path(), file.filename().string(), pem_of(pkey_of(key.key_), true), 0600);
  const bool linked = ::link(tmp.c_str(), file.c_str()) == 0;  // never replaces: a racing creator wins
  const int link_error = errno;
  ::unlink(tmp.c_str());
  if (!linked && link_error == EEXIST) return load(file);
  if (!linked)
    fail(VYRE_ERR_IO, "cannot create the signing key " + file.string() + ": " + std::generic_category().message(link_error),
         "check the permissions of " + file.parent_path().string());
  write_public_key(key.public_key(), public_key_file_for(file));
  if (created != nullptr) *created = true;
  return key;
}

PublicKey SigningKey::public_key() const { return raw_public(pkey_of(key_)); }

std::array<std::uint8_t, kEd25519SignatureBytes> SigningKey::sign(std::string_view message) const {
  std::array<std::uint8_t, kEd25519SignatureBytes> signature{};
  std::size_t length = signature.size();
  MdCtx ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, pkey_of(key_)) != 1 ||
      EVP_DigestSign(ctx.get(), signature.data(), &length, reinterpret_cast<const unsigned char*>(message.data()),
                     message.size()) != 1 ||
      length != signature.size())
    fail(VYRE_ERR_INTERNAL, "OpenSSL could not sign", "check the OpenSSL installation");
  return signature;
}

fs::path vyre_config_dir() {
  const std::string xdg = env_or_empty("XDG_CONFIG_HOME");
  if (!xdg.empty() && fs::path(xdg).is_absolute()) return fs::path(xdg) / "vyre";
  std::string home = env_or_empty("HOME");
  if (home.empty())
    if (const passwd* pw = ::getpwuid(::geteuid()); pw != nullptr && pw->pw_dir != nullptr) home = pw->pw_dir;
  if (home.empty())
    fail(VYRE_ERR_IO, "no home directory (HOME and XDG_CONFIG_HOME are unset)",
         "set XDG_CONFIG_HOME, or name the files explicitly (--signing-key, --trusted-keys)");
  return fs::path(home) / ".config" / "vyre";
}

fs::path default_signing_key_file() {
  const std::string env = env_or_empty("VYRE_SIGNING_KEY");
  if (!env.empty()) return env;
  return vyre_config_dir() / "keys" / "certificate-signing.pem";
}

fs::path public_key_file_for(const fs::path& signing_key_file) {
  return signing_key_file.parent_path() / (signing_key_file.stem().string() + ".pub.pem");
}

fs::path default_trusted_keys_dir() {
  const std::string env = env_or_empty("VYRE_TRUSTED_KEYS");
  if (!env.empty()) return env;
  return vyre_config_dir() / "trusted-keys";
}

const TrustedKey* TrustedKeys::find(std::string_view key_id) const {
  for (const TrustedKey& k : keys)
    if (k.key.id() == key_id) return &k;
  return nullptr;
}

namespace {

// Like ssh's StrictModes: a trust anchor others can change trusts them.
std::optional<std::string> unsafe_owner_or_mode(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;  // reading it reports the problem
  if (st.st_uid != ::geteuid() && st.st_uid != 0)
    return path.string() + " belongs to another user (uid " + std::to_string(st.st_uid) + ")";
  if ((st.st_mode & 022) != 0) return path.string() + " is writable by group or others";
  return std::nullopt;
}

}  // namespace

TrustedKeys load_trusted_keys(const fs::path& dir) {
  TrustedKeys trusted;
  trusted.dir = dir;
  if (auto unsafe = unsafe_owner_or_mode(dir)) {
    trusted.problems.push_back("ignored the trusted-keys directory: " + *unsafe +
                               ". Fix: chmod go-w (and chown) it; others must not be able to add keys");
    return trusted;
  }
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".pem") files.push_back(it->path());
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    if (auto unsafe = unsafe_owner_or_mode(file)) {
      trusted.problems.push_back("ignored trusted key " + *unsafe + ". Fix: chmod go-w (and chown) it");
      continue;
    }
    try {
      trusted.keys.push_back({file, read_public_key(file)});
    } catch (const Error& e) {
      trusted.problems.push_back(std::string(e.what()));
    }
  }
  return trusted;
}

}  // namespace vyre
