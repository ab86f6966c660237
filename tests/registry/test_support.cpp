#include "test_support.hpp"

#include <cstdlib>
#include <cstring>

#include "vyre/builder.hpp"

namespace vyre::testing {

LogSink LogRecorder::sink() {
  return [this](int level, std::string_view message) {
    std::lock_guard lock(mutex);
    lines.emplace_back(level, std::string(message));
  };
}

bool LogRecorder::contains(std::string_view text) {
  std::lock_guard lock(mutex);
  for (const auto& [level, line] : lines)
    if (line.find(text) != std::string::npos) return true;
  return false;
}

std::string LogRecorder::all() {
  std::lock_guard lock(mutex);
  std::string out;
  for (const auto& [level, line] : lines) out += line + "\n";
  return out;
}

std::unique_ptr<Registry> test_registry(LogRecorder* log, bool use_environment,
                                        std::optional<std::filesystem::path> certificate_dir,
                                        std::optional<std::filesystem::path> trusted_keys) {
  RegistryOptions options;
  options.certificate_dir = std::move(certificate_dir);
  options.trusted_keys_dir = std::move(trusted_keys);
  options.plugin_dirs = {VYRE_TEST_PLUGIN_DIR};
  options.use_environment = use_environment;
  options.use_default_dirs = false;
  options.reference_oracle = test_oracle_file();
  if (log) options.log = log->sink();
  return std::make_unique<Registry>(options);
}

std::filesystem::path test_oracle_file() {
  return std::filesystem::path(VYRE_TEST_PLUGIN_DIR) / "libvyre_t_oracle.so";
}

Program binary_program(BinOp op, std::uint32_t count) {
  using namespace vyre::dsl;
  ProgramBuilder b;
  b.workgroup(64);
  Buf a = b.buffer("a", Access::Read, Type::U32);
  Buf c = b.buffer("b", Access::Read, Type::U32);
  Buf out = b.buffer("out", Access::Output, Type::U32, count);
  Expr i = b.let("i", invocation_id(0));
  b.if_(lt(i, out.len()), [&] { b.store(out, i, bin(op, a[i], c[i])); });
  return b.build();
}

Program xor_in_place_program() {
  using namespace vyre::dsl;
  ProgramBuilder b;
  b.workgroup(32);
  Buf x = b.buffer("x", Access::ReadWrite, Type::U32);
  Buf k = b.buffer("k", Access::Read, Type::U32);
  Expr i = b.let("i", invocation_id(0));
  b.if_(lt(i, x.len()), [&] { b.store(x, i, x[i] ^ k[i]); });
  return b.build();
}

std::vector<std::uint32_t> words(const std::vector<std::byte>& bytes) {
  std::vector<std::uint32_t> out(bytes.size() / 4);
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * 4);
  return out;
}

std::vector<std::byte> bytes_of(const std::vector<std::uint32_t>& words) {
  std::vector<std::byte> out(words.size() * 4);
  if (!out.empty()) std::memcpy(out.data(), words.data(), out.size());
  return out;
}

}  // namespace vyre::testing
