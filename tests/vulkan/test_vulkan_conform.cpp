// vyre-conform --backend vulkan on this machine's Vulkan device (lavapipe in CI): it exits 0, and
// its certificate shows every op the plugin declares either passed, or unsupported because the
// device refused it at compile (e.g. subgroup ops on a device without 32-wide subgroups); none
// failed. The certificate is kept in <build>/conform-results/ for the CI log. On a device whose
// GLSL Fma the fma probe found unfused (lavapipe), fma declared fused anyway (the test hook
// VYRE_VULKAN_FMA_PROBE_TABLE=exact) fails conform. Exits 77 without a Vulkan device.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "vulkan_support.hpp"
#include "vyre/certificate.hpp"

namespace fs = std::filesystem;
namespace vt = vyre::vulkantest;

TEST_CASE("conform on this device: zero fails, every declared op passes or is refused by the device") {
  const auto vk = vt::vulkan();  // skips without a device
  const fs::path dir = fs::path(VYRE_BINARY_DIR) / "conform-results";
  fs::create_directories(dir);
  const std::string command = std::string(VYRE_BINARY_DIR) + "/bin/vyre-conform --plugins " + VYRE_PLUGIN_BUILD_DIR +
                              " --backend vulkan --no-progress --out " + dir.string() + " > " +
                              (dir / "vulkan-conform.log").string() + " 2>&1";
  const int status = std::system(command.c_str());
  INFO("log: " << (dir / "vulkan-conform.log").string());
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);

  const vyre::CertDevice device = vyre::device_from_profile(vk.device_profile());
  vyre::Certificate cert;
  bool found = false;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json" || !entry.path().filename().string().starts_with("vulkan-")) continue;
    vyre::Certificate c = vyre::read_certificate(entry.path());
    if (c.device != device) continue;
    cert = std::move(c);
    found = true;
  }
  REQUIRE(found);
  CHECK(cert.summary.fail == 0);
  const std::set<std::string> declared(vt::vulkan_ops().begin(), vt::vulkan_ops().end());
  std::size_t passed = 0;
  for (const vyre::CertOpEntry& op : cert.ops) {
    INFO(op.op << ": " << op.reason);
    if (op.status == vyre::CertStatus::Pass) {
      CHECK(declared.count(op.op) == 1);
      ++passed;
      continue;
    }
    CHECK(op.status == vyre::CertStatus::Unsupported);
    if (declared.count(op.op)) CHECK(op.reason.find("device refuses") != std::string::npos);
  }
  CHECK(passed > 300);
  for (const auto& surface : cert.surfaces) {
    INFO(surface.surface << ": " << surface.detail);
    CHECK(surface.status == vyre::CertStatus::Pass);
  }
  MESSAGE(passed << " ops pass on " << device.name);
}

TEST_CASE("conform is the judge of a probed fma: it fails a device whose GLSL Fma is unfused but declared fused") {
  const auto vk = vt::vulkan();  // skips without a device
  if (vt::metric(vk, "fma_probe_f32") != 2) {
    MESSAGE("the fma probe did not find GLSL Fma unfused here (fma_probe_f32 = " << vt::metric(vk, "fma_probe_f32")
                                                                                << "): nothing to misdeclare");
    return;
  }
  // VYRE_VULKAN_FMA_PROBE_TABLE=exact passes the probe on any device, so this unfused device
  // declares GLSL Fma as its fma: conform must fail it.
  const fs::path dir = fs::path(VYRE_BINARY_DIR) / "conform-results" / "misdeclared-fma";
  fs::create_directories(dir);
  const fs::path log = dir / "conform.log";
  const std::string command = "VYRE_VULKAN_FMA_PROBE_TABLE=exact " + std::string(VYRE_BINARY_DIR) +
                              "/bin/vyre-conform --plugins " + VYRE_PLUGIN_BUILD_DIR +
                              " --backend vulkan --no-progress --ops 'fma.*' --out " + dir.string() + " > " +
                              log.string() + " 2>&1";
  const int status = std::system(command.c_str());
  INFO("log: " << log.string());
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);  // a failure
  std::ifstream in(log);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("FAIL fma.f32 on vulkan") != std::string::npos);
}
