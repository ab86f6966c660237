// Bad input through the public readers: every rejection is the documented error with a message
// that ends in "Fix: ...", nothing crashes, recurses without bound or allocates from a count it has
// not checked. Includes the minimized fuzz findings (each also in fuzz/regressions/<target>/).
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "errors.hpp"
#include "harness.hpp"
#include "manifest.hpp"
#include "vyre/certificate.hpp"
#include "vyre/error.hpp"
#include "vyre/file_read.hpp"
#include "vyre/json.hpp"
#include "vyre/validate.hpp"
#include "vyre/wire.hpp"

namespace fs = std::filesystem;

namespace {

bool has_fix(std::string_view message) { return message.find("Fix:") != std::string_view::npos; }

// The code and message of the vyre::Error `call` throws (code VYRE_OK when it does not throw).
template <class F>
std::pair<vyre_status, std::string> error_of(F&& call) {
  try {
    call();
    return {VYRE_OK, ""};
  } catch (const vyre::Error& e) {
    return {e.code(), e.what()};
  }
}

std::vector<std::uint8_t> example_wire(const char* name) {
  return vyre::encode_wire(vyre::load_program_file(fs::path(VYRE_SOURCE_DIR) / "examples" / name));
}

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

// Wire bytes of a program whose body is `depth` nested Blocks.
std::vector<std::uint8_t> nested_blocks(std::uint32_t depth) {
  std::vector<std::uint8_t> payload;
  for (std::uint32_t axis = 0; axis < 3; ++axis) put_u32(payload, 1);  // workgroup_size
  put_u32(payload, 0);                                                  // no buffers
  put_u32(payload, 1);                                                  // one statement
  for (std::uint32_t level = 0; level < depth; ++level) {
    payload.push_back(static_cast<std::uint8_t>(vyre::NodeKind::Block));
    payload.push_back(0);                                      // no expressions
    put_u32(payload, level + 1 < depth ? 1 : 0);               // body: the next level
  }
  std::vector<std::uint8_t> wire = {'V', 'Y', 'R', 'E', 1, 0, 0, 0};
  put_u32(wire, static_cast<std::uint32_t>(payload.size()));
  wire.insert(wire.end(), payload.begin(), payload.end());
  return wire;
}

}  // namespace

// ---- fuzz findings ----------------------------------------------------------------------------

TEST_CASE("fuzz finding: a NUL byte in a name no longer cuts the \"Fix:\" off a diagnostic") {
  // fuzz/regressions/wire/crash-e79d2c57...: a wire program whose buffer name holds a NUL byte.
  // validate() composed the message through what(), which stopped at the NUL.
  vyre::Program program;
  vyre::BufferDecl buffer;
  buffer.name = std::string("b\0x", 3);
  buffer.access = vyre::Access::Read;
  program.buffers.push_back(buffer);
  const std::vector<vyre::Diagnostic> problems = vyre::validate(vyre::decode_wire(vyre::encode_wire(program)));
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].code == vyre::Check::InvalidName);
  CHECK(has_fix(problems[0].message));
  CHECK(problems[0].message.find("b\\0x") != std::string::npos);
  CHECK(problems[0].message.find('\0') == std::string::npos);
  const auto [code, message] = error_of([&] { vyre::validate_or_throw(program); });
  CHECK(code == VYRE_ERR_INVALID_PROGRAM);
  CHECK(has_fix(message));
}

TEST_CASE("fuzz finding: a NUL byte in an AOT manifest no longer cuts the \"Fix:\" off the error") {
  // fuzz/regressions/aot_manifest/crash-47ef23aa...: the JSON reader quoted the unexpected NUL.
  const std::string text("{\"schema\": \0}", 13);
  try {
    vyre_launch::parse_manifest(text, "manifest.json");
    FAIL("a manifest with a NUL byte parsed");
  } catch (const vyre_launch::LaunchError& e) {
    CHECK(has_fix(e.what()));
  }
}

// ---- the wire decoder -------------------------------------------------------------------------

TEST_CASE("every truncation and every byte overwrite of a valid wire program is handled") {
  const std::vector<std::uint8_t> wire = example_wire("prefix_sum.json");
  for (std::size_t n = 0; n < wire.size(); ++n) {
    const auto [code, message] =
        error_of([&] { vyre::decode_wire(std::span(wire.data(), n)); });
    CHECK_MESSAGE(code == VYRE_ERR_DECODE, "prefix of " << n << " bytes");
    CHECK(has_fix(message));
  }
  std::size_t accepted = 0;
  for (std::size_t at = 0; at < wire.size(); ++at) {
    for (std::uint8_t value : {0x00, 0x7f, 0xff}) {
      std::vector<std::uint8_t> bad = wire;
      bad[at] = value;
      CHECK_NOTHROW(accepted += vyre::fuzz::wire_decoder(bad) ? 1 : 0);
    }
  }
  CHECK(accepted > 0);  // some overwrites (literal bits, counts of equal meaning) still decode
}

TEST_CASE("wire nesting beyond the limit is a decode error, without deep recursion") {
  CHECK_NOTHROW(vyre::decode_wire(nested_blocks(vyre::kWireMaxDepth)));
  for (std::uint32_t depth : {vyre::kWireMaxDepth + 1, 100000u}) {
    const auto [code, message] = error_of([&] { vyre::decode_wire(nested_blocks(depth)); });
    CHECK(code == VYRE_ERR_DECODE);
    CHECK(has_fix(message));
  }
}

TEST_CASE("wire counts larger than the bytes left are rejected before anything is allocated") {
  std::vector<std::uint8_t> payload;
  for (int i = 0; i < 3; ++i) put_u32(payload, 1);
  put_u32(payload, 0xFFFFFFFFu);  // four billion buffers, in 20 bytes
  std::vector<std::uint8_t> wire = {'V', 'Y', 'R', 'E', 1, 0, 0, 0};
  put_u32(wire, static_cast<std::uint32_t>(payload.size()));
  wire.insert(wire.end(), payload.begin(), payload.end());
  CHECK(error_of([&] { vyre::decode_wire(wire); }).first == VYRE_ERR_DECODE);
  wire[8] = 0xFF;  // a payload length that is not the real one
  CHECK(error_of([&] { vyre::decode_wire(wire); }).first == VYRE_ERR_DECODE);
}

// ---- the JSON reader --------------------------------------------------------------------------

TEST_CASE("hostile JSON is a decode error with a fix") {
  const std::string deep_arrays(100000, '[');
  std::string deep_blocks;
  for (int i = 0; i < 2000; ++i) deep_blocks += "{\"block\": [";
  const std::vector<std::string> inputs = {
      "", "null", "[]", "{", "{\"vyre\": 2, \"workgroup_size\": [1,1,1]}",
      std::string("{\"vyre\"\0: 1}", 12), "\xff\xfe\x00\x01", deep_arrays,
      "{\"vyre\": 1, \"workgroup_size\": [1,1,1], \"buffers\": [], \"body\": [" + deep_blocks,
      "{\"vyre\": 1, \"workgroup_size\": [1e999, 1, 1], \"buffers\": [], \"body\": []}",
      "{\"vyre\": 1, \"workgroup_size\": [18446744073709551616, 1, 1], \"buffers\": [], \"body\": []}",
      "{\"vyre\": 1, \"workgroup_size\": [1,1,1], \"buffers\": [], \"body\": []} trailing"};
  for (const std::string& text : inputs) {
    CAPTURE(vyre::fuzz::printable(text, 80));
    const auto [code, message] = error_of([&] { vyre::from_json(text); });
    CHECK(code == VYRE_ERR_DECODE);
    CHECK(has_fix(message));
  }
}

TEST_CASE("program files that are not programs are clear errors") {
  const auto [dir_code, dir_message] = error_of([] { vyre::load_program_file(VYRE_SOURCE_DIR); });
  CHECK(dir_code == VYRE_ERR_IO);
  CHECK(has_fix(dir_message));
  CHECK(error_of([] { vyre::load_program_file("/nonexistent/program.json"); }).first == VYRE_ERR_IO);
}

// ---- untrusted files: type and size before a byte is read (red team 2026-11-24, item 7) ------------

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(VYRE_RELIABILITY_WORK_DIR) / "bad_files";
  fs::create_directories(dir);
  fs::remove_all(dir / name);
  return dir / name;
}

// A FIFO nobody writes to: a reader that opens it blocking hangs forever.
fs::path fifo(const std::string& name) {
  const fs::path path = scratch(name);
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  return path;
}

// A sparse file of `bytes` that takes no disk space: reading it whole would.
fs::path sparse(const std::string& name, std::uintmax_t bytes) {
  const fs::path path = scratch(name);
  { std::ofstream create(path); }
  fs::resize_file(path, bytes);
  return path;
}

// `read` on each hostile file: VYRE_ERR_IO naming the problem, with a Fix, and nothing read.
template <class Read>
void check_hostile_files(const std::string& what, Read&& read) {
  CAPTURE(what);
  const std::pair<fs::path, std::string> cases[] = {
      {"/dev/zero", "is a character device, not a regular file"},
      {fifo(what + ".fifo"), "is a FIFO, not a regular file"},
      {fs::path(VYRE_SOURCE_DIR), "is a directory, not a regular file"},
      {sparse(what + ".huge", std::uintmax_t{1} << 40), "larger than the limit of"},
  };
  for (const auto& [path, problem] : cases) {
    CAPTURE(path.string());
    const auto [code, message] = error_of([&] { read(path); });
    CHECK(code == VYRE_ERR_IO);
    CHECK(message.find(problem) != std::string::npos);
    CHECK(has_fix(message));
  }
}

}  // namespace

TEST_CASE("program files and certificates are checked for type and size before they are read") {
  check_hostile_files("program", [](const fs::path& p) { vyre::load_program_file(p); });
  check_hostile_files("certificate", [](const fs::path& p) { vyre::read_certificate(p); });
  check_hostile_files("read_regular_file", [](const fs::path& p) { vyre::read_regular_file(p, 1 << 20, "test"); });
  // A link the caller names is followed: it is the caller's path.
  const fs::path link = scratch("link.json");
  fs::create_symlink(fs::path(VYRE_SOURCE_DIR) / "examples" / "xor.json", link);
  CHECK_NOTHROW(vyre::load_program_file(link));
  // Exactly the limit is allowed, one byte more is not.
  const fs::path four = sparse("four", 4);
  CHECK(vyre::read_regular_file(four, 4, "test").size() == 4);
  CHECK(error_of([&] { vyre::read_regular_file(four, 3, "test"); }).first == VYRE_ERR_IO);
}

// ---- certificates -----------------------------------------------------------------------------

TEST_CASE("a certificate edited by hand, truncated or nested deeply is rejected") {
  vyre::Certificate cert;
  cert.tool_version = "vyre-conform 0.1.0";
  cert.backend_id = "x";
  vyre::CertOpEntry op;
  op.op = "bin.add.u32";
  op.status = vyre::CertStatus::Fail;
  op.cases = 3;
  op.first_failure = vyre::CertFailure{};
  op.first_failure->message = "mismatch";
  cert.ops = {op};
  cert.summary = vyre::summarize(cert.ops);
  const std::string text = vyre::certificate_to_json(cert);
  CHECK(vyre::certificate_from_json(text) == cert);

  std::string forged = text;
  forged.replace(forged.find("\"fail\""), 6, "\"pass\"");
  for (const std::string& bad : {forged, text.substr(0, text.size() / 2), std::string(50000, '['),
                                 std::string("{\"schema\": \"\0\"}", 15)}) {
    const auto [code, message] = error_of([&] { vyre::certificate_from_json(bad); });
    CHECK(code == VYRE_ERR_DECODE);
    CHECK(has_fix(message));
  }
}
