// libvyre_cuda.so on any machine: it loads and registers without a driver, declares valid catalog
// op ids and its capabilities, and create() fails cleanly (VYRE_ERR_NO_DEVICE with a Fix) where
// CUDA cannot run. The failure paths are forced deterministically through VYRE_CUDA_DRIVER_LIBRARY.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>

#include "gpu_support.hpp"  // ScopedEnv only (header-only)
#include "plugin_loader.hpp"
#include "vyre/ops.hpp"

namespace {

using vyre::cudatest::LoadedPlugin;
using vyre::cudatest::ScopedEnv;

const LoadedPlugin& cuda_plugin() {
  static const LoadedPlugin plugin = vyre::cudatest::load_plugin(vyre::cudatest::plugin_path("cuda"));
  return plugin;
}

struct CreateResult {
  vyre_status status = VYRE_OK;
  std::string message;
};

// Create (and destroy) an instance with `options` (null: defaults).
CreateResult try_create(const vyre_create_options* options) {
  const vyre_backend_fns& fns = *cuda_plugin().fns;
  vyre_backend* backend = nullptr;
  vyre_error* error = nullptr;
  CreateResult result;
  result.status = fns.create(options, &backend, &error);
  if (error != nullptr) {
    result.message = error->message != nullptr ? error->message : "";
    fns.error_release(error);
  }
  if (result.status == VYRE_OK) {
    CHECK(backend != nullptr);
    fns.destroy(backend);
  } else {
    CHECK(backend == nullptr);
  }
  return result;
}

void check_fix(const std::string& message) {
  INFO("message: " << message);
  const auto fix = message.find("Fix: ");
  REQUIRE(fix != std::string::npos);
  CHECK(message.size() > fix + 10);  // the fix says something
}

}  // namespace

TEST_CASE("the cuda plugin registers without a driver") {
  ScopedEnv no_driver("VYRE_CUDA_DRIVER_LIBRARY", "/nonexistent/libcuda.so.1");
  const LoadedPlugin& plugin = cuda_plugin();
  INFO("failure: " << plugin.failure);
  REQUIRE(plugin.status == VYRE_OK);
  CHECK(plugin.id == "cuda");
  CHECK(plugin.rank == 5);
  REQUIRE(plugin.fns != nullptr);
  CHECK(plugin.fns->struct_size >= VYRE_BACKEND_FNS_V1_0_SIZE);

  const std::uint64_t runtime_caps = VYRE_CAP_DISPATCH | VYRE_CAP_ASYNC | VYRE_CAP_TIMED |
                                     VYRE_CAP_RESIDENT | VYRE_CAP_SEQUENCE |
                                     VYRE_CAP_COMPILED_PIPELINE | VYRE_CAP_GRAPH_REPLAY |
                                     VYRE_CAP_EXTERNAL_MEMORY;
  CHECK((plugin.capabilities & runtime_caps) == runtime_caps);
  CHECK((plugin.capabilities & VYRE_CAP_REFERENCE_ORACLE) == 0);
  CHECK((plugin.capabilities & ~VYRE_CAP_ALL_V1_1) == 0);
}

TEST_CASE("every declared op is a catalog op, declared once, and capabilities follow the ops") {
  const LoadedPlugin& plugin = cuda_plugin();
  REQUIRE(plugin.status == VYRE_OK);
  REQUIRE(!plugin.op_ids.empty());
  std::set<std::string> seen;
  bool f16 = false, bf16 = false, f64 = false, int64 = false, subgroup = false, grid_sync = false,
       atomics = false;
  for (const std::string& id : plugin.op_ids) {
    INFO("op id: " << id);
    const vyre::OpInfo* op = vyre::find_op(id);
    CHECK(op != nullptr);
    CHECK(seen.insert(id).second);
    auto has = [&](std::string_view part) {
      std::string_view rest = id;
      while (true) {
        const std::size_t dot = rest.find('.');
        if (rest.substr(0, dot) == part) return true;
        if (dot == std::string_view::npos) return false;
        rest.remove_prefix(dot + 1);
      }
    };
    f16 |= has("f16");
    bf16 |= has("bf16");
    f64 |= has("f64");
    int64 |= has("u64") || has("i64");
    subgroup |= id.starts_with("subgroup.");
    grid_sync |= id == "node.grid_sync";
    atomics |= id.starts_with("atomic.");
  }
  CHECK(((plugin.capabilities & VYRE_CAP_F16) != 0) == f16);
  CHECK(((plugin.capabilities & VYRE_CAP_BF16) != 0) == bf16);
  CHECK(((plugin.capabilities & VYRE_CAP_F64) != 0) == f64);
  CHECK(((plugin.capabilities & VYRE_CAP_INT64) != 0) == int64);
  CHECK(((plugin.capabilities & VYRE_CAP_SUBGROUP) != 0) == subgroup);
  CHECK(((plugin.capabilities & VYRE_CAP_GRID_SYNC) != 0) == grid_sync);
  CHECK(((plugin.capabilities & VYRE_CAP_ATOMICS) != 0) == atomics);
  MESSAGE("cuda declares " << plugin.op_ids.size() << " of " << vyre::op_catalog().size() << " catalog ops");
}

TEST_CASE("every slot of the function table is set") {
  const vyre_backend_fns& f = *cuda_plugin().fns;
  const void* slots[] = {
      reinterpret_cast<const void*>(f.error_release), reinterpret_cast<const void*>(f.create),
      reinterpret_cast<const void*>(f.destroy), reinterpret_cast<const void*>(f.device_profile),
      reinterpret_cast<const void*>(f.program_compile), reinterpret_cast<const void*>(f.program_release),
      reinterpret_cast<const void*>(f.dispatch), reinterpret_cast<const void*>(f.dispatch_async),
      reinterpret_cast<const void*>(f.dispatch_timed), reinterpret_cast<const void*>(f.pending_poll),
      reinterpret_cast<const void*>(f.pending_wait), reinterpret_cast<const void*>(f.pending_release),
      reinterpret_cast<const void*>(f.resident_alloc), reinterpret_cast<const void*>(f.resident_free),
      reinterpret_cast<const void*>(f.resident_byte_len), reinterpret_cast<const void*>(f.resident_upload),
      reinterpret_cast<const void*>(f.resident_download), reinterpret_cast<const void*>(f.dispatch_resident),
      reinterpret_cast<const void*>(f.dispatch_resident_timed), reinterpret_cast<const void*>(f.sequence_run),
      reinterpret_cast<const void*>(f.pipeline_create), reinterpret_cast<const void*>(f.pipeline_dispatch),
      reinterpret_cast<const void*>(f.pipeline_release), reinterpret_cast<const void*>(f.aot_emit),
      reinterpret_cast<const void*>(f.aot_release), reinterpret_cast<const void*>(f.metrics_snapshot),
      reinterpret_cast<const void*>(f.metrics_reset)};
  for (std::size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); ++i) {
    INFO("slot " << i);
    CHECK(slots[i] != nullptr);
  }
}

TEST_CASE("create fails with NO_DEVICE and a Fix when the driver library is missing") {
  ScopedEnv missing("VYRE_CUDA_DRIVER_LIBRARY", "/nonexistent/libcuda.so.1");
  ScopedEnv ordinal("VYRE_CUDA_DEVICE_ORDINAL", nullptr);
  const CreateResult result = try_create(nullptr);
  CHECK(result.status == VYRE_ERR_NO_DEVICE);
  CHECK(result.message.find("/nonexistent/libcuda.so.1") != std::string::npos);
  check_fix(result.message);
}

TEST_CASE("a malformed VYRE_CUDA_DEVICE_ORDINAL is rejected before the driver is touched") {
  ScopedEnv missing("VYRE_CUDA_DRIVER_LIBRARY", "/nonexistent/libcuda.so.1");
  for (const char* bad : {"abc", "-1", "1x", "99999999999", " 0"}) {
    ScopedEnv ordinal("VYRE_CUDA_DEVICE_ORDINAL", bad);
    const CreateResult result = try_create(nullptr);
    INFO("VYRE_CUDA_DEVICE_ORDINAL=" << bad << " -> " << result.message);
    CHECK(result.status == VYRE_ERR_INVALID_ARGUMENT);
    CHECK(result.message.find("VYRE_CUDA_DEVICE_ORDINAL") != std::string::npos);
    check_fix(result.message);
  }
}

TEST_CASE("a device ordinal that names no device fails with NO_DEVICE") {
  ScopedEnv lib("VYRE_CUDA_DRIVER_LIBRARY", nullptr);
  ScopedEnv ordinal("VYRE_CUDA_DEVICE_ORDINAL", "4096");
  const CreateResult result = try_create(nullptr);
  INFO(result.message);
  CHECK(result.status == VYRE_ERR_NO_DEVICE);  // no driver here, or no device 4096 on a GPU machine
  check_fix(result.message);
}

TEST_CASE("create with the defaults either works or fails with NO_DEVICE and a Fix") {
  ScopedEnv lib("VYRE_CUDA_DRIVER_LIBRARY", nullptr);
  ScopedEnv ordinal("VYRE_CUDA_DEVICE_ORDINAL", nullptr);
  vyre_create_options options{};
  options.struct_size = sizeof(options);
  options.device_ordinal = -1;
  const CreateResult result = try_create(&options);
  if (result.status == VYRE_OK) {
    MESSAGE("a CUDA device is present: create succeeded");
    return;
  }
  INFO(result.message);
  CHECK(result.status == VYRE_ERR_NO_DEVICE);
  check_fix(result.message);
}

// Last in the file: the stub carries the soname libcuda.so.1, so once it is loaded a later
// dlopen("libcuda.so.1") in this process would find it instead of a real driver.
TEST_CASE("create fails with NO_DEVICE naming the stub when pointed at the toolkit's stub driver") {
  std::string stub;
  for (const char* candidate : {"/usr/local/cuda/lib64/stubs/libcuda.so", "/usr/local/cuda/targets/x86_64-linux/lib/stubs/libcuda.so"}) {
    if (std::filesystem::exists(candidate)) {
      stub = candidate;
      break;
    }
  }
  if (stub.empty()) {
    MESSAGE("no CUDA toolkit stub libcuda.so here; skipping");
    return;
  }
  ScopedEnv lib("VYRE_CUDA_DRIVER_LIBRARY", stub.c_str());
  const CreateResult result = try_create(nullptr);
  CHECK(result.status == VYRE_ERR_NO_DEVICE);
  CHECK(result.message.find("stub") != std::string::npos);
  check_fix(result.message);
}
