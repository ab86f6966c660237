// The driver's own floor for P2/P3-sized work, measured without vyre: what the CUDA driver API
// costs per call on this machine, so that vyre's per-dispatch overhead can be read as
// (vyre's time - this floor). Built and run on the GPU machine (not part of the CMake build):
//
//   g++ -O2 -std=c++20 -I/usr/local/cuda/include -Ibench/src bench/floor/driver_floor.cpp -lcuda -o driver_floor
//   ./driver_floor > floor.txt
//
// Cases (medians of 15 samples; the kernel is a 1024-element u32 xor, 4 blocks of 256):
//   launch            10k cuLaunchKernel on one stream: enqueue loop / 10k, and until finished / 10k
//   launch+record     the same with a cuEventRecord after each launch (a fence per dispatch)
//   launch+wait3      the same with 3 cuStreamWaitEvent before each launch (cross-stream order)
//   copies_rt         2 H2D (4 KiB each) + memset + launch + D2H + cuStreamSynchronize, pinned
//   image_rt          1 H2D (12 KiB) + launch + D2H + cuStreamSynchronize
//   mapped_rt         launch on mapped pinned memory + cuStreamSynchronize
//   mapped_rt_event   launch on mapped pinned memory + cuEventRecord + cuEventSynchronize
//   launch_burst100   100 launches then a sync: the launch's host cost while the queue is short
//   graphN_per_node   replaying a captured graph of N launches: host time per kernel (and total)
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "xor_ptx.hpp"

namespace {

void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* name = nullptr;
  cuGetErrorName(r, &name);
  std::fprintf(stderr, "%s failed: %s\n", what, name ? name : "?");
  std::exit(1);
}

double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Kernel {
  CUfunction fn = nullptr;
  CUdeviceptr a = 0, b = 0, o = 0;
  unsigned n = 1024;
  void* args[4] = {&a, &b, &o, &n};
  void launch(CUstream s) { check(cuLaunchKernel(fn, 4, 1, 1, 256, 1, 1, 0, s, args, nullptr), "launch"); }
};

constexpr int kLaunches = 10000;
constexpr int kSamples = 15;

void report(const char* name, const std::vector<double>& per, const char* unit) {
  std::printf("%-18s %8.3f %s\n", name, median(per), unit);
}

void launch_loops(Kernel& k, CUstream s, CUstream other) {
  std::vector<CUevent> events(kLaunches);
  for (auto& e : events) check(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), "event");
  CUevent foreign = nullptr;
  check(cuEventCreate(&foreign, CU_EVENT_DISABLE_TIMING), "event");
  check(cuEventRecord(foreign, other), "record");
  for (int mode = 0; mode < 3; ++mode) {
    std::vector<double> enqueue, total;
    for (int sample = 0; sample < kSamples + 1; ++sample) {
      const double t0 = now_us();
      for (int i = 0; i < kLaunches; ++i) {
        if (mode == 2) {
          for (int w = 0; w < 3; ++w) check(cuStreamWaitEvent(s, foreign, 0), "wait");
        }
        k.launch(s);
        if (mode == 1) check(cuEventRecord(events[i], s), "record");
      }
      const double t1 = now_us();
      check(cuStreamSynchronize(s), "sync");
      const double t2 = now_us();
      if (sample == 0) continue;  // warm-up
      enqueue.push_back((t1 - t0) / kLaunches);
      total.push_back((t2 - t0) / kLaunches);
    }
    const char* names[3][2] = {{"launch", "launch_total"}, {"launch+record", "launch+record_total"},
                               {"launch+wait3", "launch+wait3_total"}};
    report(names[mode][0], enqueue, "us/launch");
    report(names[mode][1], total, "us/launch");
  }
  for (auto& e : events) cuEventDestroy(e);
  cuEventDestroy(foreign);
}

// Host cost of a launch while the queue is short (100 launches, then a sync), and of replaying a
// captured graph of 1 or 16 launches (what batching dispatches into graphs would cost).
void burst_and_graphs(Kernel& k, CUstream s) {
  std::vector<double> burst;
  for (int sample = 0; sample < 200; ++sample) {
    const double t0 = now_us();
    for (int i = 0; i < 100; ++i) k.launch(s);
    const double t1 = now_us();
    check(cuStreamSynchronize(s), "sync");
    if (sample >= 20) burst.push_back((t1 - t0) / 100);
  }
  report("launch_burst100", burst, "us/launch");
  for (int nodes : {1, 16}) {
    check(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "capture");
    for (int i = 0; i < nodes; ++i) k.launch(s);
    CUgraph graph = nullptr;
    check(cuStreamEndCapture(s, &graph), "end capture");
    CUgraphExec exec = nullptr;
    check(cuGraphInstantiateWithFlags(&exec, graph, 0), "instantiate");
    std::vector<double> enqueue, total;
    const int replays = 10000 / nodes;
    for (int sample = 0; sample < kSamples + 1; ++sample) {
      const double t0 = now_us();
      for (int i = 0; i < replays; ++i) check(cuGraphLaunch(exec, s), "graph launch");
      const double t1 = now_us();
      check(cuStreamSynchronize(s), "sync");
      const double t2 = now_us();
      if (sample == 0) continue;
      enqueue.push_back((t1 - t0) / (replays * nodes));
      total.push_back((t2 - t0) / (replays * nodes));
    }
    const std::string name = "graph" + std::to_string(nodes);
    report((name + "_per_node").c_str(), enqueue, "us/kernel");
    report((name + "_per_node_total").c_str(), total, "us/kernel");
    cuGraphExecDestroy(exec);
    cuGraphDestroy(graph);
  }
}

template <class Body>
void round_trips(const char* name, Body body) {
  std::vector<double> samples;
  for (int i = 0; i < 2200; ++i) {
    const double t0 = now_us();
    body();
    if (i >= 200) samples.push_back(now_us() - t0);
  }
  report(name, samples, "us");
}

}  // namespace

int main() {
  check(cuInit(0), "cuInit");
  CUdevice dev = 0;
  check(cuDeviceGet(&dev, 0), "cuDeviceGet");
  CUcontext ctx = nullptr;
  check(cuDevicePrimaryCtxRetain(&ctx, dev), "retain");
  check(cuCtxSetCurrent(ctx), "set current");
  CUmodule module = nullptr;
  check(cuModuleLoadData(&module, vyre::bench::kXorPtx), "module");
  Kernel k;
  check(cuModuleGetFunction(&k.fn, module, vyre::bench::kXorPtxEntry), "function");
  const std::size_t bytes = 1024 * 4;
  check(cuMemAlloc(&k.a, 3 * 4096), "alloc");
  k.b = k.a + 4096;
  k.o = k.a + 8192;
  CUstream s = nullptr, other = nullptr;
  check(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "stream");
  check(cuStreamCreate(&other, CU_STREAM_NON_BLOCKING), "stream");

  launch_loops(k, s, other);
  burst_and_graphs(k, s);

  void* pinned = nullptr;
  check(cuMemHostAlloc(&pinned, 3 * 4096, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP), "host alloc");
  auto* host = static_cast<unsigned char*>(pinned);
  std::vector<unsigned char> x(bytes, 1), y(bytes, 2), out(bytes);
  round_trips("copies_rt", [&] {
    std::memcpy(host, x.data(), bytes);
    std::memcpy(host + 4096, y.data(), bytes);
    check(cuMemcpyHtoDAsync(k.a, host, bytes, s), "h2d");
    check(cuMemcpyHtoDAsync(k.b, host + 4096, bytes, s), "h2d");
    check(cuMemsetD8Async(k.o, 0, bytes, s), "memset");
    k.launch(s);
    check(cuMemcpyDtoHAsync(host + 8192, k.o, bytes, s), "d2h");
    check(cuStreamSynchronize(s), "sync");
    std::memcpy(out.data(), host + 8192, bytes);
  });
  round_trips("image_rt", [&] {
    std::memcpy(host, x.data(), bytes);
    std::memcpy(host + 4096, y.data(), bytes);
    std::memset(host + 8192, 0, bytes);
    check(cuMemcpyHtoDAsync(k.a, host, 3 * 4096, s), "h2d");
    k.launch(s);
    check(cuMemcpyDtoHAsync(host + 8192, k.o, bytes, s), "d2h");
    check(cuStreamSynchronize(s), "sync");
    std::memcpy(out.data(), host + 8192, bytes);
  });
  Kernel mapped = k;
  mapped.args[0] = &mapped.a;
  mapped.args[1] = &mapped.b;
  mapped.args[2] = &mapped.o;
  mapped.args[3] = &mapped.n;
  mapped.a = reinterpret_cast<CUdeviceptr>(host);
  mapped.b = mapped.a + 4096;
  mapped.o = mapped.a + 8192;
  round_trips("mapped_rt", [&] {
    std::memcpy(host, x.data(), bytes);
    std::memcpy(host + 4096, y.data(), bytes);
    std::memset(host + 8192, 0, bytes);
    mapped.launch(s);
    check(cuStreamSynchronize(s), "sync");
    std::memcpy(out.data(), host + 8192, bytes);
  });
  const bool mapped_ok = out[0] == 3 && out[bytes - 1] == 3;
  CUevent fence = nullptr;
  check(cuEventCreate(&fence, CU_EVENT_DISABLE_TIMING), "event");
  round_trips("mapped_rt_event", [&] {
    std::memcpy(host, x.data(), bytes);
    std::memcpy(host + 4096, y.data(), bytes);
    std::memset(host + 8192, 0, bytes);
    mapped.launch(s);
    check(cuEventRecord(fence, s), "record");
    check(cuEventSynchronize(fence), "event sync");
    std::memcpy(out.data(), host + 8192, bytes);
  });
  std::printf("mapped_result_ok   %d\n", mapped_ok ? 1 : 0);
  return mapped_ok ? 0 : 1;
}
