// Every seed and every crash input of the fuzz targets (fuzz/corpus/<target>/, and the minimized
// findings in fuzz/regressions/<target>/), replayed through the same harnesses the fuzzers run,
// built with the regular compiler: each input is accepted or rejected with the documented error,
// never a crash, an undocumented exception or a broken round trip.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "harness.hpp"

namespace fs = std::filesystem;

namespace {

constexpr const char* kTargets[] = {"wire", "json", "validate", "certificate", "aot_manifest", "dispatch"};

std::vector<std::uint8_t> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Replay {
  std::size_t files = 0;
  std::size_t accepted = 0;
};

Replay replay(const std::string& target, const fs::path& dir) {
  Replay r;
  if (!fs::is_directory(dir)) return r;
  const vyre::fuzz::Harness harness = vyre::fuzz::find_harness(target);
  const bool found = harness != nullptr;
  REQUIRE_MESSAGE(found, "no harness named " << target);
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    INFO("input: " << file.string());
    const std::vector<std::uint8_t> bytes = read_bytes(file);
    bool accepted = false;
    CHECK_NOTHROW(accepted = harness(bytes));
    r.accepted += accepted ? 1 : 0;
    ++r.files;
  }
  return r;
}

}  // namespace

TEST_CASE("every seed of every fuzz target is handled, and the seeds are mostly accepted") {
  for (const char* target : kTargets) {
    CAPTURE(target);
    const Replay r = replay(target, fs::path(VYRE_FUZZ_DIR) / "corpus" / target);
    CHECK(r.files > 0);
    CHECK(r.accepted * 2 >= r.files);  // seeds are valid inputs; a reader that refuses them is broken
  }
}

TEST_CASE("every minimized crash input is now handled") {
  for (const char* target : kTargets) {
    CAPTURE(target);
    replay(target, fs::path(VYRE_FUZZ_DIR) / "regressions" / target);
  }
}
