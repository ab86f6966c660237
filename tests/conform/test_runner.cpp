// The runner catches a deliberately broken backend, names the broken ops, prints a replay command
// that reproduces the failure, writes reproducible certificates, and exits 0/1/2 as documented.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>

#include "vyre/certificate.hpp"
#include "vyre/certificate_trust.hpp"
#include "vyre/conform/runner.hpp"
#include "vyre/fingerprint.hpp"
#include "vyre/signing.hpp"

namespace fs = std::filesystem;

namespace {

// The signing key and trusted keys of this test program: never the user's (~/.config/vyre).
const fs::path kKeyHome = fs::temp_directory_path() / ("vyre-conform-test-keys-" + std::to_string(::getpid()));
const fs::path kSigningKey = kKeyHome / "keys" / "signing.pem";
const fs::path kTrustedKeys = kKeyHome / "trusted";
const bool kKeyEnvironment = [] {
  ::setenv("VYRE_SIGNING_KEY", kSigningKey.c_str(), 1);
  ::setenv("VYRE_TRUSTED_KEYS", kTrustedKeys.c_str(), 1);
  return true;
}();
struct RemoveKeys {
  ~RemoveKeys() {
    std::error_code ec;
    fs::remove_all(kKeyHome, ec);
  }
} remove_keys;

struct Result {
  int status = 0;
  std::string out;
  std::string err;
};

Result run(const std::vector<std::string>& args) {
  std::ostringstream out;
  std::ostringstream err;
  Result r;
  r.status = vyre::conform::run_cli(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

fs::path temp_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("vyre-conform-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

std::vector<std::string> base_args(const fs::path& out) {
  return {"--plugins", VYRE_TEST_PLUGIN_DIR, "--backend", "broken_ref", "--out", out.string(),
          "--jobs", "2", "--no-progress", "--cases", "256", "--seed", "7"};
}

std::vector<std::string> with(std::vector<std::string> args, std::initializer_list<std::string> more) {
  args.insert(args.end(), more);
  return args;
}

// The replay line printed for `op`, split into arguments (without the program name).
std::vector<std::string> replay_args(const std::string& out, const std::string& op) {
  const auto fail_at = out.find("FAIL " + op + " on ");
  REQUIRE_MESSAGE(fail_at != std::string::npos, "no failure report for ", op, " in:\n", out);
  const auto replay_at = out.find("replay:   ", fail_at);
  REQUIRE(replay_at != std::string::npos);
  const auto start = replay_at + 10;
  std::istringstream words(out.substr(start, out.find('\n', start) - start));
  std::vector<std::string> args;
  for (std::string w; words >> w;) args.push_back(w);
  REQUIRE(args.size() > 2);
  CHECK(args[0] == "vyre-conform");
  args.erase(args.begin());
  args.push_back("--no-progress");
  return args;
}

const vyre::CertOpEntry& entry(const vyre::Certificate& c, std::string_view op) {
  for (const auto& e : c.ops)
    if (e.op == op) return e;
  FAIL("no entry for " << op);
  return c.ops.front();
}

}  // namespace

TEST_CASE("a broken backend is caught, with the broken ops named and a replay that reproduces it") {
  const fs::path out = temp_dir("broken");
  const Result r = run(with(base_args(out), {"--ops", "bin.sat_add.u32", "--ops", "un.exp.f32", "--ops",
                                             "bin.add.u32", "--ops", "un.exp2.f32"}));
  CHECK(r.status == 1);
  CHECK(r.out.find("FAIL bin.sat_add.u32 on broken_ref") != std::string::npos);
  CHECK(r.out.find("FAIL un.exp.f32 on broken_ref") != std::string::npos);
  CHECK(r.out.find("FAIL bin.add.u32") == std::string::npos);
  CHECK(r.out.find("FAIL un.exp2.f32") == std::string::npos);
  CHECK(r.out.find("expected: u32 4294967295 (0xffffffff)") != std::string::npos);
  CHECK(r.out.find("actual:   u32 4294967285 (0xfffffff5)") != std::string::npos);
  CHECK(r.out.find("ulp:      10 (allowed 2)") != std::string::npos);

  const fs::path file = out / "broken_ref-cpu.json";
  REQUIRE(fs::exists(file));
  const vyre::Certificate c = vyre::read_certificate(file);
  CHECK(c.backend_id == "broken_ref");
  CHECK(c.reference_backend == "reference_cpu");
  CHECK(c.seed == 7);
  CHECK(c.ops.size() == 4);
  CHECK(entry(c, "bin.add.u32").status == vyre::CertStatus::Pass);
  CHECK(entry(c, "un.exp2.f32").status == vyre::CertStatus::Pass);
  const auto& sat = entry(c, "bin.sat_add.u32");
  CHECK(sat.status == vyre::CertStatus::Fail);
  REQUIRE(sat.first_failure);
  CHECK(sat.first_failure->expected == "u32 4294967295 (0xffffffff)");
  CHECK(sat.first_failure->inputs.size() == 2);
  const auto& exp = entry(c, "un.exp.f32");
  CHECK(exp.status == vyre::CertStatus::Fail);
  CHECK(exp.max_ulp == 10);
  REQUIRE(exp.first_failure);
  CHECK(exp.first_failure->ulp == 10);
  CHECK(c.summary.fail == 2);
  CHECK(c.summary.pass == 2);
  CHECK(c.plugin_sha256 == vyre::sha256_file_hex(c.plugin_path));

  for (const std::string op : {"bin.sat_add.u32", "un.exp.f32"}) {
    CAPTURE(op);
    const auto args = replay_args(r.out, op);
    const Result replay = run(args);
    CHECK(replay.status == 1);
    const auto& first = *entry(c, op).first_failure;
    CHECK(replay.out.find("case " + std::to_string(first.case_index)) != std::string::npos);
    CHECK(replay.out.find(first.expected) != std::string::npos);
    CHECK(replay.out.find(first.actual) != std::string::npos);
    CHECK(replay.out.find("certificate:") == std::string::npos);  // a replay certifies nothing
  }
  fs::remove_all(out);
}

TEST_CASE("exhaustive runs cover their input range in chunks and replay single inputs") {
  const fs::path out = temp_dir("exhaustive");
  vyre::conform::Options o = vyre::conform::parse_options(
      with(base_args(out), {"--ops", "un.exp.f32", "--ops", "un.exp2.f32", "--exhaustive"}));
  o.exhaustive_first = 0x3F800000;          // 1.0f upwards: exp() > 1, which broken_ref perturbs
  o.exhaustive_count = (1u << 22) + 5;      // one full chunk and a partial one
  std::ostringstream text;
  std::ostringstream errors;
  CHECK(vyre::conform::run(o, text, errors) == 1);
  const std::string printed = text.str();
  const vyre::Certificate c = vyre::read_certificate(out / "broken_ref-cpu.json");
  const auto& exp = entry(c, "un.exp.f32");
  REQUIRE(exp.exhaustive);
  CHECK(exp.exhaustive->cases == (1u << 22) + 5);
  CHECK(exp.exhaustive->status == vyre::CertStatus::Fail);
  REQUIRE(exp.exhaustive->first_failure);
  CHECK(exp.exhaustive->first_failure->case_index >= 0x3F800000);
  CHECK(exp.exhaustive->max_ulp == 10);
  const auto& exp2 = entry(c, "un.exp2.f32");
  REQUIRE(exp2.exhaustive);
  CHECK(exp2.exhaustive->status == vyre::CertStatus::Pass);
  CHECK(exp2.exhaustive->failures == 0);

  const auto args = replay_args(printed, "un.exp.f32 (exhaustive)");
  const Result replay = run(args);
  CHECK(replay.status == 1);
  CHECK(replay.out.find(exp.exhaustive->first_failure->actual) != std::string::npos);
  fs::remove_all(out);
}

TEST_CASE("the same seed reproduces the same certificate, timestamps aside") {
  const fs::path a = temp_dir("seed-a");
  const fs::path b = temp_dir("seed-b");
  const auto ops = std::initializer_list<std::string>{"--ops", "un.exp.f32", "--ops", "atomic.*.u32", "--ops", "node.*"};
  run(with(base_args(a), ops));
  run(with(with(base_args(b), ops), {"--jobs", "1"}));
  vyre::Certificate ca = vyre::read_certificate(a / "broken_ref-cpu.json");
  vyre::Certificate cb = vyre::read_certificate(b / "broken_ref-cpu.json");
  REQUIRE(ca.signature);
  REQUIRE(cb.signature);
  CHECK(ca.signature->key_id == cb.signature->key_id);
  ca.timestamp = cb.timestamp = "";
  ca.signature.reset();  // they sign the timestamps too
  cb.signature.reset();
  CHECK(ca == cb);
  CHECK(ca.witness_cases > 0);
  CHECK(ca.random_cases > 0);
  fs::remove_all(a);
  fs::remove_all(b);
}

TEST_CASE("certificates are signed with a key created on first use, owner-only, and trusted here") {
  const fs::path out = temp_dir("signed");
  const fs::path key_dir = temp_dir("own-key");
  const fs::path key = key_dir / "keys" / "conform.pem";
  const fs::path trusted = key_dir / "trusted";
  const auto args = with(base_args(out), {"--ops", "bin.add.u32", "--signing-key", key.string(), "--trusted-keys",
                                          trusted.string()});
  const Result first = run(args);
  CHECK(first.status == 0);
  CHECK(first.out.find("created the signing key " + key.string()) != std::string::npos);
  struct stat st {};
  REQUIRE(::stat(key.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  const vyre::PublicKey pub = vyre::read_public_key(vyre::public_key_file_for(key));
  const vyre::TrustedKeys trust = vyre::load_trusted_keys(trusted);
  REQUIRE(trust.keys.size() == 1);
  CHECK(trust.keys[0].key == pub);

  const vyre::Certificate c = vyre::read_certificate(out / "broken_ref-cpu.json");
  REQUIRE(c.signature);
  CHECK(c.signature->key_id == pub.id());
  CHECK_FALSE(vyre::signature_problem(c, trust));
  CHECK(first.out.find("signed by key " + pub.id().substr(0, 16)) != std::string::npos);

  const Result second = run(args);  // the same key again, nothing created
  CHECK(second.out.find("created the signing key") == std::string::npos);
  CHECK(vyre::read_certificate(out / "broken_ref-cpu.json").signature->key_id == pub.id());

  // A key file others can read is refused: no certificate is written with it.
  ::chmod(key.c_str(), 0644);
  fs::remove_all(out);
  const Result refused = run(args);
  CHECK(refused.status == 1);
  CHECK(refused.err.find("chmod 600") != std::string::npos);
  CHECK_FALSE(fs::exists(out / "broken_ref-cpu.json"));
  fs::remove_all(out);
  fs::remove_all(key_dir);
}

TEST_CASE("usage errors exit 2, unknown ops and backends included") {
  CHECK(run({"--cases", "many"}).status == 2);
  CHECK(run({"--bogus"}).status == 2);
  CHECK(run({"--ops", "bin.nothing_like_this.*", "--no-progress"}).status == 2);
  const Result unknown = run({"--backend", "no_such_backend", "--ops", "bin.add.u32", "--no-progress"});
  CHECK(unknown.status == 2);
  CHECK(unknown.err.find("no_such_backend") != std::string::npos);
  CHECK(run({"--case", "3", "--backend", "reference_cpu", "--ops", "bin.add.*", "--no-progress"}).status == 2);
  CHECK(run({"--help"}).status == 0);
}

TEST_CASE("the executable exits 0 when everything passes and never certifies the oracle implicitly") {
  const fs::path out = temp_dir("exe");
  const std::string exe = std::string(VYRE_BINARY_DIR) + "/bin/vyre-conform";  // keys: kKeyEnvironment
  const std::string pass = exe + " --backend reference_cpu --ops 'bin.*.u32' --ops 'node.*' --cases 64 --jobs 2 --out " +
                           out.string() + " > /dev/null";
  CHECK(std::system(pass.c_str()) == 0);
  CHECK(fs::exists(out / "reference_cpu-cpu.json"));
  const std::string usage = exe + " --cases x > /dev/null 2>&1";
  const int status = std::system(usage.c_str());
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 2);
  fs::remove_all(out);
}
