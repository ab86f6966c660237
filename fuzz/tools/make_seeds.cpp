// Writes the generated part of the seed corpora (fuzz/README.md): the examples as JSON and wire
// bytes, seeded random valid programs (tests/support/random_program.hpp) in both forms, and
// certificates that use every field. The AOT manifest seeds are bundles written by vyre-aot.
//
//   vyre_fuzz_seeds SOURCE_DIR OUT_DIR      # writes OUT_DIR/<target>/<name>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/random_program.hpp"
#include "vyre/certificate.hpp"
#include "vyre/json.hpp"
#include "vyre/ops.hpp"
#include "vyre/wire.hpp"

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kRandomPrograms = 48;

void write_file(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string wire_text(const vyre::Program& program) {
  const std::vector<std::uint8_t> wire = vyre::encode_wire(program);
  return std::string(wire.begin(), wire.end());
}

void write_program(const fs::path& out, const std::string& name, const vyre::Program& program) {
  const std::string json = vyre::to_json(program, false);
  const std::string wire = wire_text(program);
  write_file(out / "json" / (name + ".json"), json);
  write_file(out / "wire" / (name + ".bin"), wire);
  write_file(out / "validate" / (name + ".json"), json);
  write_file(out / "validate" / (name + ".bin"), wire);
  write_file(out / "dispatch" / (name + ".bin"), wire);
}

vyre::test::RandomProgramOptions small_options(std::uint64_t seed) {
  vyre::test::RandomProgramOptions options;
  options.max_statements = 3 + seed % 3;
  options.max_body_depth = 2 + seed % 2;
  options.max_expr_depth = 2 + seed % 3;
  return options;
}

vyre::CertFailure failure() {
  vyre::CertFailure f;
  f.test = "elementwise";
  f.case_index = 17;
  f.output = "out";
  f.element = 3;
  f.inputs = {"a = f32 1.5 (0x3fc00000)", "b = f32 -0 (0x80000000)"};
  f.expected = "f32 1.5 (0x3fc00000)";
  f.actual = "f32 1.5000001 (0x3fc00001)";
  f.ulp = 1;
  f.message = "mismatch";
  f.replay = "vyre-conform --backend x --op bin.add.f32 --case 17";
  return f;
}

vyre::Certificate certificate(bool gpu) {
  vyre::Certificate c;
  c.tool_version = "vyre-conform 0.1.0";
  c.abi_version = "1.0";
  c.backend_id = gpu ? "cuda" : "reference_cpu";
  c.backend_version = "0.1.0";
  c.plugin_path = "/usr/lib/vyre/plugins/libvyre_x.so";
  c.plugin_sha256 = std::string(64, 'a');
  if (gpu) c.device = {"gpu", "NVIDIA H100 80GB HBM3", "9.0", 13000, "sm_90"};
  c.reference_backend = "reference_cpu";
  c.seed = 42;
  c.random_lanes = 64;
  c.witness_cases = 100;
  c.random_cases = 200;
  c.catalog_hash = vyre::catalog_hash();
  c.timestamp = "2025-06-01T12:00:00Z";
  const auto& catalog = vyre::op_catalog();
  for (std::size_t i = 0; i < catalog.size() && i < 6; ++i) {
    vyre::CertOpEntry e;
    e.op = catalog[i * 7 % catalog.size()].id;
    e.status = static_cast<vyre::CertStatus>(i % 3);
    e.cases = e.status == vyre::CertStatus::Unsupported ? 0 : 10 + i;
    e.max_ulp = i;
    if (e.status == vyre::CertStatus::Unsupported) e.reason = "not declared";
    if (e.status == vyre::CertStatus::Fail) e.first_failure = failure();
    if (i == 0) e.exhaustive = vyre::CertExhaustive{vyre::CertStatus::Pass, 1ull << 32, 0, 1, std::nullopt};
    c.ops.push_back(e);
  }
  c.surfaces.push_back({"async", vyre::CertStatus::Pass, 3, "3 programs match dispatch"});
  c.summary = vyre::summarize(c.ops);
  // The shape of a signature (not a valid one: the reader parses it, trust is checked elsewhere).
  if (gpu) c.signature = vyre::CertSignature{"ed25519", std::string(64, 'c'), std::string(128, 'd')};
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: vyre_fuzz_seeds SOURCE_DIR OUT_DIR\n");
    return 2;
  }
  const fs::path source(argv[1]);
  const fs::path out(argv[2]);
  for (const auto& entry : fs::directory_iterator(source / "examples"))
    if (entry.path().extension() == ".json")
      write_program(out, "example_" + entry.path().stem().string(), vyre::load_program_file(entry.path()));
  for (std::uint64_t seed = 1; seed <= kRandomPrograms; ++seed)
    write_program(out, "random_" + std::to_string(seed), vyre::test::random_program(seed, small_options(seed)));
  write_file(out / "certificate" / "cpu.json", vyre::certificate_to_json(certificate(false)));
  write_file(out / "certificate" / "gpu.json", vyre::certificate_to_json(certificate(true)));
  return 0;
}
