// An emitted launcher/ builds on its own with cmake and a C++ compiler, with nothing from CUDA: the
// build runs with a PATH and environment stripped of every CUDA location, and the sources include no
// CUDA header. Exits 77 (skipped) only when cmake or the C++ compiler is missing.
#include <doctest/doctest.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <regex>

#include "aot/aot_emit.hpp"
#include "aot_test_support.hpp"
#include "errors.hpp"
#include "vyre/json.hpp"

namespace fs = std::filesystem;
using aot_test::quote;

namespace {

bool tool_exists(const char* path) { return path[0] != '\0' && fs::exists(path); }

const std::string kGenerator = [] {
  std::string generator = aot_test::cmake_generator_args();
  if (tool_exists(VYRE_CMAKE_COMMAND) && tool_exists(VYRE_CXX_COMPILER) && !generator.empty()) return generator;
  std::printf(
      "SKIP: cmake (%s), the C++ compiler (%s) or a build tool (ninja, make) is missing; the launcher build "
      "cannot be checked here\n",
      VYRE_CMAKE_COMMAND, VYRE_CXX_COMPILER);
  std::exit(77);
}();

// A minimal environment: no CUDA in PATH, no CUDA_HOME/CUDA_PATH, no LD_LIBRARY_PATH.
std::string clean_env() {
  const char* home = std::getenv("HOME");
  return std::string("env -i PATH=/usr/bin:/bin HOME=") + quote(home != nullptr ? home : "/tmp") + " ";
}

}  // namespace

TEST_CASE("the emitted launcher sources include nothing from CUDA") {
  const vyre::Program program = vyre::load_program_file(fs::path(VYRE_SOURCE_DIR) / "examples" / "saxpy.json");
  const auto files = aot_test::emit_in_process(program);
  const std::regex cuda_include(R"(#\s*include\s*[<"](cuda\.h|cuda_runtime[a-z_]*\.h|nvrtc\.h|cudaTypedefs\.h)[>"])");
  int launcher_files = 0;
  for (const auto& file : files) {
    if (file.name.rfind("launcher/", 0) != 0) continue;
    ++launcher_files;
    const std::string text(file.data.begin(), file.data.end());
    CAPTURE(file.name);
    CHECK_FALSE(std::regex_search(text, cuda_include));
    CHECK(text.find("find_package(CUDA") == std::string::npos);
    CHECK(text.find("CUDAToolkit") == std::string::npos);
  }
  CHECK(launcher_files >= 10);
  CHECK(aot_test::find_file(files, "launcher/CMakeLists.txt") != nullptr);
  CHECK(aot_test::find_file(files, "launcher/main.cpp") != nullptr);
}

TEST_CASE("an emitted launcher/ configures and builds with cmake, and runs its bundle") {
  const fs::path dir = aot_test::fresh_dir("launcher_build");
  const vyre::Program program = vyre::load_program_file(fs::path(VYRE_SOURCE_DIR) / "examples" / "xor.json");
  aot_test::write_files(aot_test::emit_in_process(program), dir / "bundle");
  const fs::path source = dir / "bundle" / "launcher";
  const fs::path build = dir / "build";
  auto p = aot_test::run(clean_env() + quote(VYRE_CMAKE_COMMAND) + " -S " + quote(source.string()) + " -B " +
                         quote(build.string()) + kGenerator + " -DCMAKE_CXX_COMPILER=" + quote(VYRE_CXX_COMPILER) +
                         " -DCMAKE_CXX_FLAGS=-Werror");
  REQUIRE_MESSAGE(p.exit_code == 0, p.out << p.err);
  p = aot_test::run(clean_env() + quote(VYRE_CMAKE_COMMAND) + " --build " + quote(build.string()) + " -j1");
  REQUIRE_MESSAGE(p.exit_code == 0, p.out << p.err);
  const fs::path launcher = build / "vyre_aot_launcher";
  REQUIRE(fs::exists(launcher));

  // With no argument the built launcher runs the bundle it was built from: the missing inputs are
  // reported before any device work.
  p = aot_test::run(quote(launcher.string()));
  CHECK(p.exit_code == 1);
  CHECK(p.err_has("input buffer \"a\""));
  p = aot_test::run(quote(launcher.string()) + " --help");
  CHECK(p.exit_code == 0);
  CHECK(p.out_has("VYRE_CUDA_DEVICE_ORDINAL"));

  std::string ins;
  for (const auto& [name, bytes] : aot_test::example_inputs(program, 5)) {
    aot_test::write_bytes(dir / (name + ".bin"), bytes);
    ins += " --in " + name + "=" + quote((dir / (name + ".bin")).string());
  }
  // The built launcher refuses a linked outputs/ before the driver, as vyre-launch does.
  fs::create_directory(dir / "elsewhere");
  fs::create_directory_symlink(dir / "elsewhere", dir / "bundle" / "outputs");
  p = aot_test::run(quote(launcher.string()) + ins);
  CHECK(p.exit_code == 1);
  CHECK(p.err_has("outputs\" is a symbolic link"));
  fs::remove(dir / "bundle" / "outputs");

  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver != nullptr) {
    dlclose(driver);
    return;  // a driver is here: test_aot_gpu runs the built launcher
  }
  p = aot_test::run(quote(launcher.string()) + ins);
  CHECK(p.exit_code == vyre_launch::kExitNoDevice);
  CHECK(p.err_has("cannot load the CUDA driver libcuda.so.1"));
}
