#include "gpu_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "plugin_loader.hpp"
#include "vyre/conform/compare.hpp"
#include "vyre/error.hpp"

namespace vyre::cudatest {
namespace {

// The plugin at `path`, loaded and registered once.
const LoadedPlugin& plugin_at(const std::string& path) {
  static std::mutex mutex;
  static std::vector<std::pair<std::string, LoadedPlugin>> loaded;
  std::lock_guard lock(mutex);
  for (const auto& [name, p] : loaded) {
    if (name == path) return p;
  }
  loaded.emplace_back(path, load_plugin(path));
  const LoadedPlugin& p = loaded.back().second;
  if (p.status != VYRE_OK) throw std::runtime_error(path + " failed to register: " + p.failure);
  return p;
}

const LoadedPlugin& plugin(std::string_view id) { return plugin_at(plugin_path(id)); }

}  // namespace

namespace {

bool require_instance(const std::function<void()>& create) {
  try {
    create();
    return true;
  } catch (const Error& error) {
    if (error.code() == VYRE_ERR_NO_DEVICE) {
      std::printf("SKIP: no usable CUDA device: %s\n", error.what());
      std::fflush(stdout);
      std::exit(77);
    }
    std::printf("FAIL: creating the cuda backend failed: %s\n", error.what());
  } catch (const std::exception& error) {
    std::printf("FAIL: loading the plugins failed: %s\n", error.what());
  }
  std::fflush(stdout);
  std::exit(1);
}

}  // namespace

bool require_gpu() {
  return require_instance([] { (void)cuda(); });
}

bool require_gpu(const std::string& plugin) {
  return require_instance([&] { (void)open_plugin_file(plugin); });
}

host::Backend open_backend(std::string_view id, const vyre::CreateOptions& options) {
  const LoadedPlugin& p = plugin(id);
  return host::Backend::create(p.fns, p.library, options, std::string(id));
}

host::Group cuda_group(int devices) {
  std::vector<host::Backend> members;
  for (int ordinal = 0; ordinal < devices; ++ordinal) {
    vyre::CreateOptions options;
    options.device_ordinal = ordinal;
    members.push_back(open_backend("cuda", options));
  }
  return host::Group(std::move(members));
}

host::Backend open_plugin_file(const std::string& path, const vyre::CreateOptions& options) {
  const LoadedPlugin& p = plugin_at(path);
  return host::Backend::create(p.fns, p.library, options, p.id);
}

const host::Backend& cuda() {
  static const host::Backend backend = open_backend("cuda");
  return backend;
}

const host::Backend& cuda_device0() {
  static const host::Backend backend = [] {
    vyre::CreateOptions options;
    options.device_ordinal = 0;
    return open_backend("cuda", options);
  }();
  return backend;
}

const host::Backend& reference() {
  static const host::Backend backend = open_backend("reference_cpu");
  return backend;
}

const std::vector<std::string>& cuda_ops() { return plugin("cuda").op_ids; }

std::uint64_t metric(const host::Backend& backend, std::string_view name) {
  for (const auto& m : backend.metrics()) {
    if (m.name == name) return m.value;
  }
  return 0;
}

std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || text[0] == '\0') return fallback;
  return std::strtoull(text, nullptr, 0);
}

ByteVector random_elements(Type t, std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  ByteVector bytes(count * byte_size(t));
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-12, 12);
  for (std::size_t i = 0; i < count; ++i) {
    std::uint64_t bits = rng();
    if (t == Type::Bool) bits &= 1;
    if (is_float(t)) {
      const double value = (i % 17 == 0) ? 0.0 : std::ldexp(mantissa(rng), exponent(rng));
      if (t == Type::F64) {
        std::memcpy(&bits, &value, 8);
      } else {
        const float f = static_cast<float>(value);
        std::uint32_t b32 = 0;
        std::memcpy(&b32, &f, 4);
        bits = b32;
        if (t == Type::F16 || t == Type::BF16) {
          // bf16: the top half of f32; f16: a finite half built from sign, exponent, mantissa.
          bits = t == Type::BF16 ? (b32 >> 16)
                                 : ((b32 >> 16) & 0x8000) | ((rng() % 30 + 1) << 10) | (rng() & 0x3ff);
        }
      }
    }
    conform::write_element(t, bits, reinterpret_cast<std::uint8_t*>(bytes.data() + i * byte_size(t)));
  }
  return bytes;
}

std::vector<ByteVector> random_inputs(const Program& program, std::size_t runtime_count, std::uint64_t seed) {
  std::vector<ByteVector> inputs;
  for (std::size_t index : program.input_indices()) {
    const BufferDecl& decl = program.buffers[index];
    const std::size_t count = decl.count != 0 ? decl.count : runtime_count;
    inputs.push_back(random_elements(decl.element, count, seed + index * 7919));
  }
  return inputs;
}

std::vector<Bytes> views(const std::vector<ByteVector>& buffers) {
  std::vector<Bytes> result;
  for (const auto& buffer : buffers) result.emplace_back(buffer.data(), buffer.size());
  return result;
}

std::string element_text(Type t, const ByteVector& bytes, std::size_t index) {
  const std::size_t size = byte_size(t);
  if ((index + 1) * size > bytes.size()) return "<out of range>";
  return conform::format_value(t, conform::read_element(t, reinterpret_cast<const std::uint8_t*>(bytes.data()) + index * size));
}

bool same_outputs(std::string_view what, const Program& program, const std::vector<ByteVector>& inputs,
                  const std::vector<ByteVector>& expected, const std::vector<ByteVector>& actual) {
  if (expected == actual) return true;
  std::ostringstream out;
  out << "MISMATCH in " << what << "\n";
  const auto outputs = program.output_indices();
  if (expected.size() != actual.size()) {
    out << "  output count: expected " << expected.size() << ", actual " << actual.size() << "\n";
  }
  for (std::size_t j = 0; j < std::min(expected.size(), actual.size()); ++j) {
    if (expected[j] == actual[j]) continue;
    const BufferDecl& decl = program.buffers[outputs.at(j)];
    const std::size_t size = byte_size(decl.element);
    out << "  output `" << decl.name << "` (" << type_name(decl.element) << "): " << expected[j].size()
        << " bytes expected, " << actual[j].size() << " actual\n";
    std::size_t shown = 0;
    std::size_t differing = 0;
    for (std::size_t e = 0; e * size < std::min(expected[j].size(), actual[j].size()); ++e) {
      if (std::memcmp(expected[j].data() + e * size, actual[j].data() + e * size, size) == 0) continue;
      ++differing;
      if (shown++ >= 8) continue;
      out << "    [" << e << "] expected " << element_text(decl.element, expected[j], e) << ", actual "
          << element_text(decl.element, actual[j], e) << "\n";
    }
    out << "    " << differing << " element(s) differ\n";
  }
  const auto input_indices = program.input_indices();
  for (std::size_t i = 0; i < inputs.size() && i < input_indices.size(); ++i) {
    const BufferDecl& decl = program.buffers[input_indices[i]];
    out << "  input `" << decl.name << "`[0..4): ";
    for (std::size_t e = 0; e < 4; ++e) out << element_text(decl.element, inputs[i], e) << "  ";
    out << "\n";
  }
  std::cout << out.str() << std::flush;
  return false;
}

std::string example_path(std::string_view name) {
  return std::string(VYRE_SOURCE_DIR) + "/examples/" + std::string(name);
}

std::vector<std::uint32_t> random_words(std::size_t n, std::uint32_t seed, std::uint32_t bound) {
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> out(n);
  for (auto& w : out) w = bound == 0 ? rng() : rng() % bound;
  return out;
}

std::vector<std::uint32_t> words(const ByteVector& bytes) {
  std::vector<std::uint32_t> out(bytes.size() / 4);
  std::memcpy(out.data(), bytes.data(), out.size() * 4);
  return out;
}

bool same_words(const char* what, const std::vector<std::uint32_t>& expected, const std::vector<std::uint32_t>& actual) {
  if (expected == actual) return true;
  std::cout << "MISMATCH in " << what << " (" << expected.size() << " vs " << actual.size() << " words)\n";
  int shown = 0;
  for (std::size_t i = 0; i < std::min(expected.size(), actual.size()) && shown < 8; ++i) {
    if (expected[i] == actual[i]) continue;
    std::cout << "  [" << i << "] expected " << expected[i] << ", actual " << actual[i] << "\n";
    ++shown;
  }
  std::cout << std::flush;
  return false;
}

std::uint64_t Delta::operator()(std::string_view name) const {
  std::uint64_t old = 0;
  for (const auto& m : before_) {
    if (m.name == name) old = m.value;
  }
  return metric(backend_, name) - old;
}

void check_resident_round_trip(const host::Backend& backend) {
  const ResidentBuffer buffer = backend.alloc(4096);
  CHECK(buffer.byte_len() == 4096);
  const ByteVector zeros = backend.download(buffer, 0, 4096);
  CHECK(std::all_of(zeros.begin(), zeros.end(), [](std::byte b) { return b == std::byte{0}; }));

  ByteVector model(4096, std::byte{0});
  auto write = [&](std::uint64_t offset, ByteVector data) {
    std::copy(data.begin(), data.end(), model.begin() + offset);
    return data;
  };
  ByteVector first = write(100, random_elements(Type::U8, 37, 1));
  backend.upload(buffer, 100, Bytes(first.data(), first.size()));
  std::fill(first.begin(), first.end(), std::byte{0xEE});  // the caller may reuse its memory at once
  const ByteVector a = write(0, random_elements(Type::U8, 64, 2));
  const ByteVector b = write(120, random_elements(Type::U8, 10, 3));  // overlaps the first write
  const ByteVector c = write(4000, random_elements(Type::U8, 96, 4));
  backend.upload(std::vector<host::ResidentWrite>{{buffer, 0, Bytes(a.data(), a.size())},
                                                  {buffer, 120, Bytes(b.data(), b.size())},
                                                  {buffer, 4000, Bytes(c.data(), c.size())}});

  ByteVector r0(50), r1(50), r2(37), r3(10), empty;
  Delta delta(backend);
  backend.download(std::vector<host::ResidentRead>{{buffer, 50, MutableBytes(r1.data(), r1.size())},
                                                   {buffer, 0, MutableBytes(r0.data(), r0.size())},
                                                   {buffer, 100, MutableBytes(r2.data(), r2.size())},
                                                   {buffer, 4086, MutableBytes(r3.data(), r3.size())},
                                                   {buffer, 2000, MutableBytes(empty.data(), 0)}});
  CHECK(delta("d2h_operations") == 2);  // [0, 137) merged, [4086, 4096)
  CHECK(delta("d2h_bytes") == 147);
  CHECK(std::equal(r0.begin(), r0.end(), model.begin()));
  CHECK(std::equal(r1.begin(), r1.end(), model.begin() + 50));
  CHECK(std::equal(r2.begin(), r2.end(), model.begin() + 100));
  CHECK(std::equal(r3.begin(), r3.end(), model.begin() + 4086));
  CHECK(backend.download(buffer, 0, 4096) == model);
}

void Failures::add(std::string failure, const std::function<void()>& print) {
  std::lock_guard lock(mutex_);
  if (print) print();
  failures_.push_back(std::move(failure));
}

std::vector<std::string> Failures::take() {
  std::lock_guard lock(mutex_);
  return std::move(failures_);
}

std::vector<std::string> run_threads(int threads, const std::function<void(int, Failures&)>& body) {
  Failures failures;
  std::vector<std::thread> running;
  for (int t = 0; t < threads; ++t) {
    running.emplace_back([&, t] {
      try {
        body(t, failures);
      } catch (const std::exception& error) {
        failures.add("thread " + std::to_string(t) + ": " + error.what());
      }
    });
  }
  for (auto& thread : running) thread.join();
  std::vector<std::string> all = failures.take();
  for (const auto& failure : all) std::cout << "  " << failure << std::endl;
  return all;
}

}  // namespace vyre::cudatest
