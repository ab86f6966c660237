// Which plugin is the reference oracle, and who may take a backend's id: vyre's own
// libvyre_reference_cpu.so is the pinned oracle (in the build tree, and in an installed layout
// through the vyre binary); a plugin that only claims the capability is an ordinary backend (no
// exemption from certificates, not the last resort); a same-id plugin from a --plugins directory
// replaces vyre's own only when the user allows it, and the replacement is logged.
#include <doctest/doctest.h>

#include <fmt/core.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_support.hpp"
#include "vyre/registry.hpp"

using namespace vyre;
using vyre::testing::LogRecorder;
using vyre::testing::ScopedEnv;
using vyre::testing::binary_program;
using vyre::testing::code_of;

namespace fs = std::filesystem;

namespace {

const fs::path kBuildPlugins = VYRE_PLUGIN_BUILD_DIR;
const fs::path kTestPlugins = VYRE_TEST_PLUGIN_DIR;
constexpr const char* kReference = "libvyre_reference_cpu.so";

fs::path work_dir() {
  const fs::path dir = fs::temp_directory_path() / fmt::format("vyre-trust-{}", ::getpid());
  fs::create_directories(dir);
  return dir;
}

// A directory holding a byte-for-byte copy of vyre's reference_cpu: it registers the id
// reference_cpu and claims the reference_oracle capability, but it is not the file vyre ships.
fs::path impostor_dir() {
  const fs::path dir = work_dir() / "impostor";
  fs::create_directories(dir);
  fs::copy_file(kBuildPlugins / kReference, dir / kReference, fs::copy_options::overwrite_existing);
  return dir;
}

RegistryOptions options_for(std::vector<fs::path> dirs, LogRecorder* log = nullptr) {
  RegistryOptions options;
  options.plugin_dirs = std::move(dirs);
  options.use_environment = false;
  options.use_default_dirs = false;
  if (log != nullptr) options.log = log->sink();
  return options;
}

struct RemoveWorkDir {
  ~RemoveWorkDir() {
    std::error_code ec;
    fs::remove_all(fs::temp_directory_path() / fmt::format("vyre-trust-{}", ::getpid()), ec);
  }
} remove_work_dir;

const RejectedPlugin* rejected(const Registry& registry, const fs::path& file) {
  for (const RejectedPlugin& r : registry.rejected())
    if (fs::weakly_canonical(r.path) == fs::weakly_canonical(file)) return &r;
  return nullptr;
}

}  // namespace

TEST_CASE("vyre's own reference_cpu is the pinned oracle; a copy elsewhere is an ordinary backend") {
  Registry own(options_for({kBuildPlugins}));
  REQUIRE(own.find("reference_cpu") != nullptr);
  CHECK(own.find("reference_cpu")->is_reference_oracle());

  LogRecorder log;
  Registry copy(options_for({impostor_dir()}, &log));
  const PluginInfo* impostor = copy.find("reference_cpu");
  REQUIRE(impostor != nullptr);
  CHECK(impostor->claims_reference_oracle());
  CHECK_FALSE(impostor->is_reference_oracle());
  CHECK(log.contains("claims the reference_oracle capability"));
  // No longer the last resort: it routes as an ordinary backend would, by rank.
  const Route route = copy.route(binary_program(BinOp::Add, 4));
  CHECK(route.reason.find("last resort") == std::string::npos);
}

TEST_CASE("a plugin claiming the oracle capability is not exempt from certificates; the pinned one is") {
  const fs::path empty_certs = work_dir() / "no-certs";
  fs::create_directories(empty_certs);
  RegistryOptions options = options_for({vyre::testing::test_oracle_file().parent_path()});
  options.certificate_dir = empty_certs;
  options.trusted_keys_dir = work_dir() / "no-keys";
  // t_oracle is the only one that declares bin.sub.u32 (t_nodev too, but it cannot run here).
  SUBCASE("pinned: routes without a certificate, as the last resort") {
    options.reference_oracle = vyre::testing::test_oracle_file();
    Registry registry(options);
    const Route route = registry.route(binary_program(BinOp::Sub, 4));
    CHECK(route.plugin->id == "t_oracle");
    CHECK(route.reason.find("last resort") != std::string::npos);
  }
  SUBCASE("not pinned: it needs a certificate like any other backend, and has none") {
    Registry registry(options);
    CHECK_FALSE(registry.find("t_oracle")->is_reference_oracle());
    CHECK(code_of([&] { registry.route(binary_program(BinOp::Sub, 4)); }) == VYRE_ERR_UNSUPPORTED);
  }
}

TEST_CASE("a --plugins backend with a shipped backend's id is rejected unless replacing is allowed") {
  const fs::path impostor = impostor_dir();
  SUBCASE("not allowed: vyre's own keeps the id, the other is rejected with a Fix") {
    Registry registry(options_for({impostor, kBuildPlugins}));  // the impostor is found first
    REQUIRE(registry.find("reference_cpu") != nullptr);
    CHECK(registry.find("reference_cpu")->path.parent_path() == fs::weakly_canonical(kBuildPlugins));
    CHECK(registry.find("reference_cpu")->is_reference_oracle());
    const RejectedPlugin* r = rejected(registry, impostor / kReference);
    REQUIRE(r != nullptr);
    CHECK(r->code == PluginRejection::duplicate_id);
    CHECK(r->reason.find("--replace-backend reference_cpu") != std::string::npos);
  }
  SUBCASE("allowed by option: the replacement wins, is logged, and is not the oracle") {
    LogRecorder log;
    RegistryOptions options = options_for({kBuildPlugins, impostor}, &log);  // whatever the order
    options.replace_backends = {"reference_cpu"};
    Registry registry(options);
    REQUIRE(registry.find("reference_cpu") != nullptr);
    CHECK(registry.find("reference_cpu")->path.parent_path() == fs::weakly_canonical(impostor));
    CHECK_FALSE(registry.find("reference_cpu")->is_reference_oracle());
    const RejectedPlugin* r = rejected(registry, kBuildPlugins / kReference);
    REQUIRE(r != nullptr);
    CHECK(r->code == PluginRejection::duplicate_id);
    CHECK(log.contains("replaces vyre's own"));
  }
  SUBCASE("allowed by VYRE_REPLACE_BACKENDS") {
    ScopedEnv replace("VYRE_REPLACE_BACKENDS", "cuda,reference_cpu");
    ScopedEnv path("VYRE_PLUGIN_PATH", nullptr);
    ScopedEnv verify("VYRE_VERIFY_PLUGINS", nullptr);
    ScopedEnv certs("VYRE_CERT_DIR", nullptr);
    RegistryOptions options = options_for({impostor, kBuildPlugins});
    options.use_environment = true;
    Registry registry(options);
    CHECK(registry.find("reference_cpu")->path.parent_path() == fs::weakly_canonical(impostor));
  }
  SUBCASE("two plugins from outside vyre's directories: the first found keeps the id") {
    Registry registry(options_for({kTestPlugins}));
    const RejectedPlugin* r = rejected(registry, kTestPlugins / "libvyre_t_dup.so");
    REQUIRE(r != nullptr);
    CHECK(r->code == PluginRejection::duplicate_id);
  }
}

// The installed layout (`cmake --install`, build tree hidden) is checked by tests/package/test_install.sh:
// the installed `vyre backends` shows the reference_cpu installed beside libvyre_registry as the pinned oracle.

