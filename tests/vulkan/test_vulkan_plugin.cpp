// libvyre_vulkan.so on any machine: it registers without touching Vulkan, declares catalog ops and
// the capabilities they imply, and create() fails cleanly where Vulkan cannot run: no loader
// (VYRE_VULKAN_LOADER_LIBRARY pointing nowhere), a malformed or missing device ordinal.
#include <doctest/doctest.h>

#include <cstdlib>
#include <set>
#include <string>

#include "support/build_plugins.hpp"
#include "vulkan_support.hpp"
#include "vyre/error.hpp"
#include "vyre/ops.hpp"
#include "vyre/plugin_kit.hpp"

namespace {

using vyre::vulkantest::ScopedEnv;

const vyre::PluginInfo& vulkan_info() {
  for (const vyre::PluginInfo& p : vyre::test::build_plugin_registry().plugins())
    if (p.id == "vulkan") return p;
  FAIL("the vulkan plugin did not load from " VYRE_PLUGIN_BUILD_DIR);
  throw 0;
}

vyre_status create_status(std::string& message) {
  try {
    vyre::test::build_plugin_registry().create("vulkan");
  } catch (const vyre::Error& e) {
    message = e.what();
    return e.code();
  }
  return VYRE_OK;
}

}  // namespace

TEST_CASE("the vulkan plugin registers: id, rank, capabilities from its ops") {
  ScopedEnv no_loader("VYRE_VULKAN_LOADER_LIBRARY", "/nonexistent/libvulkan.so.1");
  const vyre::PluginInfo& p = vulkan_info();
  CHECK(p.rank == 20);
  const std::uint64_t runtime = VYRE_CAP_DISPATCH | VYRE_CAP_ASYNC | VYRE_CAP_TIMED | VYRE_CAP_RESIDENT |
                                VYRE_CAP_SEQUENCE | VYRE_CAP_COMPILED_PIPELINE;
  CHECK(p.capabilities == (runtime | vyre::kit::op_capabilities(p.op_ids)));
  CHECK((p.capabilities & (VYRE_CAP_AOT | VYRE_CAP_GRAPH_REPLAY | VYRE_CAP_REFERENCE_ORACLE)) == 0);
  std::set<std::string> seen;
  for (const std::string& id : p.op_ids) {
    INFO(id);
    CHECK(vyre::find_op(id) != nullptr);
    CHECK(seen.insert(id).second);
  }
  CHECK(seen.count("bin.add.u32") == 1);
  CHECK(seen.count("node.grid_sync") == 1);
}

TEST_CASE("without a Vulkan loader, create fails with VYRE_ERR_NO_DEVICE and a fix") {
  ScopedEnv no_loader("VYRE_VULKAN_LOADER_LIBRARY", "/nonexistent/libvulkan.so.1");
  std::string message;
  CHECK(create_status(message) == VYRE_ERR_NO_DEVICE);
  CHECK(message.find("/nonexistent/libvulkan.so.1") != std::string::npos);
  CHECK(message.find("Fix: ") != std::string::npos);
}

TEST_CASE("a library that is not a Vulkan loader is refused at create") {
  ScopedEnv not_loader("VYRE_VULKAN_LOADER_LIBRARY", "libc.so.6");
  std::string message;
  CHECK(create_status(message) == VYRE_ERR_NO_DEVICE);
  CHECK(message.find("vkGetInstanceProcAddr") != std::string::npos);
}

TEST_CASE("a malformed VYRE_VULKAN_DEVICE_ORDINAL is an invalid argument, before any device work") {
  ScopedEnv no_loader("VYRE_VULKAN_LOADER_LIBRARY", "/nonexistent/libvulkan.so.1");
  for (const char* bad : {"-1", "x", "1x", "99999999999"}) {
    ScopedEnv ordinal("VYRE_VULKAN_DEVICE_ORDINAL", bad);
    std::string message;
    INFO(bad);
    CHECK(create_status(message) == VYRE_ERR_INVALID_ARGUMENT);
  }
}
