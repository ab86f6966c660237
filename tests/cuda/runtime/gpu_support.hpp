// Shared by the CUDA runtime tests (GPU and fake driver): opening the cuda and reference_cpu
// plugins of this build through the host wrapper, skipping (exit 77, with the reason) where no GPU
// is usable, deterministic inputs, output comparisons that print the op, inputs, expected and actual
// values on a mismatch, metric deltas, expected errors, scoped environment variables and threads.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "vyre/backend.hpp"
#include "vyre/error.hpp"
#include "vyre/group.hpp"
#include "vyre/ir.hpp"

namespace vyre::cudatest {

// The names every test file of this suite uses: its `using namespace vyre::cudatest` brings them.
using vyre::DispatchConfig;
using vyre::Program;
using host::Binding;
using host::ByteVector;
using host::Bytes;
using host::MutableBytes;
using host::ResidentBuffer;

// Call from a namespace-scope initializer: returns true when the cuda plugin (or the plugin file
// `plugin`) can create an instance here; otherwise prints "SKIP: <reason>" and exits 77
// (NO_DEVICE) or 1 (anything else).
bool require_gpu();
bool require_gpu(const std::string& plugin);

// A new instance of the backend `id` from build/plugins (throws vyre::Error).
host::Backend open_backend(std::string_view id, const vyre::CreateOptions& options = {});
// A group of new cuda instances on device ordinals 0 .. devices - 1, in rank order.
host::Group cuda_group(int devices);
// A new instance of the plugin at `path` (loaded once per path; throws vyre::Error).
host::Backend open_plugin_file(const std::string& path, const vyre::CreateOptions& options = {});
// Shared default instances (created once).
const host::Backend& cuda();
// A shared cuda instance on device ordinal 0 (where DriverMemory allocates), whatever
// VYRE_CUDA_DEVICE_ORDINAL says (created once).
const host::Backend& cuda_device0();
const host::Backend& reference();

// The op ids the cuda plugin declares.
const std::vector<std::string>& cuda_ops();

// A metric's value (0 when absent).
std::uint64_t metric(const host::Backend& backend, std::string_view name);

// Environment knobs for replaying a failure: integers with a default.
std::uint64_t env_u64(const char* name, std::uint64_t fallback);

// `count` elements of storage type `t`, seeded: integers uniform over their width, floats finite
// values of mixed magnitude and sign (with zeros), bools 0/1.
ByteVector random_elements(Type t, std::size_t count, std::uint64_t seed);

// Host inputs for `program`: runtime-sized inputs get `runtime_count` elements.
std::vector<ByteVector> random_inputs(const Program& program, std::size_t runtime_count, std::uint64_t seed);
std::vector<Bytes> views(const std::vector<ByteVector>& buffers);

// True when equal; otherwise prints `what`, each differing output (buffer name, first differing
// elements as typed values, index, expected and actual) and the inputs' first elements.
bool same_outputs(std::string_view what, const Program& program, const std::vector<ByteVector>& inputs,
                  const std::vector<ByteVector>& expected, const std::vector<ByteVector>& actual);

// Element `index` of a little-endian array of `t`, as typed text.
std::string element_text(Type t, const ByteVector& bytes, std::size_t index);

// Absolute path of examples/<name>.
std::string example_path(std::string_view name);

// ---- u32 arrays -----------------------------------------------------------------------------------

// `n` seeded words: uniform over u32, or below `bound` when it is not 0.
std::vector<std::uint32_t> random_words(std::size_t n, std::uint32_t seed, std::uint32_t bound = 0);
std::vector<std::uint32_t> words(const ByteVector& bytes);
inline Bytes bytes(const std::vector<std::uint32_t>& w) { return host::as_bytes(w); }
inline MutableBytes mutable_bytes(std::vector<std::uint32_t>& w) {
  return MutableBytes(reinterpret_cast<std::byte*>(w.data()), w.size() * 4);
}
// True when equal; otherwise prints the first differing words.
bool same_words(const char* what, const std::vector<std::uint32_t>& expected, const std::vector<std::uint32_t>& actual);

// ---- checks -----------------------------------------------------------------------------------------

// How much each metric of `backend` grew since construction.
class Delta {
 public:
  explicit Delta(const host::Backend& backend) : backend_(backend), before_(backend.metrics()) {}
  std::uint64_t operator()(std::string_view name) const;

 private:
  const host::Backend& backend_;
  std::vector<host::Metric> before_;
};

// The resident round trip every backend of this suite must pass: a new 4096-byte buffer reads as
// zeros; uploads at offsets (one overlapping another) land where written, and the caller may reuse
// its memory at once; a batch of reads (one empty) is served by 2 merged device-to-host copies.
void check_resident_round_trip(const host::Backend& backend);

// Checks that `f` throws vyre::Error with `code` and a Fix; returns its message.
template <class F>
std::string expect_error(F&& f, vyre_status code) {
  try {
    f();
  } catch (const Error& error) {
    INFO("message: " << error.what());
    CHECK(error.code() == code);
    CHECK(std::string(error.what()).find("Fix: ") != std::string::npos);
    return error.what();
  }
  FAIL("expected vyre::Error " << status_name(code));
  return {};
}

// Sets an environment variable (or unsets it, for a null value) for one scope, then restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

// Failures collected from several threads.
class Failures {
 public:
  // Record `failure`, running `print` (e.g. a mismatch report) first under the same lock.
  void add(std::string failure, const std::function<void()>& print = {});
  std::vector<std::string> take();

 private:
  std::mutex mutex_;
  std::vector<std::string> failures_;
};

// Runs body(t, failures) for t in [0, threads) on that many threads; an exception escaping a body
// is recorded as "thread t: what". Returns every failure (also printed).
std::vector<std::string> run_threads(int threads, const std::function<void(int, Failures&)>& body);

}  // namespace vyre::cudatest
