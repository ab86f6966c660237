// Shared fixtures of the registry tests: registries over the test plugin directory, a log
// recorder, small programs the test backends can run, and the status a call throws.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "support/scoped_env.hpp"
#include "vyre/error.hpp"
#include "vyre/registry.hpp"

namespace vyre::testing {

// Every message a registry logged, in order.
struct LogRecorder {
  std::mutex mutex;
  std::vector<std::pair<int, std::string>> lines;

  LogSink sink();
  bool contains(std::string_view text);
  std::string all();
};

// t_oracle's file: the tests' registries pin it as the reference oracle.
std::filesystem::path test_oracle_file();

// A registry over the test plugins only (no environment, no default directories), with t_oracle
// pinned as the reference oracle.
// With a certificate directory, `trusted_keys` is the trusted-keys directory.
std::unique_ptr<Registry> test_registry(LogRecorder* log = nullptr, bool use_environment = false,
                                        std::optional<std::filesystem::path> certificate_dir = {},
                                        std::optional<std::filesystem::path> trusted_keys = {});

// out[i] = a[i] <op> b[i] over `count` u32 elements (a and b runtime-sized, out fixed).
// op: BinOp::Xor (t_copy and up), Add (t_wide, t_oracle), Sub (t_oracle only).
Program binary_program(BinOp op, std::uint32_t count);
// x (read_write, runtime-sized): x[i] = x[i] ^ k[i], with k read.
Program xor_in_place_program();

std::vector<std::uint32_t> words(const std::vector<std::byte>& bytes);
std::vector<std::byte> bytes_of(const std::vector<std::uint32_t>& words);

// The status `fn()` throws as a vyre::Error, VYRE_OK when it returns.
vyre_status code_of(auto&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.code();
  }
  return VYRE_OK;
}

using ScopedEnv = vyre::test::ScopedEnv;

}  // namespace vyre::testing
