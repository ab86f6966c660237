// Certificates round trip through Boost.JSON and are rejected when tampered with, when the plugin
// file changed, or when they were made on another device; signed certificates are trusted only
// when a trusted key signed exactly these bytes (forged edits, another plugin's SHA-256, a key
// nobody trusts, a truncated signature: each refused with its code); signing keys are created
// owner-only and trust directories others can write are ignored.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/stat.h>

#include "support/scoped_env.hpp"
#include "vyre/certificate.hpp"
#include "vyre/certificate_trust.hpp"
#include "vyre/error.hpp"
#include "vyre/signing.hpp"
#include "vyre/fingerprint.hpp"
#include "vyre/ops.hpp"

namespace fs = std::filesystem;
using vyre::test::ScopedEnv;

namespace {

vyre::CertDevice gpu() {
  return vyre::CertDevice{"gpu", "NVIDIA H100 80GB HBM3", "9.0", 13000, "sm_90"};
}

vyre::Certificate sample() {
  vyre::Certificate c;
  c.tool_version = "vyre-conform 0.1.0";
  c.abi_version = "1.0";
  c.backend_id = "cuda";
  c.backend_version = "0.1.0";
  c.plugin_path = "/opt/vyre/lib/vyre/plugins/libvyre_cuda.so";
  c.plugin_sha256 = std::string(64, 'a');
  c.device = gpu();
  c.reference_backend = "reference_cpu";
  c.seed = 0xFFFFFFFFFFFFFFF0ull;  // beyond int64: must survive the round trip
  c.random_lanes = 1024;
  c.witness_cases = 1000;
  c.random_cases = 2000;
  c.catalog_hash = vyre::catalog_hash();
  c.timestamp = "2025-06-01T12:00:00Z";
  c.ops.push_back({"bin.add.u32", vyre::CertStatus::Pass, 1348, 0, "", {}, {}});
  vyre::CertFailure f{"elementwise", 17, "out", 17, {"a = f32 88.72 (0x42b17218)"}, "f32 1 (0x3f800000)",
                      "f32 1.0000012 (0x3f80000a)", 10, "3 of 1808 compared elements differ",
                      "vyre-conform --backend cuda --ops un.exp.f32 --case 17"};
  vyre::CertExhaustive ex{vyre::CertStatus::Fail, 1ull << 32, 12, 10, f};
  c.ops.push_back({"un.exp.f32", vyre::CertStatus::Fail, 1808, 10, "", f, ex});
  c.ops.push_back({"subgroup.ballot", vyre::CertStatus::Unsupported, 0, 0, "'cuda' does not declare it", {}, {}});
  c.surfaces.push_back({"async", vyre::CertStatus::Pass, 7, ""});
  c.surfaces.push_back({"resident", vyre::CertStatus::Unsupported, 0, "capability not declared"});
  c.summary = vyre::summarize(c.ops);
  return c;
}

vyre_status testing_code(auto&& fn) {
  try {
    fn();
  } catch (const vyre::Error& e) {
    return e.code();
  }
  return VYRE_OK;
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, "no '", from, "' in the certificate text");
  return text.replace(at, from.size(), to);
}

fs::path temp_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("vyre-cert-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A signing key and a trusted-keys directory that trusts it.
struct Signer {
  vyre::SigningKey key = vyre::SigningKey::generate();
  vyre::TrustedKeys trusted;

  explicit Signer(const fs::path& dir) {
    vyre::write_public_key(key.public_key(), dir / "trusted" / "signer.pem");
    trusted = vyre::load_trusted_keys(dir / "trusted");
    REQUIRE(trusted.keys.size() == 1);
  }
  vyre::Certificate signed_(vyre::Certificate c) const {
    vyre::sign_certificate(c, key);
    return c;
  }
};

// The code signature_problem gives, or nullopt when the signature is trusted.
std::optional<vyre::CertificateRejection> signature_code(const vyre::Certificate& c, const vyre::TrustedKeys& t) {
  const auto problem = vyre::signature_problem(c, t);
  return problem ? std::optional(problem->code) : std::nullopt;
}

mode_t mode_of(const fs::path& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 0777;
}


}  // namespace

TEST_CASE("a certificate round trips through JSON exactly") {
  const vyre::Certificate c = sample();
  CHECK(c.summary.pass == 1);
  CHECK(c.summary.fail == 1);
  CHECK(c.summary.unsupported == 1);
  const std::string text = vyre::certificate_to_json(c);
  CHECK(text.find("\"schema\": \"vyre-conformance-certificate/1\"") != std::string::npos);
  CHECK(text.find("\"digest\"") != std::string::npos);
  const vyre::Certificate back = vyre::certificate_from_json(text);
  CHECK(back == c);
  CHECK(vyre::certificate_to_json(back) == text);

  vyre::Certificate cpu = c;
  cpu.device = vyre::CertDevice{};
  const std::string cpu_text = vyre::certificate_to_json(cpu);
  CHECK(cpu_text.find("\"device\": \"cpu\"") != std::string::npos);
  CHECK(vyre::certificate_from_json(cpu_text).device == vyre::CertDevice{});
}

TEST_CASE("a tampered certificate is rejected") {
  const std::string text = vyre::certificate_to_json(sample());
  auto rejects = [](const std::string& t) {
    CHECK_THROWS_AS(vyre::certificate_from_json(t), vyre::Error);
  };
  // A failing op turned into a pass (with or without fixing up the summary).
  rejects(replace_once(text, "\"status\": \"fail\",\n      \"cases\": 1808", "\"status\": \"pass\",\n      \"cases\": 1808"));
  rejects(replace_once(text, "\"seed\": 18446744073709551600", "\"seed\": 1"));
  rejects(replace_once(text, "\"max_ulp\": 10", "\"max_ulp\": 1"));
  rejects(replace_once(text, std::string(64, 'a'), std::string(64, 'b')));
  rejects(replace_once(text, "\"digest\": \"", "\"digest\": \"0"));
  rejects(replace_once(text, "\"schema\": \"vyre-conformance-certificate/1\"", "\"schema\": \"other/1\""));
  rejects(text.substr(0, text.size() / 2));
  rejects("[]");
  try {
    vyre::certificate_from_json(replace_once(text, "\"seed\": 18446744073709551600", "\"seed\": 2"));
  } catch (const vyre::Error& e) {
    CHECK(e.code() == VYRE_ERR_DECODE);
    CHECK(std::string(e.what()).find("modified") != std::string::npos);
    CHECK(std::string(e.what()).find("Fix:") != std::string::npos);
  }
}

TEST_CASE("a resealed certificate that claims more than its entries is still rejected") {
  // Someone recomputes the digest after editing: the consistency checks still hold the line.
  vyre::Certificate c = sample();
  c.summary.pass = 3;  // summary disagrees with the entries
  CHECK_THROWS_AS(vyre::certificate_from_json(vyre::certificate_to_json(c)), vyre::Error);
  c = sample();
  c.ops[0].cases = 0;  // a pass that ran nothing
  CHECK_THROWS_AS(vyre::certificate_from_json(vyre::certificate_to_json(c)), vyre::Error);
  c = sample();
  c.ops[1].first_failure.reset();  // a fail without its evidence
  c.ops[1].exhaustive.reset();
  CHECK_THROWS_AS(vyre::certificate_from_json(vyre::certificate_to_json(c)), vyre::Error);
  c = sample();
  c.ops[0].op = "bin.frobnicate.u32";  // not a catalog op
  CHECK_THROWS_AS(vyre::certificate_from_json(vyre::certificate_to_json(c)), vyre::Error);
  c = sample();
  c.ops.push_back(c.ops[0]);  // an op twice
  c.summary = vyre::summarize(c.ops);
  CHECK_THROWS_AS(vyre::certificate_from_json(vyre::certificate_to_json(c)), vyre::Error);
  c = sample();
  c.ops[0].status = vyre::CertStatus::Lowered;  // an offline status in a differential run
  c.summary = vyre::summarize(c.ops);
  CHECK_THROWS_AS(vyre::certificate_from_json(vyre::certificate_to_json(c)), vyre::Error);
}

TEST_CASE("certificates are written atomically and read back from a directory") {
  const fs::path dir = temp_dir("write");
  const vyre::Certificate c = sample();
  const fs::path file = vyre::write_certificate(c, dir / "nested");
  CHECK(file.filename() == "cuda-nvidia-h100-80gb-hbm3-sm_90.json");
  CHECK(fs::exists(file));
  CHECK_FALSE(fs::exists(file.string() + ".tmp"));
  CHECK(vyre::read_certificate(file) == c);
  std::ofstream(dir / "nested" / "broken.json") << "{not json";
  const auto loaded = vyre::load_certificates(dir / "nested");
  REQUIRE(loaded.size() == 2);
  CHECK_FALSE(loaded[0].certificate);  // broken.json sorts first
  CHECK(loaded[0].error.find("broken.json") != std::string::npos);
  CHECK(loaded[1].certificate);
  CHECK_THROWS_AS(vyre::read_certificate(dir / "missing.json"), vyre::Error);
  vyre::Certificate cpu = c;
  cpu.backend_id = "reference_cpu";
  cpu.device = {};
  CHECK(vyre::certificate_file_name(cpu) == "reference_cpu-cpu.json");
  fs::remove_all(dir);
}

TEST_CASE("a certificate is accepted only for the same plugin file and device") {
  const fs::path dir = temp_dir("match");
  const Signer signer(dir);
  const fs::path plugin = dir / "libvyre_cuda.so";
  std::ofstream(plugin, std::ios::binary) << "plugin bytes v1";
  vyre::Certificate c = sample();
  c.plugin_path = plugin.string();
  c.plugin_sha256 = vyre::sha256_file_hex(plugin);
  vyre::write_certificate(signer.signed_(c), dir / "certs");

  vyre::CertificateSubject subject{"cuda", vyre::sha256_file_hex(plugin), gpu()};
  CHECK_FALSE(vyre::certificate_mismatch(c, subject));
  const auto accepted = vyre::choose_certificate(dir / "certs", subject, signer.trusted);
  REQUIRE(accepted.accepted());
  CHECK(accepted.file.filename() == "cuda-nvidia-h100-80gb-hbm3-sm_90.json");
  CHECK(accepted.ops == std::vector<std::string>{"bin.add.u32"});  // only passing ops
  CHECK(accepted.key_id == signer.key.public_key().id());

  std::ofstream(plugin, std::ios::binary | std::ios::app) << "patched";
  subject.plugin_sha256 = vyre::sha256_file_hex(plugin);
  const auto changed = vyre::certificate_mismatch(c, subject);
  REQUIRE(changed);
  CHECK(changed->code == vyre::CertificateRejection::other_plugin);
  const auto rejected = vyre::choose_certificate(dir / "certs", subject, signer.trusted);
  CHECK_FALSE(rejected.accepted());
  CHECK(rejected.ops.empty());
  REQUIRE(rejected.rejections.size() == 1);
  CHECK(rejected.rejections[0].code == vyre::CertificateRejection::other_plugin);
  CHECK(rejected.rejections[0].reason.find("Fix:") != std::string::npos);

  subject.plugin_sha256 = c.plugin_sha256;
  subject.device.driver_version = 12040;
  CHECK(vyre::certificate_mismatch(c, subject)->code == vyre::CertificateRejection::other_device);
  subject.device = gpu();
  c.mode = "offline";
  CHECK(vyre::certificate_mismatch(c, subject)->code == vyre::CertificateRejection::offline_only);
  c.mode = "differential";
  c.catalog_hash = std::string(64, '0');
  CHECK(vyre::certificate_mismatch(c, subject)->code == vyre::CertificateRejection::other_catalog);
  // Another backend's certificates are not this backend's business: skipped, not listed.
  subject.backend_id = "other";
  const auto other = vyre::choose_certificate(dir / "certs", subject, signer.trusted);
  CHECK_FALSE(other.accepted());
  CHECK(other.rejections.empty());
  fs::remove_all(dir);
}

TEST_CASE("a signed certificate round trips; the signature covers the canonical bytes") {
  const fs::path dir = temp_dir("signed");
  const Signer signer(dir);
  const vyre::Certificate c = signer.signed_(sample());
  REQUIRE(c.signature.has_value());
  CHECK(c.signature->algorithm == "ed25519");
  CHECK(c.signature->key_id == signer.key.public_key().id());
  CHECK(c.signature->value.size() == 2 * vyre::kEd25519SignatureBytes);
  const std::string text = vyre::certificate_to_json(c);
  CHECK(text.find("\"signature\"") != std::string::npos);
  const vyre::Certificate back = vyre::certificate_from_json(text);
  CHECK(back == c);
  CHECK_FALSE(vyre::signature_problem(back, signer.trusted));
  const std::string canonical = vyre::certificate_canonical_bytes(c);
  CHECK(canonical.find("\"digest\"") == std::string::npos);
  CHECK(canonical.find("\"signature\"") == std::string::npos);
  CHECK(canonical == vyre::certificate_canonical_bytes(sample()));  // the signature is detached
  fs::remove_all(dir);
}

TEST_CASE("forged certificates are refused with their codes") {
  const fs::path dir = temp_dir("forged");
  const Signer signer(dir);
  const vyre::Certificate genuine = signer.signed_(sample());
  using vyre::CertificateRejection;
  // Each forgery is written and read back like a real file (the digest recomputed, as a forger
  // would), so only the signature stands between it and routing.
  auto round_trip = [](const vyre::Certificate& c) { return vyre::certificate_from_json(vyre::certificate_to_json(c)); };

  SUBCASE("a failing op flipped to pass") {
    vyre::Certificate f = genuine;
    f.ops[1].status = vyre::CertStatus::Pass;
    f.ops[1].exhaustive.reset();
    f.summary = vyre::summarize(f.ops);
    CHECK(signature_code(round_trip(f), signer.trusted) == CertificateRejection::bad_signature);
  }
  SUBCASE("another plugin's SHA-256") {
    vyre::Certificate f = genuine;
    f.plugin_sha256 = std::string(64, 'b');
    CHECK(signature_code(round_trip(f), signer.trusted) == CertificateRejection::bad_signature);
  }
  SUBCASE("the edits re-signed with a key nobody trusts") {
    vyre::Certificate f = genuine;
    f.ops[1].status = vyre::CertStatus::Pass;
    f.ops[1].exhaustive.reset();
    f.summary = vyre::summarize(f.ops);
    vyre::sign_certificate(f, vyre::SigningKey::generate());
    CHECK(signature_code(round_trip(f), signer.trusted) == CertificateRejection::untrusted_key);
  }
  SUBCASE("signed by an untrusted key that claims a trusted key's id") {
    vyre::Certificate f = genuine;
    vyre::sign_certificate(f, vyre::SigningKey::generate());
    f.signature->key_id = genuine.signature->key_id;
    CHECK(signature_code(round_trip(f), signer.trusted) == CertificateRejection::bad_signature);
  }
  SUBCASE("a truncated or damaged signature") {
    vyre::Certificate f = genuine;
    f.signature->value = f.signature->value.substr(0, 100);
    CHECK(signature_code(round_trip(f), signer.trusted) == CertificateRejection::bad_signature);
    f.signature->value = genuine.signature->value.substr(0, 127) + "x";
    CHECK(signature_code(round_trip(f), signer.trusted) == CertificateRejection::bad_signature);
    f.signature->value = genuine.signature->value;
    f.signature->value[0] = f.signature->value[0] == '0' ? '1' : '0';
    CHECK(signature_code(round_trip(f), signer.trusted) == CertificateRejection::bad_signature);
  }
  SUBCASE("unsigned, or another algorithm") {
    vyre::Certificate f = genuine;
    f.signature.reset();
    CHECK(signature_code(round_trip(f), signer.trusted) == CertificateRejection::not_signed);
    f = genuine;
    f.signature->algorithm = "none";
    CHECK(signature_code(round_trip(f), signer.trusted) == CertificateRejection::untrusted_key);
  }
  SUBCASE("an empty trust store trusts nothing") {
    CHECK(signature_code(genuine, vyre::load_trusted_keys(dir / "no-such-dir")) == CertificateRejection::untrusted_key);
  }
  SUBCASE("in a certificate directory: only the genuine one is accepted, the rest listed with codes") {
    vyre::Certificate flipped = genuine;
    flipped.ops[1].status = vyre::CertStatus::Pass;
    flipped.ops[1].exhaustive.reset();
    flipped.summary = vyre::summarize(flipped.ops);
    vyre::Certificate unsigned_ = genuine;
    unsigned_.signature.reset();
    const fs::path certs = dir / "certs";
    fs::create_directories(certs);
    std::ofstream(certs / "a-flipped.json") << vyre::certificate_to_json(flipped);
    std::ofstream(certs / "b-unsigned.json") << vyre::certificate_to_json(unsigned_);
    const std::string text = vyre::certificate_to_json(genuine);
    std::ofstream(certs / "c-truncated.json") << text.substr(0, text.size() - 40);
    std::ofstream(certs / "d-genuine.json") << text;
    const vyre::CertificateSubject subject{"cuda", genuine.plugin_sha256, gpu()};
    const auto choice = vyre::choose_certificate(certs, subject, signer.trusted);
    REQUIRE(choice.accepted());
    CHECK(choice.file.filename() == "d-genuine.json");
    REQUIRE(choice.rejections.size() == 3);
    CHECK(choice.rejections[0].code == CertificateRejection::bad_signature);
    CHECK(choice.rejections[1].code == CertificateRejection::not_signed);
    CHECK(choice.rejections[2].code == CertificateRejection::unreadable);
    CHECK(vyre::certificate_rejection_name(choice.rejections[0].code) == "bad_signature");
  }
  fs::remove_all(dir);
}

TEST_CASE("a certificate that is not a regular file is refused without reading it") {
  const fs::path dir = temp_dir("fifo");
  REQUIRE(::mkfifo((dir / "hang.json").c_str(), 0600) == 0);  // reading it would block forever
  CHECK(testing_code([&] { vyre::read_certificate(dir / "hang.json"); }) == VYRE_ERR_IO);
  const auto choice = vyre::choose_certificate(dir, {"cuda", std::string(64, 'a'), gpu()}, vyre::TrustedKeys{});
  REQUIRE(choice.rejections.size() == 1);
  CHECK(choice.rejections[0].code == vyre::CertificateRejection::unreadable);
  fs::remove_all(dir);
}

TEST_CASE("a signing key is created once, owner-only, and reused; a readable one is refused") {
  const fs::path dir = temp_dir("keys");
  const fs::path file = dir / "config" / "keys" / "certificate-signing.pem";
  bool created = false;
  const vyre::SigningKey first = vyre::SigningKey::load_or_create(file, &created);
  CHECK(created);
  CHECK(mode_of(file) == 0600);
  CHECK(mode_of(file.parent_path()) == 0700);
  CHECK(vyre::read_public_key(vyre::public_key_file_for(file)) == first.public_key());
  CHECK(vyre::public_key_file_for(file).filename() == "certificate-signing.pub.pem");
  const vyre::SigningKey again = vyre::SigningKey::load_or_create(file, &created);
  CHECK_FALSE(created);
  CHECK(again.public_key() == first.public_key());
  const auto signature = again.sign("bytes");
  CHECK(vyre::verify_signature(first.public_key(), "bytes", signature));
  CHECK_FALSE(vyre::verify_signature(first.public_key(), "bytes!", signature));

  ::chmod(file.c_str(), 0644);
  try {
    vyre::SigningKey::load(file);
    FAIL("a signing key readable by others was used");
  } catch (const vyre::Error& e) {
    CHECK(e.code() == VYRE_ERR_IO);
    CHECK(std::string(e.what()).find("chmod 600") != std::string::npos);
  }
  ::chmod(file.c_str(), 0600);
  std::ofstream(dir / "not-a-key.pem") << "-----BEGIN PRIVATE KEY-----\ngarbage\n-----END PRIVATE KEY-----\n";
  ::chmod((dir / "not-a-key.pem").c_str(), 0600);
  CHECK(testing_code([&] { vyre::SigningKey::load(dir / "not-a-key.pem"); }) == VYRE_ERR_DECODE);
  fs::remove_all(dir);
}

TEST_CASE("the trusted-keys directory: public keys only, and ignored when others can write it") {
  const fs::path dir = temp_dir("trust");
  const vyre::SigningKey key = vyre::SigningKey::generate();
  vyre::write_public_key(key.public_key(), dir / "trusted" / "a.pem");
  std::ofstream(dir / "trusted" / "b.pem") << "not a key";
  std::ofstream(dir / "trusted" / "c.txt") << "ignored: not *.pem";
  vyre::TrustedKeys trusted = vyre::load_trusted_keys(dir / "trusted");
  REQUIRE(trusted.keys.size() == 1);
  CHECK(trusted.find(key.public_key().id()) != nullptr);
  REQUIRE(trusted.problems.size() == 1);
  CHECK(trusted.problems[0].find("b.pem") != std::string::npos);

  ::chmod((dir / "trusted" / "a.pem").c_str(), 0666);
  CHECK(vyre::load_trusted_keys(dir / "trusted").keys.empty());
  ::chmod((dir / "trusted" / "a.pem").c_str(), 0644);
  ::chmod((dir / "trusted").c_str(), 0777);
  trusted = vyre::load_trusted_keys(dir / "trusted");
  CHECK(trusted.keys.empty());
  REQUIRE_FALSE(trusted.problems.empty());
  CHECK(trusted.problems[0].find("writable by group or others") != std::string::npos);
  ::chmod((dir / "trusted").c_str(), 0755);
  fs::remove_all(dir);
}

TEST_CASE("default key locations follow XDG_CONFIG_HOME and the VYRE_* overrides") {
  ScopedEnv xdg("XDG_CONFIG_HOME", "/tmp/vyre-xdg");
  ScopedEnv key("VYRE_SIGNING_KEY", nullptr);
  ScopedEnv trusted("VYRE_TRUSTED_KEYS", nullptr);
  CHECK(vyre::default_signing_key_file() == "/tmp/vyre-xdg/vyre/keys/certificate-signing.pem");
  CHECK(vyre::default_trusted_keys_dir() == "/tmp/vyre-xdg/vyre/trusted-keys");
  {
    ScopedEnv relative("XDG_CONFIG_HOME", "relative/dir");  // not absolute: ignored, as XDG says
    ScopedEnv home("HOME", "/home/someone");
    CHECK(vyre::default_trusted_keys_dir() == "/home/someone/.config/vyre/trusted-keys");
  }
  ScopedEnv key2("VYRE_SIGNING_KEY", "/keys/mine.pem");
  ScopedEnv trusted2("VYRE_TRUSTED_KEYS", "/keys/trusted");
  CHECK(vyre::default_signing_key_file() == "/keys/mine.pem");
  CHECK(vyre::default_trusted_keys_dir() == "/keys/trusted");
}

TEST_CASE("device_from_profile records name, compute capability, driver and target") {
  vyre_device_profile p{};
  p.kind = VYRE_DEVICE_KIND_GPU;
  std::snprintf(p.name, sizeof p.name, "NVIDIA H200");
  std::snprintf(p.target, sizeof p.target, "sm_90");
  p.compute_major = 9;
  p.compute_minor = 0;
  p.driver_version = 13000;
  CHECK(vyre::device_from_profile(p) == vyre::CertDevice{"gpu", "NVIDIA H200", "9.0", 13000, "sm_90"});
  p.kind = VYRE_DEVICE_KIND_CPU;  // a CPU device behind a driver (lavapipe) keeps its name
  CHECK(vyre::device_from_profile(p) == vyre::CertDevice{"cpu", "NVIDIA H200", "9.0", 13000, "sm_90"});
  std::snprintf(p.name, sizeof p.name, "cpu");  // the host CPU of a CPU backend
  CHECK(vyre::device_from_profile(p) == vyre::CertDevice{});
}
