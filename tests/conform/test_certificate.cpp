// Certificates round trip through Boost.JSON and are rejected when tampered with, when the plugin
// file changed, or when they were made on another device.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "vyre/certificate.hpp"
#include "vyre/error.hpp"
#include "vyre/fingerprint.hpp"
#include "vyre/ops.hpp"

namespace fs = std::filesystem;

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
  const fs::path plugin = dir / "libvyre_cuda.so";
  std::ofstream(plugin, std::ios::binary) << "plugin bytes v1";
  vyre::Certificate c = sample();
  c.plugin_path = plugin.string();
  c.plugin_sha256 = vyre::sha256_file_hex(plugin);
  vyre::write_certificate(c, dir / "certs");

  vyre::CertificateSubject subject{"cuda", vyre::sha256_file_hex(plugin), gpu()};
  CHECK_FALSE(vyre::certificate_mismatch(c, subject));
  const auto accepted = vyre::choose_certificate(dir / "certs", subject);
  REQUIRE(accepted.accepted());
  CHECK(accepted.file.filename() == "cuda-nvidia-h100-80gb-hbm3-sm_90.json");
  CHECK(accepted.ops == std::vector<std::string>{"bin.add.u32"});  // only passing ops

  std::ofstream(plugin, std::ios::binary | std::ios::app) << "patched";
  subject.plugin_sha256 = vyre::sha256_file_hex(plugin);
  const auto changed = vyre::certificate_mismatch(c, subject);
  REQUIRE(changed);
  CHECK(changed->find("plugin file changed") != std::string::npos);
  const auto rejected = vyre::choose_certificate(dir / "certs", subject);
  CHECK_FALSE(rejected.accepted());
  CHECK(rejected.ops.empty());
  REQUIRE(rejected.rejections.size() == 1);
  CHECK(rejected.rejections[0].find("plugin file changed") != std::string::npos);

  subject.plugin_sha256 = c.plugin_sha256;
  subject.device.driver_version = 12040;
  CHECK(vyre::certificate_mismatch(c, subject)->find("device") != std::string::npos);
  subject.device = gpu();
  subject.backend_id = "other";
  CHECK(vyre::certificate_mismatch(c, subject));
  subject.backend_id = "cuda";
  c.mode = "offline";
  CHECK(vyre::certificate_mismatch(c, subject)->find("offline") != std::string::npos);
  c.mode = "differential";
  c.catalog_hash = std::string(64, '0');
  CHECK(vyre::certificate_mismatch(c, subject)->find("catalog") != std::string::npos);
  fs::remove_all(dir);
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
