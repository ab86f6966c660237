#include "fault_ops.hpp"

#include <cstring>

#include "gpu_support.hpp"

namespace vyre::cudatest {
namespace {

using Words = std::vector<std::uint32_t>;

constexpr std::byte kUnwritten{0xAB};

// Caller-owned output buffers, filled with kUnwritten before each run.
class Outputs {
 public:
  void reset(const std::vector<std::size_t>& byte_sizes) {
    buffers_.clear();
    for (std::size_t size : byte_sizes) buffers_.emplace_back(size, kUnwritten);
  }
  std::vector<host::MutableBytes> targets() {
    std::vector<host::MutableBytes> targets;
    for (auto& buffer : buffers_) targets.emplace_back(buffer.data(), buffer.size());
    return targets;
  }
  std::string untouched() const {
    for (std::size_t j = 0; j < buffers_.size(); ++j) {
      for (std::size_t i = 0; i < buffers_[j].size(); ++i) {
        if (buffers_[j][i] != kUnwritten) return "output " + std::to_string(j) + " byte " + std::to_string(i) + " was written";
      }
    }
    return "";
  }
  std::string equal(const std::vector<Words>& expected) const { return compare(buffers_, expected); }

  static std::string compare(const std::vector<ByteVector>& actual, const std::vector<Words>& expected) {
    if (actual.size() != expected.size()) return "output count differs";
    for (std::size_t j = 0; j < expected.size(); ++j) {
      if (words(actual[j]) != expected[j]) return "output " + std::to_string(j) + " differs from the model";
    }
    return "";
  }

 private:
  std::vector<ByteVector> buffers_;
};

std::vector<std::size_t> byte_sizes(const std::vector<Words>& expected) {
  std::vector<std::size_t> sizes;
  for (const Words& w : expected) sizes.push_back(w.size() * 4);
  return sizes;
}

std::vector<Bytes> views_of(const std::vector<Words>& inputs) {
  std::vector<Bytes> views;
  for (const Words& w : inputs) views.push_back(bytes(w));
  return views;
}

// A program with its inputs and the outputs it must produce.
struct HostCase {
  Kernel kernel = Kernel::None;
  std::uint32_t rotate_n = 0;
  Program program;
  std::vector<Words> inputs;
  std::vector<Words> expected;
};

HostCase mapped_case() {  // small elementwise: runs on mapped pinned memory
  HostCase c{Kernel::Xor, 0, xor_program(1024), {random_words(1024, 1), random_words(1024, 2)}, {}};
  c.expected = {xor_model(c.inputs[0], c.inputs[1])};
  return c;
}

HostCase image_case() {  // not elementwise (an If), small: one image up, one span down
  HostCase c{Kernel::Affine, 0, affine_program(4096), {random_words(3000, 3)}, {}};
  c.expected = {affine_model(c.inputs[0], 4096)};
  return c;
}

HostCase copies_case() {  // over 1 MiB: a copy per input, a memset per output
  const std::uint32_t n = 300000;
  HostCase c{Kernel::Affine, 0, affine_program(n), {random_words(n, 4)}, {}};
  c.expected = {affine_model(c.inputs[0], n)};
  return c;
}

HostCase cooperative_case() {  // grid_sync, 16 workgroups: one cooperative launch
  const std::uint32_t n = 4096;
  HostCase c{Kernel::Rotate, n, rotate_program(n), {random_words(n, 5)}, {}};
  Words t = c.inputs[0];
  for (auto& w : t) w += 1;
  c.expected = {rotate_model(c.inputs[0], 1), t};
  return c;
}

class CreateOp final : public FaultOp {
 public:
  CreateOp() : FaultOp("create an instance", Kernel::None) {}
  bool creates() const override { return true; }
  void run(FaultContext& ctx) override { ctx.backend = ctx.open(); }
  std::string verify(FaultContext& ctx) override {
    return ctx.backend.device_profile().multiprocessors > 0 ? "" : "no multiprocessors in the profile";
  }
};

class CompileOp final : public FaultOp {
 public:
  CompileOp() : FaultOp("compile (module load)", Kernel::None) {}
  void run(FaultContext& ctx) override { compiled_ = ctx.backend.compile(affine_program(4096)); }
  std::string verify(FaultContext&) override { return compiled_ ? "" : "no program"; }
  void teardown() override { compiled_ = {}; }

 private:
  host::Program compiled_;
};

enum class HostMode { Sync, Async, Timed };

class HostOp final : public FaultOp {
 public:
  HostOp(std::string name, HostCase c, HostMode mode)
      : FaultOp(std::move(name), c.kernel, c.rotate_n), case_(std::move(c)), mode_(mode) {}
  void setup(FaultContext& ctx) override { compiled_ = ctx.backend.compile(case_.program); }
  void prepare(FaultContext&) override {
    outputs_.reset(byte_sizes(case_.expected));
    timed_ = {};
  }
  void run(FaultContext& ctx) override {
    const auto inputs = views_of(case_.inputs);
    switch (mode_) {
      case HostMode::Sync: ctx.backend.dispatch_into(compiled_, inputs, outputs_.targets()); break;
      case HostMode::Async: {
        const auto pending = ctx.backend.dispatch_async_into(compiled_, inputs, outputs_.targets());
        while (!pending.poll()) {
        }
        pending.wait();
        break;
      }
      case HostMode::Timed: timed_ = ctx.backend.dispatch_timed(compiled_, inputs); break;
    }
  }
  std::string verify(FaultContext&) override {
    if (mode_ != HostMode::Timed) return outputs_.equal(case_.expected);
    if (!timed_.timing.has_device_ns) return "no device time";
    return Outputs::compare(timed_.outputs, case_.expected);
  }
  std::string untouched() const override { return outputs_.untouched(); }
  void teardown() override {
    compiled_ = {};
    timed_ = {};
  }

 private:
  HostCase case_;
  HostMode mode_;
  host::Program compiled_;
  Outputs outputs_;
  host::TimedOutputs timed_;
};

constexpr std::uint32_t kResidentWords = 1024;

class AllocOp final : public FaultOp {
 public:
  AllocOp() : FaultOp("resident alloc", Kernel::None) {}
  void run(FaultContext& ctx) override { buffer_ = ctx.backend.alloc(kResidentWords * 4); }
  std::string verify(FaultContext& ctx) override {
    return words(ctx.backend.download(buffer_, 0, kResidentWords * 4)) == Words(kResidentWords, 0) ? "" : "not zeroed";
  }
  void teardown() override { buffer_ = {}; }

 private:
  ResidentBuffer buffer_;
};

class UploadOp final : public FaultOp {
 public:
  UploadOp() : FaultOp("resident upload", Kernel::None), data_(random_words(kResidentWords, 6)) {}
  void setup(FaultContext& ctx) override { buffer_ = ctx.backend.alloc(kResidentWords * 4); }
  void run(FaultContext& ctx) override { ctx.backend.upload(buffer_, 0, bytes(data_)); }
  std::string verify(FaultContext& ctx) override {
    return words(ctx.backend.download(buffer_, 0, kResidentWords * 4)) == data_ ? "" : "uploaded bytes differ";
  }
  void teardown() override { buffer_ = {}; }

 private:
  Words data_;
  ResidentBuffer buffer_;
};

class DownloadOp final : public FaultOp {
 public:
  DownloadOp() : FaultOp("resident download", Kernel::None), data_(random_words(kResidentWords, 7)) {}
  void setup(FaultContext& ctx) override {
    buffer_ = ctx.backend.alloc(kResidentWords * 4);
    ctx.backend.upload(buffer_, 0, bytes(data_));
  }
  void prepare(FaultContext&) override { outputs_.reset({kResidentWords * 4}); }
  void run(FaultContext& ctx) override {
    const auto targets = outputs_.targets();
    ctx.backend.download(std::vector<host::ResidentRead>{{buffer_, 0, targets[0]}});
  }
  std::string verify(FaultContext&) override { return outputs_.equal({data_}); }
  std::string untouched() const override { return outputs_.untouched(); }
  void teardown() override { buffer_ = {}; }

 private:
  Words data_;
  ResidentBuffer buffer_;
  Outputs outputs_;
};

enum class ResidentMode { Sync, Twice, HostBound, Async, Timed };

// x = x * 3 + y on resident buffers (mix_program).
class ResidentOp final : public FaultOp {
 public:
  ResidentOp(std::string name, ResidentMode mode)
      : FaultOp(std::move(name), Kernel::Mix),
        mode_(mode),
        x0_(random_words(kResidentWords, 8)),
        y0_(random_words(kResidentWords, 9)) {}
  void setup(FaultContext& ctx) override {
    mix_ = ctx.backend.compile(mix_program(kResidentWords));
    x_ = ctx.backend.alloc(kResidentWords * 4);
    y_ = ctx.backend.alloc(kResidentWords * 4);
  }
  void prepare(FaultContext& ctx) override {
    ctx.backend.upload(x_, 0, bytes(x0_));
    ctx.backend.upload(y_, 0, bytes(y0_));
    timing_ = {};
  }
  void run(FaultContext& ctx) override {
    const std::vector<Binding> bindings{Binding::of(x_), mode_ == ResidentMode::HostBound
                                                             ? Binding::host_bytes(bytes(y0_))
                                                             : Binding::of(y_)};
    switch (mode_) {
      case ResidentMode::Twice:
        ctx.backend.dispatch_resident(mix_, bindings);  // the repeat is replayed as a one-node graph
        ctx.backend.dispatch_resident(mix_, bindings);
        break;
      case ResidentMode::Async: ctx.backend.dispatch_resident_async(mix_, bindings).wait(); break;
      case ResidentMode::Timed: timing_ = ctx.backend.dispatch_resident_timed(mix_, bindings); break;
      default: ctx.backend.dispatch_resident(mix_, bindings); break;
    }
  }
  std::string verify(FaultContext& ctx) override {
    if (mode_ == ResidentMode::Timed && !timing_.has_device_ns) return "no device time";
    const int rounds = mode_ == ResidentMode::Twice ? 2 : 1;
    return words(ctx.backend.download(x_, 0, kResidentWords * 4)) == mix_model(x0_, y0_, rounds) ? "" : "x differs";
  }
  void teardown() override {
    mix_ = {};
    x_ = {};
    y_ = {};
  }

 private:
  ResidentMode mode_;
  Words x0_, y0_;
  host::Program mix_;
  ResidentBuffer x_, y_;
  vyre::Timing timing_;
};

// Free a buffer whose last operation is a dispatch (its fence recorded lazily).
class FreeOp final : public FaultOp {
 public:
  FreeOp() : FaultOp("resident free", Kernel::Increment) {}
  // Freeing always completes: when the last operation's fence cannot be recorded or waited for,
  // it waits for that operation's stream instead (cuda_resident.cpp).
  std::set<std::string> absorbs() const override { return {"cuEventRecord", "cuEventSynchronize"}; }
  void setup(FaultContext& ctx) override { increment_ = ctx.backend.compile(increment_program(kResidentWords)); }
  void prepare(FaultContext& ctx) override {
    buffer_ = ctx.backend.alloc(kResidentWords * 4);
    ctx.backend.dispatch_resident_async(increment_, std::vector<Binding>{Binding::of(buffer_)}).wait();
  }
  void run(FaultContext&) override { buffer_.free(); }
  std::string verify(FaultContext&) override { return buffer_.freed() ? "" : "not freed"; }
  void teardown() override {
    increment_ = {};
    buffer_ = {};
  }

 private:
  host::Program increment_;
  ResidentBuffer buffer_;
};

// prefix mix, then mix x3 replayed as a graph, then a read of x.
class SequenceOp final : public FaultOp {
 public:
  SequenceOp(std::string name, bool update)
      : FaultOp(std::move(name), Kernel::Mix),
        update_(update),
        x0_(random_words(kResidentWords, 10)),
        y0_(random_words(kResidentWords, 11)) {}
  void setup(FaultContext& ctx) override {
    mix_ = ctx.backend.compile(mix_program(kResidentWords));
    x_ = ctx.backend.alloc(kResidentWords * 4);
    y_ = ctx.backend.alloc(kResidentWords * 4);
    if (!update_) return;
    // A graph of the same shape on other buffers: the run updates it in place.
    const ResidentBuffer ox = ctx.backend.alloc(kResidentWords * 4), oy = ctx.backend.alloc(kResidentWords * 4);
    ctx.backend.sequence(sequence_on(ox, oy, {}));
  }
  void prepare(FaultContext& ctx) override {
    ctx.backend.upload(x_, 0, bytes(x0_));
    ctx.backend.upload(y_, 0, bytes(y0_));
    outputs_.reset({kResidentWords * 4});
  }
  void run(FaultContext& ctx) override { ctx.backend.sequence(sequence_on(x_, y_, outputs_.targets()[0])); }
  std::string verify(FaultContext&) override { return outputs_.equal({mix_model(x0_, y0_, 4)}); }
  std::string untouched() const override { return outputs_.untouched(); }
  void teardown() override {
    mix_ = {};
    x_ = {};
    y_ = {};
  }

 private:
  host::Sequence sequence_on(const ResidentBuffer& x, const ResidentBuffer& y, host::MutableBytes out) const {
    host::Sequence sequence;
    sequence.prefix = {{mix_, {}, {x, y}}};
    sequence.repeated = {{mix_, {}, {x, y}}};
    sequence.repeat_count = 3;
    if (!out.empty()) sequence.reads = {{x, 0, out}};
    return sequence;
  }

  bool update_;
  Words x0_, y0_;
  host::Program mix_;
  ResidentBuffer x_, y_;
  Outputs outputs_;
};

// A compiled pipeline's first dispatch (the shape is built) or a later one (replayed).
class PipelineOp final : public FaultOp {
 public:
  // `captured`: an image or copies shape captured into a graph (VYRE_CUDA_PIPELINE_CAPTURE=1)
  // instead of dispatched plainly.
  PipelineOp(std::string name, HostCase c, bool replay, bool captured)
      : FaultOp(std::move(name), c.kernel, c.rotate_n), case_(std::move(c)), replay_(replay), captured_(captured) {}
  // The first dispatch captures the shape's work into a graph on a stream of its own: a call
  // failing there fails the capture, and the shape queues the same work directly instead
  // (graph_fallbacks).
  std::set<std::string> absorbs() const override {
    if (replay_ || !captured_) return {};
    return {"cuStreamCreate", "cuMemcpyHtoDAsync", "cuMemcpyDtoHAsync", "cuMemsetD8Async", "cuLaunchKernel"};
  }
  void setup(FaultContext& ctx) override {
    pipeline_ = ctx.backend.pipeline(ctx.backend.compile(case_.program));
    const ScopedEnv capture("VYRE_CUDA_PIPELINE_CAPTURE", captured_ ? "1" : nullptr);  // read per new shape
    if (replay_) pipeline_.dispatch(views_of(case_.inputs));
  }
  void prepare(FaultContext&) override { outputs_.reset(byte_sizes(case_.expected)); }
  void run(FaultContext&) override {
    const ScopedEnv capture("VYRE_CUDA_PIPELINE_CAPTURE", captured_ ? "1" : nullptr);
    pipeline_.dispatch_into(views_of(case_.inputs), outputs_.targets());
  }
  std::string verify(FaultContext&) override { return outputs_.equal(case_.expected); }
  std::string untouched() const override { return outputs_.untouched(); }
  void teardown() override { pipeline_ = {}; }

 private:
  HostCase case_;
  bool replay_;
  bool captured_;
  host::Pipeline pipeline_;
  Outputs outputs_;
};

}  // namespace

std::vector<std::unique_ptr<FaultOp>> representative_fault_ops() {
  std::vector<std::unique_ptr<FaultOp>> ops;
  ops.push_back(std::make_unique<CreateOp>());
  ops.push_back(std::make_unique<CompileOp>());
  ops.push_back(std::make_unique<HostOp>("host sync (mapped)", mapped_case(), HostMode::Sync));
  ops.push_back(std::make_unique<HostOp>("host sync (image)", image_case(), HostMode::Sync));
  ops.push_back(std::make_unique<HostOp>("host sync (copies)", copies_case(), HostMode::Sync));
  ops.push_back(std::make_unique<HostOp>("host sync (cooperative)", cooperative_case(), HostMode::Sync));
  ops.push_back(std::make_unique<HostOp>("host async", image_case(), HostMode::Async));
  ops.push_back(std::make_unique<HostOp>("host timed", image_case(), HostMode::Timed));
  ops.push_back(std::make_unique<AllocOp>());
  ops.push_back(std::make_unique<UploadOp>());
  ops.push_back(std::make_unique<DownloadOp>());
  ops.push_back(std::make_unique<ResidentOp>("resident dispatch", ResidentMode::Sync));
  ops.push_back(std::make_unique<ResidentOp>("resident dispatch twice (repeat graph)", ResidentMode::Twice));
  ops.push_back(std::make_unique<ResidentOp>("resident dispatch (host binding)", ResidentMode::HostBound));
  ops.push_back(std::make_unique<ResidentOp>("resident async", ResidentMode::Async));
  ops.push_back(std::make_unique<ResidentOp>("resident timed", ResidentMode::Timed));
  ops.push_back(std::make_unique<FreeOp>());
  ops.push_back(std::make_unique<SequenceOp>("sequence", false));
  ops.push_back(std::make_unique<SequenceOp>("sequence (graph update)", true));
  ops.push_back(std::make_unique<PipelineOp>("pipeline first dispatch (mapped)", mapped_case(), false, false));
  ops.push_back(std::make_unique<PipelineOp>("pipeline replay (mapped)", mapped_case(), true, false));
  ops.push_back(std::make_unique<PipelineOp>("pipeline (image)", image_case(), true, false));
  ops.push_back(std::make_unique<PipelineOp>("pipeline (copies)", copies_case(), true, false));
  ops.push_back(std::make_unique<PipelineOp>("pipeline (cooperative)", cooperative_case(), true, false));
  ops.push_back(std::make_unique<PipelineOp>("pipeline first dispatch (image, captured)", image_case(), false, true));
  ops.push_back(std::make_unique<PipelineOp>("pipeline replay (image, captured)", image_case(), true, true));
  ops.push_back(std::make_unique<PipelineOp>("pipeline replay (copies, captured)", copies_case(), true, true));
  return ops;
}

}  // namespace vyre::cudatest
