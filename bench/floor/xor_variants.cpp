// P1 shape study without vyre: the same 256M-element u32 xor (out = a ^ b) as hand-made PTX
// variants of the elementwise entry's vector path, timed with events, so that the emitter's choice
// (lanes per thread, layout, block size, cache hints) rests on measurements. Built and run on the
// GPU machine like driver_floor.cpp:
//
//   g++ -O2 -std=c++20 -I/usr/local/cuda/include bench/floor/xor_variants.cpp -lcuda -o xor_variants
//
// Every variant is checked against the host's xor on a sample of elements before it is timed.
// Also reports a device-to-device copy of the same bytes (cuMemcpyDtoDAsync) as the ceiling.
#include <cuda.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* name = nullptr;
  cuGetErrorName(r, &name);
  std::fprintf(stderr, "%s failed: %s\n", what, name ? name : "?");
  std::exit(1);
}

struct Variant {
  std::string name;
  int vectors = 1;         // 16-byte vectors per operand per thread
  bool strided = false;    // vector v of a thread at + v * block * 16 bytes (else adjacent)
  unsigned block = 256;
  const char* load = "ld.global";
  const char* store = "st.global";
};

// The kernel: each thread xors `vectors` 16-byte vectors; the grid covers n exactly (n a multiple
// of block * 4 * vectors here).
std::string ptx_of(const Variant& v) {
  std::string s = ".version 7.8\n.target sm_90\n.address_size 64\n";
  s += ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 po, .param .u32 n)\n{\n";
  s += "  .reg .pred %p<2>;\n  .reg .b32 %r<200>;\n  .reg .b64 %rd<100>;\n";
  s += "  ld.param.u64 %rd0, [pa];\n  ld.param.u64 %rd1, [pb];\n  ld.param.u64 %rd2, [po];\n";
  s += "  cvta.to.global.u64 %rd0, %rd0;\n  cvta.to.global.u64 %rd1, %rd1;\n  cvta.to.global.u64 %rd2, %rd2;\n";
  s += "  ld.param.u32 %r0, [n];\n  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, %ctaid.x;\n  mov.u32 %r3, %ntid.x;\n";
  const int lanes = 4 * v.vectors;
  if (v.strided) {
    // byte offset of vector 0: (ctaid * ntid * vectors + tid) * 16; step ntid * 16
    s += "  mul.lo.u32 %r4, %r2, %r3;\n";
    s += "  mul.lo.u32 %r4, %r4, " + std::to_string(v.vectors) + ";\n";
    s += "  add.u32 %r4, %r4, %r1;\n  mul.wide.u32 %rd3, %r4, 16;\n  mul.wide.u32 %rd4, %r3, 16;\n";
  } else {
    s += "  mad.lo.u32 %r4, %r2, %r3, %r1;\n  mul.wide.u32 %rd3, %r4, " + std::to_string(16 * v.vectors) + ";\n";
    s += "  mov.u64 %rd4, 16;\n";
  }
  s += "  mul.wide.u32 %rd5, %r0, 4;\n  setp.ge.u64 %p0, %rd3, %rd5;\n  @%p0 bra DONE;\n";
  s += "  add.s64 %rd10, %rd0, %rd3;\n  add.s64 %rd11, %rd1, %rd3;\n  add.s64 %rd12, %rd2, %rd3;\n";
  int r = 10;
  std::vector<int> a_regs, b_regs;
  for (int k = 0; k < v.vectors; ++k) {
    const std::string off = "%rd" + std::to_string(20 + k);
    s += "  mul.lo.u64 " + off + ", %rd4, " + std::to_string(k) + ";\n";
  }
  for (int k = 0; k < v.vectors; ++k) {
    const std::string off = "%rd" + std::to_string(20 + k);
    s += "  add.s64 %rd" + std::to_string(40 + k) + ", %rd10, " + off + ";\n";
    s += "  add.s64 %rd" + std::to_string(60 + k) + ", %rd11, " + off + ";\n";
    s += "  add.s64 %rd" + std::to_string(80 + k) + ", %rd12, " + off + ";\n";
  }
  for (int k = 0; k < v.vectors; ++k) {
    a_regs.push_back(r);
    s += std::string("  ") + v.load + ".v4.b32 {%r" + std::to_string(r) + ", %r" + std::to_string(r + 1) + ", %r" +
         std::to_string(r + 2) + ", %r" + std::to_string(r + 3) + "}, [%rd" + std::to_string(40 + k) + "];\n";
    r += 4;
    b_regs.push_back(r);
    s += std::string("  ") + v.load + ".v4.b32 {%r" + std::to_string(r) + ", %r" + std::to_string(r + 1) + ", %r" +
         std::to_string(r + 2) + ", %r" + std::to_string(r + 3) + "}, [%rd" + std::to_string(60 + k) + "];\n";
    r += 4;
  }
  for (int k = 0; k < v.vectors; ++k) {
    const int o = r;
    for (int j = 0; j < 4; ++j) {
      s += "  xor.b32 %r" + std::to_string(o + j) + ", %r" + std::to_string(a_regs[k] + j) + ", %r" +
           std::to_string(b_regs[k] + j) + ";\n";
    }
    s += std::string("  ") + v.store + ".v4.b32 [%rd" + std::to_string(80 + k) + "], {%r" + std::to_string(o) +
         ", %r" + std::to_string(o + 1) + ", %r" + std::to_string(o + 2) + ", %r" + std::to_string(o + 3) + "};\n";
    r += 4;
  }
  (void)lanes;
  s += "DONE:\n  ret;\n}\n";
  return s;
}

}  // namespace

std::vector<Variant> all_variants() {
  return {
      {"v4 x1, block 256 (vyre)", 1, false, 256},
      {"v4 x1, block 128", 1, false, 128},
      {"v4 x1, block 512", 1, false, 512},
      {"v4 x1, block 1024", 1, false, 1024},
      {"v4 x1, block 256, st.cs", 1, false, 256, "ld.global", "st.global.cs"},
      {"v4 x1, block 256, ld.cs+st.cs", 1, false, 256, "ld.global.cs", "st.global.cs"},
      {"v4 x2 adjacent, block 256", 2, false, 256},
      {"v4 x2 strided, block 256", 2, true, 256},
      {"v4 x2 strided, block 128", 2, true, 128},
      {"v4 x4 strided, block 256", 4, true, 256},
  };
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--dump") {  // the PTX of variant argv[2] (ptxas checks)
    std::fputs(ptx_of(all_variants().at(std::strtoul(argv[2], nullptr, 10))).c_str(), stdout);
    return 0;
  }
  check(cuInit(0), "cuInit");
  CUdevice dev = 0;
  check(cuDeviceGet(&dev, 0), "device");
  CUcontext ctx = nullptr;
  check(cuDevicePrimaryCtxRetain(&ctx, dev), "retain");
  check(cuCtxSetCurrent(ctx), "current");
  const unsigned n = 1u << 28;
  const std::size_t bytes = std::size_t{n} * 4;
  CUdeviceptr a = 0, b = 0, o = 0;
  check(cuMemAlloc(&a, bytes), "alloc");
  check(cuMemAlloc(&b, bytes), "alloc");
  check(cuMemAlloc(&o, bytes), "alloc");
  check(cuMemsetD32(a, 0x12345678u, n), "memset");
  check(cuMemsetD32(b, 0x0F0F1234u, n), "memset");
  CUstream s = nullptr;
  check(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "stream");
  CUevent e0 = nullptr, e1 = nullptr;
  check(cuEventCreate(&e0, CU_EVENT_DEFAULT), "event");
  check(cuEventCreate(&e1, CU_EVENT_DEFAULT), "event");
  const double moved = 3.0 * static_cast<double>(bytes);

  auto time = [&](auto&& body) {
    std::vector<double> ms;
    for (int i = 0; i < 23; ++i) {
      check(cuEventRecord(e0, s), "record");
      body();
      check(cuEventRecord(e1, s), "record");
      check(cuEventSynchronize(e1), "sync");
      float t = 0;
      check(cuEventElapsedTime(&t, e0, e1), "elapsed");
      if (i >= 3) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  };

  const double copy_ms = time([&] { check(cuMemcpyDtoDAsync(o, a, bytes, s), "copy"); });
  std::printf("%-28s %8.3f ms %8.0f GB/s (read+write of %zu bytes x2)\n", "copy DtoD (ceiling)", copy_ms,
              2.0 * static_cast<double>(bytes) / copy_ms / 1e6, bytes);

  const std::vector<Variant> variants = all_variants();
  for (const Variant& v : variants) {
    const std::string ptx = ptx_of(v);
    CUmodule module = nullptr;
    char log[4096] = {};
    CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* vals[2] = {log, reinterpret_cast<void*>(std::uintptr_t{sizeof(log) - 1})};
    if (cuModuleLoadDataEx(&module, ptx.c_str(), 2, opts, vals) != CUDA_SUCCESS) {
      std::printf("%-28s JIT failed: %s\n", v.name.c_str(), log);
      continue;
    }
    CUfunction fn = nullptr;
    check(cuModuleGetFunction(&fn, module, "k"), "function");
    unsigned count = n;
    void* args[4] = {&a, &b, &o, &count};
    const unsigned per_block = v.block * 4 * static_cast<unsigned>(v.vectors);
    const unsigned grid = (n + per_block - 1) / per_block;
    check(cuMemsetD32(o, 0, n), "clear");
    check(cuLaunchKernel(fn, grid, 1, 1, v.block, 1, 1, 0, s, args, nullptr), "launch");
    check(cuStreamSynchronize(s), "sync");
    std::vector<std::uint32_t> sample(4096);
    bool ok = true;
    for (std::size_t at : {std::size_t{0}, bytes / 2 + 4096, bytes - sample.size() * 4}) {
      check(cuMemcpyDtoH(sample.data(), o + at, sample.size() * 4), "read");
      for (std::uint32_t w : sample) ok = ok && w == (0x12345678u ^ 0x0F0F1234u);
    }
    const double ms = time([&] { check(cuLaunchKernel(fn, grid, 1, 1, v.block, 1, 1, 0, s, args, nullptr), "launch"); });
    std::printf("%-28s %8.3f ms %8.0f GB/s %s\n", v.name.c_str(), ms, moved / ms / 1e6, ok ? "ok" : "WRONG");
    cuModuleUnload(module);
  }
  return 0;
}
