// The interpreter's machine model, shared by the compiler, the kernels and the interpreter.
//
// A workgroup runs SIMT-style: every instruction runs for all *active* lanes (invocations) of the
// workgroup before the next one starts. A register holds one 64-bit slot per lane (slots.hpp);
// register r of lane i lives at regs[r * lanes + i]. An instruction is a kernel function chosen at
// compile time for its operator and types, plus its register operands.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vyre::refcpu {

// The lanes an instruction runs for, in ascending order: 0..n-1 when `dense`, else idx[0..n).
struct LaneSet {
  const std::uint16_t* idx = nullptr;
  std::uint32_t n = 0;
  bool dense = true;
};

template <class F>
inline __attribute__((always_inline)) void for_lanes(const LaneSet& lanes, F&& f) {
  if (lanes.dense) {
    for (std::uint32_t i = 0; i < lanes.n; ++i) f(i);
    return;
  }
  for (std::uint32_t k = 0; k < lanes.n; ++k) f(static_cast<std::uint32_t>(lanes.idx[k]));
}

// A buffer as the kernels see it: `count` elements of the declared storage type at `data`
// (aligned to the element size; accessed through relaxed std::atomic_ref so that workgroups on
// other threads may touch the same buffer without undefined behaviour).
struct MemView {
  std::byte* data = nullptr;
  std::uint64_t count = 0;
};

struct ExecState;
struct Instr;
using KernelFn = void (*)(const Instr& instr, ExecState& state, const LaneSet& lanes);

struct Instr {
  KernelFn fn = nullptr;
  std::uint32_t dst = 0;
  std::uint32_t a = 0;
  std::uint32_t b = 0;
  std::uint32_t c = 0;
  std::uint32_t mem = 0;   // buffer index (loads, stores, atomics)
  std::uint32_t site = 0;  // index into Executable::sites, for run-time errors
};

// What a kernel can reach while it runs: the registers, the buffers, and enough context to
// report a run-time error.
struct ExecState {
  std::uint64_t* regs = nullptr;
  std::uint32_t lanes = 0;             // invocations per workgroup
  MemView* mem = nullptr;              // per declared buffer (workgroup buffers: this worker's)
  const std::vector<std::string>* sites = nullptr;
  std::uint32_t workgroup[3] = {0, 0, 0};

  std::uint64_t* reg(std::uint32_t r) { return regs + static_cast<std::size_t>(r) * lanes; }
};

}  // namespace vyre::refcpu
