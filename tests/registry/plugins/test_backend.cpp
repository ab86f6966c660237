// A kit-based test backend, compiled once for all the test plugins of tests/registry: the plugin's
// TestVariant (test_variant.hpp) picks the id, rank, capabilities, extra ops and misbehaviours.
// At run time, VYRE_TEST_CREATE_GATE=<id>:<file> makes create of backend <id> wait until <file>
// exists (at most 20 s, then it fails with VYRE_ERR_TIMEOUT): tests hold a create in progress.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <future>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "mini_interpreter.hpp"
#include "test_variant.hpp"
#include "vyre/plugin_kit.hpp"

namespace {

using namespace std::chrono_literals;
using vyre::kit::Bytes;

constexpr auto kAsyncDelay = 300ms;  // long enough for a test to observe "in flight"

std::vector<std::string> declared_ops() {
  std::vector<std::string> ops = {"load.u32",  "store.u32", "builtin.invocation_id",
                                  "builtin.buf_len", "bin.xor.u32", "bin.lt.u32",
                                  "node.let",  "node.if",   "node.return"};
  std::istringstream extra(kTestVariant.extra_ops);
  for (std::string op; extra >> op;) ops.push_back(op);
  return ops;
}

std::vector<std::uint32_t> words_of(Bytes bytes) {
  std::vector<std::uint32_t> words(bytes.size() / 4);
  if (!bytes.empty()) std::memcpy(words.data(), bytes.data(), words.size() * 4);
  return words;
}

class Buffer final : public vyre::kit::DeviceBuffer {
 public:
  explicit Buffer(std::uint64_t byte_len)
      : DeviceBuffer(byte_len), words((byte_len + 3) / 4, 0u) {}
  std::span<std::byte> bytes() { return std::as_writable_bytes(std::span(words)).first(byte_len()); }
  std::vector<std::uint32_t> words;
};

class ThreadPending final : public vyre::kit::Pending {
 public:
  explicit ThreadPending(std::shared_future<void> done) : done_(std::move(done)) {}
  ~ThreadPending() override { done_.wait(); }
  bool poll() override { return wait(0); }
  bool wait(std::uint64_t timeout_ns) override {
    const auto timeout = std::chrono::nanoseconds(std::min<std::uint64_t>(timeout_ns, 1ull << 62));
    if (done_.wait_for(timeout) != std::future_status::ready) return false;
    done_.get();  // rethrows the work's error
    return true;
  }

 private:
  std::shared_future<void> done_;
};

class TestBackend final : public vyre::kit::BackendImpl {
 public:
  void device_profile(vyre_device_profile& out) override {
    if (kTestVariant.throws) throw 42;  // not even a std::exception
    out.kind = VYRE_DEVICE_KIND_CPU;
    std::snprintf(out.name, sizeof out.name, "test device %s", kTestVariant.id);
    std::strcpy(out.target, "cpu");
    out.max_threads_per_workgroup = 1024;
  }

  std::shared_ptr<vyre::kit::CompiledProgram> compile(vyre::Program program,
                                                      std::string fingerprint) override {
    if (kTestVariant.throws && program.workgroup_size[0] == 7) throw std::runtime_error("boom in compile");
    ++compiles_;
    return std::make_shared<vyre::kit::CompiledProgram>(std::move(program), std::move(fingerprint));
  }

  void dispatch(const vyre::kit::HostDispatch& d) override {
    if (kTestVariant.throws) throw std::bad_alloc();
    ++dispatches_;
    const vyre::Program& p = d.program->program();
    std::vector<std::vector<std::uint32_t>> memory(p.buffers.size());
    for (std::size_t i = 0; i < p.buffers.size(); ++i) memory[i].assign(d.buffer_elements[i], 0u);
    const auto& inputs = d.program->input_buffers();
    for (std::size_t i = 0; i < inputs.size(); ++i) memory[inputs[i]] = words_of(d.inputs[i]);
    run(p, d.geometry, memory);
    const auto& outputs = d.program->output_buffers();
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      const auto& words = memory[outputs[i]];
      const vyre::kit::OutputTarget& target = d.outputs[i];
      if (!target.dst.empty())
        std::memcpy(target.dst.data(),
                    reinterpret_cast<const std::byte*>(words.data()) + target.buffer_offset,
                    target.dst.size());
    }
  }

  std::shared_ptr<vyre::kit::DeviceBuffer> resident_alloc(std::uint64_t byte_len) override {
    if (byte_len > (1ull << 30))
      vyre::fail(VYRE_ERR_OUT_OF_MEMORY,
                 "requested " + std::to_string(byte_len) + " bytes; the test device has 1 GiB",
                 "allocate less");
    return std::make_shared<Buffer>(byte_len);
  }

  void resident_free(vyre::kit::DeviceBuffer&) override { ++frees_; }

  void resident_upload(std::span<const vyre::kit::CheckedWrite> writes) override {
    std::lock_guard lock(memory_mutex_);
    for (const auto& w : writes)
      if (!w.data.empty())
        std::memcpy(static_cast<Buffer&>(*w.dst).bytes().data() + w.offset, w.data.data(),
                    w.data.size());
  }

  void resident_download(std::span<const vyre::kit::CheckedRead> reads) override {
    std::lock_guard lock(memory_mutex_);
    for (const auto& r : reads)
      if (!r.data.empty())
        std::memcpy(r.data.data(), static_cast<Buffer&>(*r.src).bytes().data() + r.offset,
                    r.data.size());
  }

  std::unique_ptr<vyre::kit::Pending> dispatch_resident(const vyre::kit::ResidentDispatch& d,
                                                        bool wait) override {
    if (wait) {
      run_resident(d);
      return nullptr;
    }
    // Host bindings are borrowed for the call only: copy them before returning.
    auto copy = std::make_shared<vyre::kit::ResidentDispatch>(d);
    auto host_copies = std::make_shared<std::vector<std::vector<std::byte>>>();
    host_copies->reserve(copy->bindings.size());
    for (auto& b : copy->bindings) {
      if (b.resident) {
        ++b.resident->in_flight;
        continue;
      }
      host_copies->emplace_back(b.host.begin(), b.host.end());
      b.host = Bytes(host_copies->back());
    }
    std::shared_future<void> done =
        std::async(std::launch::async, [this, copy, host_copies] {
          std::this_thread::sleep_for(kAsyncDelay);
          struct Release {
            vyre::kit::ResidentDispatch& d;
            ~Release() {
              for (auto& b : d.bindings)
                if (b.resident) --b.resident->in_flight;
            }
          } release{*copy};
          run_resident(*copy);
        }).share();
    return std::make_unique<ThreadPending>(std::move(done));
  }

  std::vector<vyre::kit::Counter> metrics() override {
    if (kTestVariant.throws) vyre::fail(VYRE_ERR_DEVICE, "metrics exploded", "do not call metrics");
    return {{"test_compiles", compiles_.load()},
            {"test_dispatches", dispatches_.load()},
            {"test_frees", frees_.load()}};
  }

  void metrics_reset() override {
    compiles_ = 0;
    dispatches_ = 0;
    frees_ = 0;
  }

 private:
  static void run(const vyre::Program& p, const vyre::LaunchGeometry& g,
                  std::vector<std::vector<std::uint32_t>>& memory) {
    std::vector<std::span<std::uint32_t>> spans(memory.begin(), memory.end());
    vyre::test::interpret(p, g, spans);
  }

  void run_resident(const vyre::kit::ResidentDispatch& d) {
    const vyre::Program& p = d.program->program();
    std::lock_guard lock(memory_mutex_);
    std::vector<std::vector<std::uint32_t>> host(p.buffers.size());
    std::vector<std::span<std::uint32_t>> spans(p.buffers.size());
    for (std::size_t i = 0; i < p.buffers.size(); ++i) {
      const vyre::kit::CheckedBinding& b = d.bindings[i];
      if (b.resident) {
        spans[i] = std::span(static_cast<Buffer&>(*b.resident).words).first(b.elements);
        continue;
      }
      host[i] = b.host.empty() ? std::vector<std::uint32_t>(d.buffer_elements[i], 0u)
                               : words_of(b.host);
      spans[i] = host[i];
    }
    vyre::test::interpret(p, d.geometry, spans);
  }

  std::mutex memory_mutex_;
  std::atomic<std::uint64_t> compiles_{0};
  std::atomic<std::uint64_t> dispatches_{0};
  std::atomic<std::uint64_t> frees_{0};
};

// VYRE_TEST_CREATE_GATE (see the top comment).
void wait_for_create_gate() {
  const char* gate = std::getenv("VYRE_TEST_CREATE_GATE");
  const std::string prefix = std::string(kTestVariant.id) + ":";
  if (gate == nullptr || std::strncmp(gate, prefix.c_str(), prefix.size()) != 0) return;
  const std::filesystem::path file(gate + prefix.size());
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (!std::filesystem::exists(file)) {
    if (std::chrono::steady_clock::now() > deadline)
      vyre::fail(VYRE_ERR_TIMEOUT, "the create gate " + file.string() + " never opened",
                 "create the gate file while the create waits");
    std::this_thread::sleep_for(5ms);
  }
}

const vyre::kit::PluginSpec& spec() {
  static const vyre::kit::PluginSpec s = [] {
    vyre::kit::PluginSpec p;
    p.id = kTestVariant.id;
    p.version = "0.0.1-test";
    p.rank = kTestVariant.rank;
    p.capabilities = VYRE_CAP_DISPATCH | VYRE_CAP_ASYNC | VYRE_CAP_RESIDENT | kTestVariant.capabilities;
    p.op_ids = declared_ops();
    p.create = [](const vyre::CreateOptions&) -> std::unique_ptr<vyre::kit::BackendImpl> {
      if (kTestVariant.create_fails)
        vyre::fail(VYRE_ERR_NO_DEVICE, std::string("the test device ") + kTestVariant.id + " is switched off",
                   "this backend never creates; it tests skipping");
      vyre::kit::log(VYRE_LOG_INFO, std::string("creating an instance of ") + kTestVariant.id);
      wait_for_create_gate();
      return std::make_unique<TestBackend>();
    };
    return p;
  }();
  return s;
}

}  // namespace

extern "C" VYRE_PLUGIN_EXPORT vyre_status vyre_backend_register(const vyre_host_info* host,
                                                                vyre_backend_info* info) {
  const vyre_status status = vyre::kit::register_backend(spec(), host, info);
  if (!kTestVariant.null_slot || status != VYRE_OK) return status;
  static vyre_backend_fns broken;
  std::memcpy(&broken, info->fns, sizeof broken);
  broken.sequence_run = nullptr;
  info->fns = &broken;
  return status;
}
