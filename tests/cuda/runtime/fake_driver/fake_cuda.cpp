// The fake CUDA driver (see fake_cuda.h). Signatures follow runtime/driver_api.hpp, which follows
// the CUDA 12.0 driver API.
#include <algorithm>
#include "fake_cuda.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/driver_api.hpp"

namespace drv = vyre::cuda::drv;
using drv::CUresult;

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr CUresult kInvalidContext = 201;
constexpr CUresult kInvalidHandle = 400;

struct Range {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};

struct Op {
  std::function<void()> run;
  std::vector<Range> touches;  // device ranges, for the free-while-pending check
};

struct Function {
  std::string name;
  std::vector<int> param_bytes;
  unsigned reqntid[3] = {0, 0, 0};  // the entry's .reqntid (0: none), which every launch must match
};

// A real driver refuses (CUDA_ERROR_INVALID_VALUE) a launch whose block is not the entry's .reqntid;
// the fake also counts it as a violation, since the runtime must never attempt one.
bool block_allowed(const Function* function, const unsigned block[3]) {
  if (function->reqntid[0] == 0) return true;
  return block[0] == function->reqntid[0] && block[1] == function->reqntid[1] && block[2] == function->reqntid[2];
}

struct Module {
  std::vector<std::unique_ptr<Function>> functions;
};

struct Graph;

struct Stream {
  int device = 0;  // of the context current when it was created
  std::deque<Op> queue;
  std::uint64_t enqueued = 0;
  std::uint64_t executed = 0;
  Graph* capture = nullptr;
  bool running = false;  // an operation of it is running (it may wait with the lock released)
};

struct Event {
  unsigned flags = 0;
  Stream* stream = nullptr;
  std::uint64_t position = 0;
  bool recorded = false;
  unsigned queries = 0;
};

struct KernelNode {
  const Function* function = nullptr;
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  std::vector<std::uint64_t> params;
};

struct Graph {
  std::vector<std::unique_ptr<KernelNode>> nodes;  // explicit graphs
  std::vector<Op> captured;                         // captured graphs
};

struct Exec {
  std::vector<KernelNode> nodes;
  std::map<const KernelNode*, std::size_t> index;
  std::vector<Op> captured;
};

struct State {
  std::recursive_mutex mutex;
  std::map<std::uint64_t, std::pair<std::uint64_t, bool>> allocations;  // base -> (bytes, host)
  std::map<std::uint64_t, int> allocation_device;                        // device allocations' device
  std::uint64_t total_memory = 1ull << 30;
  std::uint64_t device_bytes = 0;
  std::set<Stream*> streams;
  std::set<Event*> events;
  std::set<Module*> modules;
  std::set<Graph*> graphs;
  std::set<Exec*> execs;
  fake_cuda_kernel_fn kernel = nullptr;
  void* kernel_user = nullptr;
  fake_cuda_stats stats{};
};

State& state() {
  static State* s = new State();  // never destroyed: the plugin may call in during process exit
  return *s;
}

thread_local drv::CUcontext current_context = nullptr;
// Device d's primary context is the handle 0xC0 + 0x10 * d (never dereferenced).
constexpr std::uintptr_t kPrimaryContextBase = 0xC0;
constexpr std::uintptr_t kContextStride = 0x10;
constexpr int kMaxDevices = 64;

drv::CUcontext primary_context(int device) {
  return reinterpret_cast<drv::CUcontext>(kPrimaryContextBase + kContextStride * static_cast<std::uintptr_t>(device));
}

// The device of the current context, or -1 without a (valid) one.
int current_device() {
  const auto handle = reinterpret_cast<std::uintptr_t>(current_context);
  if (handle < kPrimaryContextBase || (handle - kPrimaryContextBase) % kContextStride != 0) return -1;
  const auto device = static_cast<int>((handle - kPrimaryContextBase) / kContextStride);
  return device < kMaxDevices ? device : -1;
}

void violation(const std::string& what) {
  State& s = state();
  ++s.stats.violations;
  std::snprintf(s.stats.last_violation, sizeof(s.stats.last_violation), "%s", what.c_str());
  std::fprintf(stderr, "fake_cuda violation: %s\n", what.c_str());
}

bool has_context() {
  if (current_device() >= 0) return true;
  violation("a driver call without a current context on this thread");
  return false;
}

// Device memory used under another device's context is a violation (the real driver faults or
// copies across the bus); pinned host memory is portable.
void check_same_device(std::uint64_t address, const char* what) {
  State& s = state();
  auto it = s.allocation_device.upper_bound(address);
  if (it == s.allocation_device.begin()) return;
  --it;
  const auto found = s.allocations.find(it->first);
  if (found == s.allocations.end() || address >= it->first + found->second.first) return;
  if (it->second == current_device()) return;
  violation(std::string(what) + ": memory of device " + std::to_string(it->second) + " used while device " +
            std::to_string(current_device()) + "'s context is current");
}

// The allocation holding [address, address + bytes), if any.
const std::pair<const std::uint64_t, std::pair<std::uint64_t, bool>>* find_allocation(std::uint64_t address,
                                                                                     std::uint64_t bytes) {
  State& s = state();
  auto it = s.allocations.upper_bound(address);
  if (it == s.allocations.begin()) return nullptr;
  --it;
  if (address + bytes > it->first + it->second.first) return nullptr;
  return &*it;
}

bool device_range_ok(std::uint64_t address, std::uint64_t bytes, const char* what) {
  const auto* found = find_allocation(address, bytes);
  if (found != nullptr && !found->second.second) return true;
  std::ostringstream text;
  text << what << ": device range [0x" << std::hex << address << ", +" << std::dec << bytes
       << ") is not inside a live device allocation";
  violation(text.str());
  return false;
}

bool pinned_range_ok(const void* pointer, std::uint64_t bytes, const char* what) {
  const auto address = reinterpret_cast<std::uint64_t>(pointer);
  const auto* found = find_allocation(address, bytes);
  if (found != nullptr && found->second.second) return true;
  violation(std::string(what) + ": host memory is not inside a pinned allocation (cuMemHostAlloc)");
  return false;
}

void run_stream(Stream* stream, std::uint64_t upto) {
  // A stream whose operation is running already (the fake NCCL waiting, lock released, for ranks
  // on other threads) is left to the thread running it: running its later operations now would
  // run them before that one finished.
  if (stream->running) return;
  stream->running = true;
  while (stream->executed < upto && !stream->queue.empty()) {
    Op op = std::move(stream->queue.front());
    stream->queue.pop_front();
    op.run();
    ++stream->executed;
  }
  stream->running = false;
}

void run_all() {
  for (Stream* stream : state().streams) run_stream(stream, stream->enqueued);
}

bool valid_stream(drv::CUstream handle) {
  auto* stream = reinterpret_cast<Stream*>(handle);
  if (state().streams.count(stream) == 0) {
    violation("an unknown or null stream");
    return false;
  }
  if (stream->device != current_device()) {
    violation("a stream of device " + std::to_string(stream->device) + " used while device " +
              std::to_string(current_device()) + "'s context is current");
    return false;
  }
  return true;
}

void enqueue(drv::CUstream handle, Op op) {
  auto* stream = reinterpret_cast<Stream*>(handle);
  if (stream->capture != nullptr) {
    stream->capture->captured.push_back(std::move(op));
    return;
  }
  stream->queue.push_back(std::move(op));
  ++stream->enqueued;
}

void execute_kernel(const KernelNode& node, bool cooperative) {
  State& s = state();
  ++s.stats.kernel_launches;
  if (cooperative) ++s.stats.cooperative_launches;
  if (s.kernel == nullptr) return;
  fake_cuda_launch launch{};
  launch.entry = node.function->name.c_str();
  for (int axis = 0; axis < 3; ++axis) {
    launch.grid[axis] = node.grid[axis];
    launch.block[axis] = node.block[axis];
  }
  launch.params = node.params.data();
  launch.param_count = node.params.size();
  launch.cooperative = cooperative ? 1 : 0;
  s.kernel(&launch, s.kernel_user);
}

std::vector<Range> pointer_params(const KernelNode& node) {
  std::vector<Range> ranges;
  for (std::size_t i = 0; i < node.params.size(); ++i) {
    if (node.function->param_bytes[i] != 8) continue;
    const auto* found = find_allocation(node.params[i], 1);
    if (found != nullptr) ranges.push_back({found->first, found->first + found->second.first});
  }
  return ranges;
}

Op kernel_op(KernelNode node, bool cooperative) {
  std::vector<Range> touches = pointer_params(node);
  for (const Range& range : touches) check_same_device(range.begin, "a kernel parameter");
  return Op{[node = std::move(node), cooperative] { execute_kernel(node, cooperative); }, std::move(touches)};
}

bool read_params(const Function* function, void** params, std::vector<std::uint64_t>& out) {
  if (params == nullptr) {
    violation("kernel launched with a null parameter array");
    return false;
  }
  out.clear();
  for (std::size_t i = 0; i < function->param_bytes.size(); ++i) {
    if (params[i] == nullptr) {
      violation("kernel launched with a null parameter slot");
      return false;
    }
    std::uint64_t value = 0;
    std::memcpy(&value, params[i], static_cast<std::size_t>(function->param_bytes[i]));
    out.push_back(value);
  }
  return true;
}

// Parse ".entry name(" and the ".param .uNN" lines that follow, for every entry.
void parse_entries(const std::string& ptx, Module& module) {
  std::istringstream lines(ptx);
  std::string line;
  Function* open = nullptr;
  Function* last = nullptr;
  while (std::getline(lines, line)) {
    const auto entry = line.find(".entry ");
    if (entry != std::string::npos) {
      auto function = std::make_unique<Function>();
      const auto start = entry + 7;
      function->name = line.substr(start, line.find('(', start) - start);
      open = function.get();
      last = open;
      module.functions.push_back(std::move(function));
      continue;
    }
    const auto reqntid = line.find(".reqntid ");
    if (reqntid != std::string::npos && last != nullptr && open == nullptr) {
      unsigned* r = last->reqntid;
      if (std::sscanf(line.c_str() + reqntid + 9, "%u, %u, %u", &r[0], &r[1], &r[2]) != 3) r[0] = r[1] = r[2] = 0;
      continue;
    }
    if (line.find('{') != std::string::npos) last = nullptr;  // the body: no more directives
    if (open == nullptr) continue;
    if (line.find(".param .u64") != std::string::npos || line.find(".param .b64") != std::string::npos) {
      open->param_bytes.push_back(8);
    } else if (line.find(".param .u32") != std::string::npos || line.find(".param .b32") != std::string::npos) {
      open->param_bytes.push_back(4);
    }
    if (line.find(')') != std::string::npos) open = nullptr;
  }
}

int attribute_value(int attribute) {
  switch (attribute) {
    case drv::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: return 1024;
    case drv::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: return 1024;
    case drv::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: return 1024;
    case drv::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: return 64;
    case drv::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: return 2147483647;
    case drv::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: return 65535;
    case drv::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: return 65535;
    case drv::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: return 49152;
    case drv::CU_DEVICE_ATTRIBUTE_WARP_SIZE: return 32;
    case drv::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: return 65536;
    case drv::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: return 132;
    case drv::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: return 2619000;
    case drv::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: return 5120;
    case drv::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: return 52428800;
    case drv::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: return 2048;
    case drv::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: return 9;
    case drv::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: return 0;
    case drv::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: return 233472;
    case drv::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: return 65536;
    case drv::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: return 1;
    case drv::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: return 232448;
    case drv::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: return 32;
    case drv::CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: return 1;
    case drv::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: return 1;  // device memory is host memory here
    default: return -1;
  }
}

int blocks_per_sm(int block_size) {
  if (block_size <= 0) return 0;
  const int by_threads = 2048 / block_size;
  return by_threads < 32 ? by_threads : 32;
}

// The driver's lock, counted per thread so that fake_cuda_unlock_all can release every level.
thread_local int t_lock_depth = 0;
struct Lock {
  explicit Lock(std::recursive_mutex& m) : mutex(m) {
    mutex.lock();
    ++t_lock_depth;
  }
  ~Lock() {
    --t_lock_depth;
    mutex.unlock();
  }
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;
  std::recursive_mutex& mutex;
};

// ---- the entry points ---------------------------------------------------------------------------

CUresult fake_cuGetErrorName(CUresult error, const char** out) {
  static const std::map<CUresult, const char*> names{{0, "CUDA_SUCCESS"},
                                                     {1, "CUDA_ERROR_INVALID_VALUE"},
                                                     {2, "CUDA_ERROR_OUT_OF_MEMORY"},
                                                     {201, "CUDA_ERROR_INVALID_CONTEXT"},
                                                     {400, "CUDA_ERROR_INVALID_HANDLE"},
                                                     {500, "CUDA_ERROR_NOT_FOUND"},
                                                     {600, "CUDA_ERROR_NOT_READY"},
                                                     {720, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"}};
  auto found = names.find(error);
  *out = found == names.end() ? "CUDA_ERROR_UNKNOWN" : found->second;
  return 0;
}

CUresult fake_cuGetErrorString(CUresult error, const char** out) {
  (void)error;
  *out = "fake driver error";
  return 0;
}

CUresult fake_cuDeviceGetCount(int* count) {
  const char* text = std::getenv("FAKE_CUDA_DEVICES");
  *count = text != nullptr ? std::atoi(text) : 1;
  return 0;
}

CUresult fake_cuDeviceGet(drv::CUdevice* device, int ordinal) {
  int count = 0;
  fake_cuDeviceGetCount(&count);
  if (ordinal < 0 || ordinal >= count) return drv::CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return 0;
}

CUresult fake_cuDeviceGetName(char* name, int len, drv::CUdevice device) {
  std::snprintf(name, static_cast<std::size_t>(len), "Fake CUDA Device %d", device);
  return 0;
}

CUresult fake_cuDeviceGetAttribute(int* value, int attribute, drv::CUdevice) {
  *value = attribute_value(attribute);
  return *value < 0 ? drv::CUDA_ERROR_INVALID_VALUE : 0;
}

CUresult fake_cuDeviceTotalMem(std::size_t* bytes, drv::CUdevice) {
  Lock lock(state().mutex);
  *bytes = state().total_memory;
  return 0;
}

CUresult fake_cuDevicePrimaryCtxRetain(drv::CUcontext* ctx, drv::CUdevice device) {
  int count = 0;
  fake_cuDeviceGetCount(&count);
  if (device < 0 || device >= count || device >= kMaxDevices) return drv::CUDA_ERROR_INVALID_DEVICE;
  *ctx = primary_context(device);
  return 0;
}

CUresult fake_cuDevicePrimaryCtxRelease(drv::CUdevice) { return 0; }

CUresult fake_cuCtxSetCurrent(drv::CUcontext ctx) {
  current_context = ctx;
  return 0;
}

CUresult fake_cuMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes) {
  Lock lock(state().mutex);
  if (!has_context()) return kInvalidContext;
  *total_bytes = state().total_memory;
  *free_bytes = state().total_memory - state().device_bytes;
  return 0;
}

CUresult fake_cuModuleLoadDataEx(drv::CUmodule* module, const void* image, unsigned int count,
                                 drv::CUjit_option* options, void** values) {
  Lock lock(state().mutex);
  if (!has_context()) return kInvalidContext;
  for (unsigned i = 0; i < count; ++i) {
    if (options[i] == drv::CU_JIT_INFO_LOG_BUFFER) std::snprintf(static_cast<char*>(values[i]), 16, "fake jit ok");
  }
  auto* loaded = new Module();
  parse_entries(static_cast<const char*>(image), *loaded);
  state().modules.insert(loaded);
  ++state().stats.live_modules;
  *module = reinterpret_cast<drv::CUmodule>(loaded);
  return 0;
}

CUresult fake_cuModuleGetFunction(drv::CUfunction* function, drv::CUmodule handle, const char* name) {
  Lock lock(state().mutex);
  auto* module = reinterpret_cast<Module*>(handle);
  if (state().modules.count(module) == 0) return kInvalidHandle;
  for (const auto& candidate : module->functions) {
    if (candidate->name == name) {
      *function = reinterpret_cast<drv::CUfunction>(candidate.get());
      return 0;
    }
  }
  return drv::CUDA_ERROR_NOT_FOUND;
}

CUresult fake_cuModuleUnload(drv::CUmodule handle) {
  Lock lock(state().mutex);
  auto* module = reinterpret_cast<Module*>(handle);
  if (state().modules.erase(module) == 0) return kInvalidHandle;
  --state().stats.live_modules;
  delete module;
  return 0;
}

CUresult fake_cuFuncGetAttribute(int* value, int attribute, drv::CUfunction handle) {
  const auto* function = reinterpret_cast<const Function*>(handle);
  const unsigned* r = function != nullptr ? function->reqntid : nullptr;
  switch (attribute) {
    case drv::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      *value = r != nullptr && r[0] != 0 ? static_cast<int>(r[0] * r[1] * r[2]) : 1024;
      break;
    case drv::CU_FUNC_ATTRIBUTE_NUM_REGS: *value = 32; break;
    default: *value = 0; break;
  }
  return 0;
}

CUresult fake_cuOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, drv::CUfunction, int block_size, std::size_t) {
  Lock lock(state().mutex);
  if (!has_context()) return kInvalidContext;
  *blocks = blocks_per_sm(block_size);
  return 0;
}

CUresult allocate(std::uint64_t* out, std::size_t bytes, bool host) {
  State& s = state();
  if (!host && s.device_bytes + bytes > s.total_memory) return drv::CUDA_ERROR_OUT_OF_MEMORY;
  void* memory = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (memory == nullptr) return drv::CUDA_ERROR_OUT_OF_MEMORY;
  std::memset(memory, 0x5A, bytes);  // device memory is not zero unless someone zeroes it
  *out = reinterpret_cast<std::uint64_t>(memory);
  s.allocations[*out] = {bytes, host};
  if (!host) s.allocation_device[*out] = current_device();
  if (host) {
    ++s.stats.live_host_allocations;
    s.stats.live_host_bytes += bytes;
    s.stats.peak_host_bytes = std::max(s.stats.peak_host_bytes, s.stats.live_host_bytes);
  } else {
    s.device_bytes += bytes;
    ++s.stats.live_device_allocations;
    s.stats.live_device_bytes = s.device_bytes;
  }
  return 0;
}

CUresult release(std::uint64_t address, bool host) {
  State& s = state();
  auto it = s.allocations.find(address);
  if (it == s.allocations.end() || it->second.second != host) {
    violation("free of an address that is not a live allocation");
    return drv::CUDA_ERROR_INVALID_VALUE;
  }
  const std::uint64_t end = address + it->second.first;
  for (Stream* stream : s.streams) {
    for (const Op& op : stream->queue) {
      for (const Range& range : op.touches) {
        if (range.begin < end && address < range.end) violation("memory freed while queued work still uses it");
      }
    }
  }
  run_all();  // the real driver synchronises on free
  if (!host) {
    s.device_bytes -= it->second.first;
    --s.stats.live_device_allocations;
    s.stats.live_device_bytes = s.device_bytes;
  } else {
    --s.stats.live_host_allocations;
    s.stats.live_host_bytes -= it->second.first;
  }
  std::free(reinterpret_cast<void*>(address));
  s.allocations.erase(it);
  s.allocation_device.erase(address);
  return 0;
}

CUresult fake_cuMemAlloc(drv::CUdeviceptr* ptr, std::size_t bytes) {
  Lock lock(state().mutex);
  if (!has_context()) return kInvalidContext;
  std::uint64_t address = 0;
  const CUresult result = allocate(&address, bytes, false);
  *ptr = address;
  return result;
}

CUresult fake_cuMemFree(drv::CUdeviceptr ptr) {
  Lock lock(state().mutex);
  if (!has_context()) return kInvalidContext;
  return release(ptr, false);
}

// The device allocation holding `address` (nullptr for host allocations and unknown addresses).
const std::pair<const std::uint64_t, std::pair<std::uint64_t, bool>>* device_allocation(std::uint64_t address) {
  const auto* found = find_allocation(address, 1);
  return found != nullptr && !found->second.second ? found : nullptr;
}

CUresult fake_cuMemGetAddressRange(drv::CUdeviceptr* base, std::size_t* bytes, drv::CUdeviceptr ptr) {
  Lock lock(state().mutex);
  if (!has_context()) return kInvalidContext;
  const auto* found = device_allocation(ptr);
  if (found == nullptr) return drv::CUDA_ERROR_NOT_FOUND;
  if (base != nullptr) *base = found->first;
  if (bytes != nullptr) *bytes = found->second.first;
  return 0;
}

// Only CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, of device allocations.
CUresult fake_cuPointerGetAttribute(void* data, int attribute, drv::CUdeviceptr ptr) {
  Lock lock(state().mutex);
  if (attribute != drv::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL) {
    violation("cuPointerGetAttribute: an attribute the fake does not implement");
    return drv::CUDA_ERROR_INVALID_VALUE;
  }
  const auto* found = device_allocation(ptr);
  if (found == nullptr) return drv::CUDA_ERROR_INVALID_VALUE;
  const auto device = state().allocation_device.find(found->first);
  *static_cast<int*>(data) = device != state().allocation_device.end() ? device->second : 0;
  return 0;
}

CUresult fake_cuMemHostAlloc(void** ptr, std::size_t bytes, unsigned int) {
  Lock lock(state().mutex);
  if (!has_context()) return kInvalidContext;
  std::uint64_t address = 0;
  const CUresult result = allocate(&address, bytes, true);
  *ptr = reinterpret_cast<void*>(address);
  return result;
}

CUresult fake_cuMemFreeHost(void* ptr) {
  Lock lock(state().mutex);
  if (!has_context()) return kInvalidContext;
  return release(reinterpret_cast<std::uint64_t>(ptr), true);
}

CUresult fake_cuMemcpyHtoDAsync(drv::CUdeviceptr dst, const void* src, std::size_t bytes, drv::CUstream stream) {
  Lock lock(state().mutex);
  if (!has_context()) return kInvalidContext;
  if (!valid_stream(stream) || !device_range_ok(dst, bytes, "cuMemcpyHtoDAsync") ||
      !pinned_range_ok(src, bytes, "cuMemcpyHtoDAsync")) {
    return drv::CUDA_ERROR_INVALID_VALUE;
  }
  check_same_device(dst, "cuMemcpyHtoDAsync");
  enqueue(stream, Op{[=] {
                       ++state().stats.device_copies;
                       if (device_range_ok(dst, bytes, "cuMemcpyHtoDAsync (when it ran)") &&
                           pinned_range_ok(src, bytes, "cuMemcpyHtoDAsync (when it ran)")) {
                         std::memcpy(reinterpret_cast<void*>(dst), src, bytes);
                       }
                     },
                     {{dst, dst + bytes}}});
  return 0;
}

CUresult fake_cuMemcpyDtoHAsync(void* dst, drv::CUdeviceptr src, std::size_t bytes, drv::CUstream stream) {
  Lock lock(state().mutex);
  if (!has_context()) return kInvalidContext;
  if (!valid_stream(stream) || !device_range_ok(src, bytes, "cuMemcpyDtoHAsync") ||
      !pinned_range_ok(dst, bytes, "cuMemcpyDtoHAsync")) {
    return drv::CUDA_ERROR_INVALID_VALUE;
  }
  check_same_device(src, "cuMemcpyDtoHAsync");
  enqueue(stream, Op{[=] {
                       ++state().stats.device_copies;
                       if (device_range_ok(src, bytes, "cuMemcpyDtoHAsync (when it ran)") &&
                           pinned_range_ok(dst, bytes, "cuMemcpyDtoHAsync (when it ran)")) {
                         std::memcpy(dst, reinterpret_cast<const void*>(src), bytes);
                       }
                     },
                     {{src, src + bytes}}});
  return 0;
}

CUresult fake_cuMemsetD8Async(drv::CUdeviceptr dst, unsigned char value, std::size_t bytes, drv::CUstream stream) {
  Lock lock(state().mutex);
  if (!has_context()) return kInvalidContext;
  if (!valid_stream(stream) || !device_range_ok(dst, bytes, "cuMemsetD8Async")) return drv::CUDA_ERROR_INVALID_VALUE;
  check_same_device(dst, "cuMemsetD8Async");
  enqueue(stream, Op{[=] {
                       ++state().stats.device_memsets;
                       if (device_range_ok(dst, bytes, "cuMemsetD8Async (when it ran)")) {
                         std::memset(reinterpret_cast<void*>(dst), value, bytes);
                       }
                     },
                     {{dst, dst + bytes}}});
  return 0;
}

CUresult fake_cuStreamCreate(drv::CUstream* stream, unsigned int flags) {
  Lock lock(state().mutex);
  if (!has_context()) return kInvalidContext;
  if (flags != drv::CU_STREAM_NON_BLOCKING) violation("a stream that is not CU_STREAM_NON_BLOCKING");
  auto* created = new Stream();
  created->device = current_device();
  state().streams.insert(created);
  ++state().stats.live_streams;
  *stream = reinterpret_cast<drv::CUstream>(created);
  return 0;
}

CUresult fake_cuStreamDestroy(drv::CUstream handle) {
  Lock lock(state().mutex);
  auto* stream = reinterpret_cast<Stream*>(handle);
  if (state().streams.count(stream) == 0) return kInvalidHandle;
  run_stream(stream, stream->enqueued);
  state().streams.erase(stream);
  --state().stats.live_streams;
  delete stream;
  return 0;
}

CUresult fake_cuStreamSynchronize(drv::CUstream handle) {
  Lock lock(state().mutex);
  if (!has_context()) return kInvalidContext;
  if (!valid_stream(handle)) return kInvalidHandle;
  auto* stream = reinterpret_cast<Stream*>(handle);
  run_stream(stream, stream->enqueued);
  return 0;
}

CUresult fake_cuStreamWaitEvent(drv::CUstream handle, drv::CUevent event_handle, unsigned int) {
  Lock lock(state().mutex);
  if (!has_context()) return kInvalidContext;
  auto* event = reinterpret_cast<Event*>(event_handle);
  if (!valid_stream(handle) || state().events.count(event) == 0) return kInvalidHandle;
  if (!event->recorded) return 0;
  Stream* source = event->stream;
  const std::uint64_t position = event->position;
  enqueue(handle, Op{[source, position] {
                       if (state().streams.count(source) != 0) run_stream(source, position);
                     },
                     {}});
  return 0;
}

CUresult fake_cuStreamIsCapturing(drv::CUstream handle, drv::CUstreamCaptureStatus* status) {
  Lock lock(state().mutex);
  if (!has_context()) return kInvalidContext;
  if (handle == nullptr) {  // the legacy default stream: never captured in the fake
    *status = drv::CU_STREAM_CAPTURE_STATUS_NONE;
    return 0;
  }
  if (!valid_stream(handle)) return kInvalidHandle;
  *status = reinterpret_cast<Stream*>(handle)->capture != nullptr ? drv::CU_STREAM_CAPTURE_STATUS_ACTIVE
                                                                  : drv::CU_STREAM_CAPTURE_STATUS_NONE;
  return 0;
}

CUresult fake_cuEventCreate(drv::CUevent* event, unsigned int flags) {
  Lock lock(state().mutex);
  if (!has_context()) return kInvalidContext;
  auto* created = new Event();
  created->flags = flags;
  state().events.insert(created);
  ++state().stats.live_events;
  *event = reinterpret_cast<drv::CUevent>(created);
  return 0;
}

CUresult fake_cuEventDestroy(drv::CUevent handle) {
  Lock lock(state().mutex);
  auto* event = reinterpret_cast<Event*>(handle);
  if (state().events.erase(event) == 0) return kInvalidHandle;
  --state().stats.live_events;
  delete event;
  return 0;
}

CUresult fake_cuEventRecord(drv::CUevent handle, drv::CUstream stream_handle) {
  Lock lock(state().mutex);
  if (!has_context()) return kInvalidContext;
  auto* event = reinterpret_cast<Event*>(handle);
  if (state().events.count(event) == 0) return kInvalidHandle;
  if (stream_handle == nullptr) {  // the legacy default stream: nothing runs on it in the fake
    event->stream = nullptr;
    event->position = 0;
    event->recorded = true;
    event->queries = 0;
    return 0;
  }
  if (!valid_stream(stream_handle)) return kInvalidHandle;
  auto* stream = reinterpret_cast<Stream*>(stream_handle);
  if (stream->capture != nullptr) {
    violation("an event recorded on a capturing stream");
    return drv::CUDA_ERROR_INVALID_VALUE;
  }
  event->stream = stream;
  event->position = stream->enqueued;
  event->recorded = true;
  event->queries = 0;
  return 0;
}

bool event_done(const Event* event) {
  return !event->recorded || state().streams.count(event->stream) == 0 ||
         event->stream->executed >= event->position;
}

CUresult fake_cuEventQuery(drv::CUevent handle) {
  Lock lock(state().mutex);
  if (!has_context()) return kInvalidContext;
  auto* event = reinterpret_cast<Event*>(handle);
  if (state().events.count(event) == 0) return kInvalidHandle;
  if (event_done(event)) return 0;
  if (event->queries++ % 2 == 0) return drv::CUDA_ERROR_NOT_READY;  // still "running"
  run_stream(event->stream, event->position);
  return 0;
}

CUresult fake_cuEventSynchronize(drv::CUevent handle) {
  Lock lock(state().mutex);
  if (!has_context()) return kInvalidContext;
  auto* event = reinterpret_cast<Event*>(handle);
  if (state().events.count(event) == 0) return kInvalidHandle;
  if (!event_done(event)) run_stream(event->stream, event->position);
  return 0;
}

CUresult fake_cuEventElapsedTime(float* ms, drv::CUevent start, drv::CUevent end) {
  Lock lock(state().mutex);
  auto* a = reinterpret_cast<Event*>(start);
  auto* b = reinterpret_cast<Event*>(end);
  if (state().events.count(a) == 0 || state().events.count(b) == 0) return kInvalidHandle;
  if ((a->flags | b->flags) & drv::CU_EVENT_DISABLE_TIMING) {
    violation("cuEventElapsedTime on an event created with CU_EVENT_DISABLE_TIMING");
    return kInvalidHandle;
  }
  if (!event_done(a) || !event_done(b)) return drv::CUDA_ERROR_NOT_READY;
  *ms = 0.25f;
  return 0;
}

CUresult launch(drv::CUfunction function, const unsigned grid[3], const unsigned block[3], unsigned shared,
                drv::CUstream stream, void** params, bool cooperative) {
  if (!has_context()) return kInvalidContext;
  if (function == nullptr || !valid_stream(stream) || shared != 0) return drv::CUDA_ERROR_INVALID_VALUE;
  KernelNode node;
  node.function = reinterpret_cast<const Function*>(function);
  if (!block_allowed(node.function, block)) {
    violation("a launch whose block is not its entry's .reqntid");
    return drv::CUDA_ERROR_INVALID_VALUE;
  }
  for (int axis = 0; axis < 3; ++axis) {
    node.grid[axis] = grid[axis];
    node.block[axis] = block[axis];
  }
  if (!read_params(node.function, params, node.params)) return drv::CUDA_ERROR_INVALID_VALUE;
  if (cooperative) {
    const std::uint64_t blocks = std::uint64_t{grid[0]} * grid[1] * grid[2];
    const int threads = static_cast<int>(block[0] * block[1] * block[2]);
    if (blocks > std::uint64_t(blocks_per_sm(threads)) * 132) {
      violation("a cooperative launch larger than the device can hold co-resident");
      return drv::CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
    }
    if (reinterpret_cast<Stream*>(stream)->capture != nullptr) violation("a cooperative launch captured in a graph");
  }
  enqueue(stream, kernel_op(std::move(node), cooperative));
  return 0;
}

CUresult fake_cuLaunchKernel(drv::CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                             unsigned bz, unsigned shared, drv::CUstream stream, void** params, void** extra) {
  Lock lock(state().mutex);
  if (extra != nullptr) return drv::CUDA_ERROR_INVALID_VALUE;
  const unsigned grid[3] = {gx, gy, gz};
  const unsigned block[3] = {bx, by, bz};
  return launch(f, grid, block, shared, stream, params, false);
}

CUresult fake_cuLaunchCooperativeKernel(drv::CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                        unsigned by, unsigned bz, unsigned shared, drv::CUstream stream,
                                        void** params) {
  Lock lock(state().mutex);
  const unsigned grid[3] = {gx, gy, gz};
  const unsigned block[3] = {bx, by, bz};
  return launch(f, grid, block, shared, stream, params, true);
}

CUresult fake_cuStreamBeginCapture(drv::CUstream handle, drv::CUstreamCaptureMode mode) {
  Lock lock(state().mutex);
  if (!has_context()) return kInvalidContext;
  if (!valid_stream(handle)) return kInvalidHandle;
  if (mode != drv::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) violation("capture mode other than thread-local");
  auto* stream = reinterpret_cast<Stream*>(handle);
  if (stream->capture != nullptr) return drv::CUDA_ERROR_INVALID_VALUE;
  stream->capture = new Graph();
  state().graphs.insert(stream->capture);
  ++state().stats.live_graphs;
  ++state().stats.captures;
  return 0;
}

CUresult fake_cuStreamEndCapture(drv::CUstream handle, drv::CUgraph* graph) {
  Lock lock(state().mutex);
  if (!valid_stream(handle)) return kInvalidHandle;
  auto* stream = reinterpret_cast<Stream*>(handle);
  if (stream->capture == nullptr) return drv::CUDA_ERROR_INVALID_VALUE;
  *graph = reinterpret_cast<drv::CUgraph>(stream->capture);
  stream->capture = nullptr;
  return 0;
}

CUresult fake_cuGraphCreate(drv::CUgraph* graph, unsigned int) {
  Lock lock(state().mutex);
  if (!has_context()) return kInvalidContext;
  auto* created = new Graph();
  state().graphs.insert(created);
  ++state().stats.live_graphs;
  *graph = reinterpret_cast<drv::CUgraph>(created);
  return 0;
}

CUresult node_from_params(const drv::KernelNodeParams* params, KernelNode& node) {
  if (params == nullptr || params->func == nullptr || params->extra != nullptr || params->sharedMemBytes != 0) {
    violation("bad kernel node parameters");
    return drv::CUDA_ERROR_INVALID_VALUE;
  }
  node.function = reinterpret_cast<const Function*>(params->func);
  node.grid[0] = params->gridDimX;
  node.grid[1] = params->gridDimY;
  node.grid[2] = params->gridDimZ;
  node.block[0] = params->blockDimX;
  node.block[1] = params->blockDimY;
  node.block[2] = params->blockDimZ;
  if (!block_allowed(node.function, node.block)) {
    violation("a graph kernel node whose block is not its entry's .reqntid");
    return drv::CUDA_ERROR_INVALID_VALUE;
  }
  return read_params(node.function, params->kernelParams, node.params) ? 0 : drv::CUDA_ERROR_INVALID_VALUE;
}

CUresult fake_cuGraphAddKernelNode(drv::CUgraphNode* out, drv::CUgraph handle, const drv::CUgraphNode* dependencies,
                                   std::size_t dependency_count, const drv::KernelNodeParams* params) {
  Lock lock(state().mutex);
  if (!has_context()) return kInvalidContext;
  auto* graph = reinterpret_cast<Graph*>(handle);
  if (state().graphs.count(graph) == 0) return kInvalidHandle;
  // The runtime builds chains: each node depends on exactly the previous one.
  const KernelNode* previous = graph->nodes.empty() ? nullptr : graph->nodes.back().get();
  const bool chained = previous == nullptr ? dependency_count == 0
                                           : dependency_count == 1 && reinterpret_cast<const KernelNode*>(dependencies[0]) == previous;
  if (!chained) violation("a kernel node that does not depend on exactly the previous node");
  auto node = std::make_unique<KernelNode>();
  const CUresult result = node_from_params(params, *node);
  if (result != 0) return result;
  *out = reinterpret_cast<drv::CUgraphNode>(node.get());
  graph->nodes.push_back(std::move(node));
  return 0;
}

CUresult fake_cuGraphInstantiateWithFlags(drv::CUgraphExec* exec, drv::CUgraph handle, unsigned long long) {
  Lock lock(state().mutex);
  if (!has_context()) return kInvalidContext;
  auto* graph = reinterpret_cast<Graph*>(handle);
  if (state().graphs.count(graph) == 0) return kInvalidHandle;
  auto* created = new Exec();
  for (const auto& node : graph->nodes) {
    created->index[node.get()] = created->nodes.size();
    created->nodes.push_back(*node);
  }
  created->captured = graph->captured;
  state().execs.insert(created);
  ++state().stats.live_execs;
  *exec = reinterpret_cast<drv::CUgraphExec>(created);
  return 0;
}

CUresult fake_cuGraphExecKernelNodeSetParams(drv::CUgraphExec handle, drv::CUgraphNode node,
                                             const drv::KernelNodeParams* params) {
  Lock lock(state().mutex);
  if (!has_context()) return kInvalidContext;
  auto* exec = reinterpret_cast<Exec*>(handle);
  if (state().execs.count(exec) == 0) return kInvalidHandle;
  auto found = exec->index.find(reinterpret_cast<const KernelNode*>(node));
  if (found == exec->index.end()) return kInvalidHandle;
  KernelNode updated;
  const CUresult result = node_from_params(params, updated);
  if (result != 0) return result;
  if (updated.function != exec->nodes[found->second].function) violation("a graph node update that changes the function");
  exec->nodes[found->second] = std::move(updated);
  return 0;
}

CUresult fake_cuGraphLaunch(drv::CUgraphExec handle, drv::CUstream stream) {
  Lock lock(state().mutex);
  if (!has_context()) return kInvalidContext;
  auto* exec = reinterpret_cast<Exec*>(handle);
  if (state().execs.count(exec) == 0 || !valid_stream(stream)) return kInvalidHandle;
  ++state().stats.graph_launches;
  // A launch runs the graph as it is now; later updates affect later launches only.
  for (const KernelNode& node : exec->nodes) enqueue(stream, kernel_op(node, false));
  for (const Op& op : exec->captured) enqueue(stream, op);
  return 0;
}

CUresult fake_cuGraphExecDestroy(drv::CUgraphExec handle) {
  Lock lock(state().mutex);
  auto* exec = reinterpret_cast<Exec*>(handle);
  if (state().execs.erase(exec) == 0) return kInvalidHandle;
  --state().stats.live_execs;
  delete exec;
  return 0;
}

CUresult fake_cuGraphDestroy(drv::CUgraph handle) {
  Lock lock(state().mutex);
  auto* graph = reinterpret_cast<Graph*>(handle);
  if (state().graphs.erase(graph) == 0) return kInvalidHandle;
  --state().stats.live_graphs;
  delete graph;
  return 0;
}

// Every entry point is handed out through a trampoline that counts its calls (fake_cuda_call_count),
// so tests can see how many driver calls an operation makes.
template <auto Fn>
struct Counted;
template <typename... Args, CUresult (*Fn)(Args...)>
struct Counted<Fn> {
  static inline std::atomic<std::uint64_t> calls{0};
  static CUresult call(Args... args) {
    calls.fetch_add(1, std::memory_order_relaxed);
    return Fn(args...);
  }
};

struct EntryPoint {
  void* function;
  std::atomic<std::uint64_t>* calls;
};

const std::map<std::string, EntryPoint>& entry_points() {
  static const std::map<std::string, EntryPoint> table{
#define FAKE_ENTRY(name) {#name, {reinterpret_cast<void*>(&Counted<&fake_##name>::call), &Counted<&fake_##name>::calls}},
      FAKE_ENTRY(cuGetErrorName) FAKE_ENTRY(cuGetErrorString) FAKE_ENTRY(cuDeviceGetCount)
      FAKE_ENTRY(cuDeviceGet) FAKE_ENTRY(cuDeviceGetName) FAKE_ENTRY(cuDeviceGetAttribute)
      FAKE_ENTRY(cuDeviceTotalMem) FAKE_ENTRY(cuDevicePrimaryCtxRetain) FAKE_ENTRY(cuDevicePrimaryCtxRelease)
      FAKE_ENTRY(cuCtxSetCurrent) FAKE_ENTRY(cuMemGetInfo) FAKE_ENTRY(cuModuleLoadDataEx)
      FAKE_ENTRY(cuModuleGetFunction) FAKE_ENTRY(cuModuleUnload) FAKE_ENTRY(cuFuncGetAttribute)
      FAKE_ENTRY(cuOccupancyMaxActiveBlocksPerMultiprocessor) FAKE_ENTRY(cuMemAlloc) FAKE_ENTRY(cuMemFree)
      FAKE_ENTRY(cuMemGetAddressRange) FAKE_ENTRY(cuPointerGetAttribute)
      FAKE_ENTRY(cuMemHostAlloc) FAKE_ENTRY(cuMemFreeHost) FAKE_ENTRY(cuMemcpyHtoDAsync)
      FAKE_ENTRY(cuMemcpyDtoHAsync) FAKE_ENTRY(cuMemsetD8Async) FAKE_ENTRY(cuStreamCreate)
      FAKE_ENTRY(cuStreamDestroy) FAKE_ENTRY(cuStreamSynchronize) FAKE_ENTRY(cuStreamWaitEvent)
      FAKE_ENTRY(cuStreamIsCapturing) FAKE_ENTRY(cuEventCreate) FAKE_ENTRY(cuEventDestroy) FAKE_ENTRY(cuEventRecord) FAKE_ENTRY(cuEventQuery)
      FAKE_ENTRY(cuEventSynchronize) FAKE_ENTRY(cuEventElapsedTime) FAKE_ENTRY(cuLaunchKernel)
      FAKE_ENTRY(cuLaunchCooperativeKernel) FAKE_ENTRY(cuStreamBeginCapture) FAKE_ENTRY(cuStreamEndCapture)
      FAKE_ENTRY(cuGraphCreate) FAKE_ENTRY(cuGraphAddKernelNode) FAKE_ENTRY(cuGraphInstantiateWithFlags)
      FAKE_ENTRY(cuGraphLaunch) FAKE_ENTRY(cuGraphExecDestroy) FAKE_ENTRY(cuGraphDestroy)
      FAKE_ENTRY(cuGraphExecKernelNodeSetParams)
#undef FAKE_ENTRY
  };
  return table;
}

}  // namespace

// ---- exported symbols (what dlsym finds) ---------------------------------------------------------

FAKE_EXPORT CUresult cuInit(unsigned int flags) { return flags == 0 ? 0 : drv::CUDA_ERROR_INVALID_VALUE; }

FAKE_EXPORT CUresult cuDriverGetVersion(int* version) {
  const char* text = std::getenv("FAKE_CUDA_DRIVER_VERSION");
  *version = text != nullptr ? std::atoi(text) : 12040;
  return 0;
}

FAKE_EXPORT CUresult cuGetErrorName(CUresult error, const char** out) { return fake_cuGetErrorName(error, out); }

FAKE_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int version, drv::cuuint64_t flags,
                                         drv::CUdriverProcAddressQueryResult* status) {
  Lock lock(state().mutex);
  *pfn = nullptr;
  if (version != drv::kDriverApiVersion || flags != drv::CU_GET_PROC_ADDRESS_LEGACY_STREAM) {
    violation(std::string("cuGetProcAddress for ") + symbol + " with an unexpected version or flags");
  }
  auto found = entry_points().find(symbol);
  if (found == entry_points().end() || std::getenv((std::string("FAKE_CUDA_HIDE_") + symbol).c_str()) != nullptr) {
    if (status != nullptr) *status = drv::CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return 0;
  }
  *pfn = found->second.function;
  if (status != nullptr) *status = drv::CU_GET_PROC_ADDRESS_SUCCESS;
  return 0;
}

FAKE_EXPORT void fake_cuda_get_stats(fake_cuda_stats* out) {
  Lock lock(state().mutex);
  *out = state().stats;
}

FAKE_EXPORT void fake_cuda_set_kernel(fake_cuda_kernel_fn fn, void* user) {
  Lock lock(state().mutex);
  state().kernel = fn;
  state().kernel_user = user;
}

FAKE_EXPORT void fake_cuda_set_total_memory(uint64_t bytes) {
  Lock lock(state().mutex);
  state().total_memory = bytes;
}

FAKE_EXPORT void fake_cuda_reset_counters(void) {
  Lock lock(state().mutex);
  fake_cuda_stats& s = state().stats;
  s.kernel_launches = 0;
  s.device_copies = 0;
  s.device_memsets = 0;
  s.cooperative_launches = 0;
  s.graph_launches = 0;
  s.captures = 0;
  s.violations = 0;
  s.last_violation[0] = '\0';
  s.peak_host_bytes = s.live_host_bytes;
}

FAKE_EXPORT uint64_t fake_cuda_call_count(const char* name) {
  const auto found = entry_points().find(name);
  return found == entry_points().end() ? UINT64_MAX : found->second.calls->load();
}

FAKE_EXPORT void fake_cuda_reset_call_counts(void) {
  for (const auto& [name, entry] : entry_points()) entry.calls->store(0);
}

FAKE_EXPORT int fake_cuda_current_device(void) { return current_device(); }

FAKE_EXPORT int fake_cuda_stream_device(void* handle) {
  Lock lock(state().mutex);
  auto* stream = static_cast<Stream*>(handle);
  return state().streams.count(stream) != 0 ? stream->device : -1;
}

FAKE_EXPORT int fake_cuda_pointer_device(uint64_t address, uint64_t bytes) {
  Lock lock(state().mutex);
  const auto* found = find_allocation(address, bytes);
  if (found == nullptr || found->second.second) return -1;
  const auto device = state().allocation_device.find(found->first);
  return device != state().allocation_device.end() ? device->second : -1;
}

FAKE_EXPORT uint64_t fake_cuda_enqueue_host(void* handle, void (*fn)(void* user), void* user) {
  Lock lock(state().mutex);
  auto* stream = static_cast<Stream*>(handle);
  if (state().streams.count(stream) == 0) {
    violation("fake_cuda_enqueue_host on an unknown stream");
    return 0;
  }
  enqueue(reinterpret_cast<drv::CUstream>(stream), Op{[fn, user] { fn(user); }, {}});
  return stream->enqueued;
}

FAKE_EXPORT void fake_cuda_run_stream_until(void* handle, uint64_t position) {
  Lock lock(state().mutex);
  auto* stream = static_cast<Stream*>(handle);
  if (state().streams.count(stream) != 0) run_stream(stream, position);
}

FAKE_EXPORT void fake_cuda_violation(const char* what) {
  Lock lock(state().mutex);
  violation(what);
}

FAKE_EXPORT void fake_cuda_lock(void) {
  state().mutex.lock();
  ++t_lock_depth;
}

FAKE_EXPORT void fake_cuda_unlock(void) {
  --t_lock_depth;
  state().mutex.unlock();
}

FAKE_EXPORT int fake_cuda_unlock_all(void) {
  const int depth = t_lock_depth;
  for (int i = 0; i < depth; ++i) fake_cuda_unlock();
  return depth;
}

FAKE_EXPORT void fake_cuda_relock(int depth) {
  for (int i = 0; i < depth; ++i) fake_cuda_lock();
}
