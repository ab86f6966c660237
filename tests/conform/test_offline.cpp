// --offline lowers each op for the CUDA target through the plugin's AOT emit and assembles it with
// ptxas: statuses lowered / lowering_failed / unsupported, never pass; no device is touched.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "vyre/certificate.hpp"
#include "vyre/conform/runner.hpp"

namespace fs = std::filesystem;

TEST_CASE("offline lowering certifies lowered ops and never claims a pass") {
  ::setenv("VYRE_PTXAS", VYRE_PTXAS_PATH, 1);
  const fs::path out = fs::temp_directory_path() / ("vyre-conform-offline-" + std::to_string(::getpid()));
  fs::remove_all(out);
  std::ostringstream text;
  std::ostringstream errors;
  const int status = vyre::conform::run_cli(
      {"--plugins", VYRE_TEST_PLUGIN_DIR, "--backend", "ptx_aot", "--offline", "--target", "sm_90", "--ops",
       "bin.add.*", "--ops", "un.sin.f32", "--ops", "atomic.add.u32.workgroup", "--ops", "subgroup.ballot",
       "--ops", "node.grid_sync", "--ops", "load.f16", "--out", out.string(), "--jobs", "2", "--no-progress"},
      text, errors);
  INFO(text.str(), errors.str());
  const fs::path file = out / "ptx_aot-offline-sm_90.json";
  REQUIRE(fs::exists(file));
  const vyre::Certificate c = vyre::read_certificate(file);
  CHECK(c.mode == "offline");
  CHECK(c.device.kind == "offline");
  CHECK(c.device.target == "sm_90");
  CHECK(c.ops.size() == 11);
  CHECK(c.summary.pass == 0);
  CHECK(c.summary.fail == 0);
  CHECK(c.summary.lowered + c.summary.lowering_failed + c.summary.unsupported == 11);
  CHECK(c.summary.lowered > 0);
  CHECK(status == (c.summary.lowering_failed == 0 ? 0 : 1));
  CHECK(vyre::certified_ops(c).empty());  // an offline certificate never routes anything
  fs::remove_all(out);
}

TEST_CASE("offline is unavailable, with a reason, for a backend without AOT emission") {
  std::ostringstream text;
  std::ostringstream errors;
  const int status = vyre::conform::run_cli({"--plugins", VYRE_TEST_PLUGIN_DIR, "--backend", "broken_ref", "--offline",
                                             "--ops", "bin.add.u32", "--no-progress", "--out",
                                             (fs::temp_directory_path() / "vyre-conform-offline-none").string()},
                                            text, errors);
  CHECK(status == 1);
  CHECK(errors.str().find("offline path is unavailable") != std::string::npos);
  CHECK(errors.str().find("Fix:") != std::string::npos);
}
