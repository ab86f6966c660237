#include "device_run.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "cuda_driver.hpp"
#include "errors.hpp"
#include "launch_plan.hpp"

namespace vyre_launch {
namespace {

constexpr cuda::CUresult kCudaErrorNoDevice = 100;

// One kernel of the plan with its argument table. The table's storage never moves after
// construction, so the slot pointers stay valid for every launch.
class PreparedKernel {
 public:
  PreparedKernel(const Entry& entry, cuda::CUfunction function, std::vector<std::uint64_t> values)
      : entry_(entry), function_(function), wide_(values.size()), narrow_(values.size()), slots_(values.size()) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (entry.params[i].bytes == 8) {
        wide_[i] = values[i];
        slots_[i] = &wide_[i];
      } else {
        narrow_[i] = static_cast<std::uint32_t>(values[i]);
        slots_[i] = &narrow_[i];
      }
    }
    if (function_ == nullptr || slots_.empty())
      fail(cat("kernel ", entry.name, " has no function or no arguments"), "this is a launcher bug: report it");
  }
  PreparedKernel(const PreparedKernel&) = delete;
  PreparedKernel& operator=(const PreparedKernel&) = delete;

  const Entry& entry() const { return entry_; }
  cuda::CUfunction function() const { return function_; }
  void** slots() { return slots_.data(); }

 private:
  const Entry& entry_;
  cuda::CUfunction function_;
  std::vector<std::uint64_t> wide_;
  std::vector<std::uint32_t> narrow_;
  std::vector<void*> slots_;
};

std::string dims_text(const Dims& d) { return cat("[", d[0], ", ", d[1], ", ", d[2], "]"); }

int visible_devices(const cuda::Driver& driver) {
  int count = 0;
  const cuda::CUresult result = driver.api().cuDeviceGetCount(&count);
  if (result == kCudaErrorNoDevice) return 0;
  driver.check(result, "cuDeviceGetCount");
  return count;
}

std::uint32_t function_max_threads(const cuda::Driver& driver, cuda::CUfunction function, const std::string& name) {
  int value = 0;
  driver.check(driver.api().cuFuncGetAttribute(&value, cuda::kFuncAttrMaxThreadsPerBlock, function),
               cat("cuFuncGetAttribute(", name, ", max threads per block)"));
  return value < 0 ? 0u : static_cast<std::uint32_t>(value);
}

std::uint64_t resident_capacity(const cuda::Driver& driver, cuda::CUfunction function, const Manifest& m,
                                const cuda::DeviceLimits& device) {
  if (!m.entry.cooperative || !device.cooperative_launch) return 0;
  int per_sm = 0;
  const int threads = static_cast<int>(checked_product(m.workgroup, "workgroup"));
  driver.check(driver.api().cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, function, threads, 0),
               "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  return per_sm <= 0 ? 0 : static_cast<std::uint64_t>(per_sm) * device.multiprocessors;
}

void check_free_memory(const cuda::Driver& driver, const Manifest& m, std::uint64_t barrier_bytes) {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  driver.check(driver.api().cuMemGetInfo(&free_bytes, &total_bytes), "cuMemGetInfo");
  const std::uint64_t needed = device_bytes(m) + barrier_bytes;
  if (needed <= free_bytes) return;
  fail(cat("the bundle needs ", needed, " bytes of device memory but only ", free_bytes, " of ", total_bytes,
           " are free"),
       "free device memory (other processes: nvidia-smi) or use a device with more memory");
}

// The device resources of one run. It is declared after the driver, context and module inside
// DeviceRun::run, so it is destroyed (kernels, then the barrier, then the buffers) while they are
// still alive, on success and on every error path.
struct DeviceState {
  std::vector<std::unique_ptr<cuda::DeviceMemory>> memory;  // per buffer; null for workgroup buffers
  std::vector<cuda::CUdeviceptr> pointers;
  std::unique_ptr<cuda::DeviceMemory> barrier;
  std::vector<std::unique_ptr<PreparedKernel>> kernels;
  bool cooperative = false;

  DeviceState() = default;
  DeviceState(const DeviceState&) = delete;
  DeviceState& operator=(const DeviceState&) = delete;
  ~DeviceState() {
    kernels.clear();
    barrier.reset();
    while (!memory.empty()) memory.pop_back();
  }
};

class DeviceRun {
 public:
  DeviceRun(const Bundle& bundle, const Environment& env, std::ostream& out)
      : bundle_(bundle), m_(bundle.manifest), env_(env), out_(out) {}

  void run(const std::string& out_dir) {
    const cuda::Driver driver = cuda::Driver::open(env_.driver_library);
    const int ordinal = select_device_ordinal(env_, visible_devices(driver));
    cuda::CUdevice device = 0;
    driver.check(driver.api().cuDeviceGet(&device, ordinal), "cuDeviceGet");
    const cuda::DeviceLimits limits = cuda::query_limits(driver, device, ordinal);
    check_device_target(m_, limits);
    const cuda::Context context(driver, device);
    std::string image;
    const std::unique_ptr<cuda::Module> loaded = load_module(driver, limits, image);
    const cuda::Module& module = *loaded;
    const cuda::CUfunction whole = module.function(m_.entry.name);
    const LaunchPlan plan =
        plan_launch(m_, limits, resident_capacity(driver, whole, m_, limits), env_.force_split_grid_sync);
    const std::uint64_t barrier_bytes = plan.cooperative ? m_.grid_barrier_bytes : 0;
    check_free_memory(driver, m_, barrier_bytes);
    DeviceState state;
    s_ = &state;
    allocate(driver, barrier_bytes);
    prepare(driver, module, limits, plan);
    upload();
    const std::uint64_t launches = loop(driver);
    driver.check(driver.api().cuCtxSynchronize(), "the kernel (cuCtxSynchronize after the last launch)");
    out_ << cat("ran ", m_.entry.name, " on device ", ordinal, " (", limits.name, ", sm_", limits.sm, ") from ", image,
                ": grid ", dims_text(m_.grid), " x workgroup ", dims_text(m_.workgroup), ", ", launches,
                " launch(es), ", plan.cooperative ? "cooperative" : (m_.entry.cooperative ? "phase by phase" : "plain"),
                "\n");
    report_metrics();
    write_outputs(open_outputs(bundle_, out_dir));
  }

 private:
  // The cubin when it runs on this device, else the PTX (JIT-compiled by the driver). A cubin the
  // driver refuses (built by a newer toolkit than the driver knows) falls back to the PTX.
  std::unique_ptr<cuda::Module> load_module(const cuda::Driver& driver, const cuda::DeviceLimits& limits,
                                            std::string& image) {
    if (cubin_runs_on(m_, limits)) {
      try {
        image = m_.cubin->file;
        return std::make_unique<cuda::Module>(driver, *bundle_.cubin, image);
      } catch (const LaunchError& error) {
        out_ << cat("note: ", error.what(), " Using ", m_.ptx.file, " instead.\n");
      }
    }
    image = m_.ptx.file;
    return std::make_unique<cuda::Module>(driver, bundle_.ptx, image);
  }

  void allocate(const cuda::Driver& driver, std::uint64_t barrier_bytes) {
    s_->pointers.assign(m_.buffers.size(), 0);
    s_->memory.resize(m_.buffers.size());
    for (std::size_t i = 0; i < m_.buffers.size(); ++i) {
      const Buffer& b = m_.buffers[i];
      if (!is_device_buffer(b.role)) continue;
      s_->memory[i] = std::make_unique<cuda::DeviceMemory>(driver, b.byte_size, cat("buffer \"", b.name, "\""));
      s_->pointers[i] = s_->memory[i]->ptr();
    }
    if (barrier_bytes > 0)
      s_->barrier = std::make_unique<cuda::DeviceMemory>(driver, barrier_bytes, "the grid barrier");
  }

  void prepare(const cuda::Driver& driver, const cuda::Module& module, const cuda::DeviceLimits& limits,
               const LaunchPlan& plan) {
    for (const Entry* entry : plan.kernels) {
      const cuda::CUfunction function = module.function(entry->name);
      check_launch_limits(m_, *entry, limits, function_max_threads(driver, function, entry->name));
      const cuda::CUdeviceptr barrier = s_->barrier ? s_->barrier->ptr() : 0;
      s_->kernels.push_back(std::make_unique<PreparedKernel>(
          *entry, function, kernel_argument_values(m_, *entry, s_->pointers, barrier)));
    }
    s_->cooperative = plan.cooperative;
  }

  void upload() {
    for (std::size_t i = 0; i < m_.buffers.size(); ++i) {
      if (!s_->memory[i]) continue;
      if (bundle_.initial[i]) {
        s_->memory[i]->upload(*bundle_.initial[i]);
      } else {
        s_->memory[i]->zero();
      }
    }
  }

  void launch(const cuda::Driver& driver, PreparedKernel& k) {
    const Dims& g = m_.grid;
    const Dims& b = m_.workgroup;
    if (s_->cooperative) {
      s_->barrier->zero();  // the grid barrier starts from zero in every launch
      driver.check(driver.api().cuLaunchCooperativeKernel(k.function(), g[0], g[1], g[2], b[0], b[1], b[2], 0, nullptr,
                                                          k.slots()),
                   cat("cuLaunchCooperativeKernel(", k.entry().name, ")"));
      return;
    }
    driver.check(
        driver.api().cuLaunchKernel(k.function(), g[0], g[1], g[2], b[0], b[1], b[2], 0, nullptr, k.slots(), nullptr),
        cat("cuLaunchKernel(", k.entry().name, ")"));
  }

  // One step: the whole kernel sequence, fixpoint_iterations times. Returns the launches made.
  std::uint64_t step(const cuda::Driver& driver) {
    std::uint64_t launches = 0;
    for (std::uint32_t round = 0; round < m_.fixpoint_iterations; ++round) {
      for (auto& kernel : s_->kernels) {
        launch(driver, *kernel);
        ++launches;
      }
    }
    return launches;
  }

  // VYRE_TTT_STEPS steps; with a target loss, synchronise after each and stop once it is reached.
  std::uint64_t loop(const cuda::Driver& driver) {
    std::uint64_t launches = 0;
    const bool sync_each_step = env_.ttt_target_loss.has_value();
    for (std::uint32_t s = 1; s <= env_.ttt_steps; ++s) {
      launches += step(driver);
      if (!sync_each_step) continue;
      driver.check(driver.api().cuCtxSynchronize(), cat("the kernel (step ", s, ")"));
      const MetricRecord record = read_metrics();
      if (std::isfinite(record.loss) && record.loss <= *env_.ttt_target_loss) {
        out_ << converged_line(s, record) << "\n";
        break;
      }
    }
    return launches;
  }

  MetricRecord read_metrics() const {
    const int index = metrics_buffer(m_);
    const Buffer& b = m_.buffers[static_cast<std::size_t>(index)];
    std::uint32_t words[kMetricRecordWords] = {};
    const std::uint64_t offset = (b.count - kMetricRecordWords) * 4;
    s_->memory[static_cast<std::size_t>(index)]->download(words, offset, sizeof words);
    return decode_metric_record(words);
  }

  void report_metrics() {
    if (metrics_buffer(m_) < 0) return;
    out_ << final_line(read_metrics()) << "\n";
  }

  void write_outputs(const Directory& outputs) {
    for (std::size_t i = 0; i < m_.buffers.size(); ++i) {
      const Buffer& b = m_.buffers[i];
      if (!is_host_output(b.role)) continue;
      const ByteRange range = b.output_byte_range.value_or(ByteRange{0, b.byte_size});
      std::string bytes(static_cast<std::size_t>(range.end - range.begin), '\0');
      s_->memory[i]->download(&bytes[0], range.begin, bytes.size());
      outputs.write(output_file_name(b), bytes);
      out_ << cat("output ", b.name, ": ", bytes.size(), " bytes -> ", outputs.path_of(output_file_name(b)), "\n");
    }
  }

  const Bundle& bundle_;
  const Manifest& m_;
  const Environment& env_;
  std::ostream& out_;
  DeviceState* s_ = nullptr;  // the state of the running run()
};

std::string loss_text(float loss) {
  char text[64];
  std::snprintf(text, sizeof text, "%.6f", static_cast<double>(loss));
  return text;
}

}  // namespace

MetricRecord decode_metric_record(const std::uint32_t (&words)[kMetricRecordWords]) {
  MetricRecord record;
  record.step = words[0];
  std::memcpy(&record.loss, &words[1], sizeof record.loss);
  record.tokens = words[2];
  return record;
}

std::string final_line(const MetricRecord& r) {
  return cat("FINAL step=", r.step, " loss=", loss_text(r.loss), " tokens=", r.tokens);
}

std::string converged_line(std::uint32_t launch_step, const MetricRecord& r) {
  return cat("TTT_CONVERGED step=", launch_step, " loss=", loss_text(r.loss), " tokens=", r.tokens);
}

void run_on_device(const Bundle& bundle, const Environment& env, const std::string& out_dir, std::ostream& out) {
  DeviceRun(bundle, env, out).run(out_dir);
}

}  // namespace vyre_launch
