// The local half of the bitwise reductions NCCL lacks (and, or, xor): after the ranks' data is
// exchanged into one scratch buffer per member (`ranks` rows of `words` u32 words, rank order),
// each member folds the rows into its receive buffer with this kernel:
//   out[i] = row[0][i] op row[1][i] op ... op row[ranks - 1][i],  i < words.
// Bitwise operations act on each bit alone, so folding 32-bit words gives the exact result for
// every integer element type (4- and 8-byte elements are whole words). Hand-written PTX (one
// entry, `vyre_collective_bitwise`), loaded into a member's context on first use.
#pragma once

#include <cstdint>
#include <string>

#include "lowering.hpp"
#include "runtime/runtime.hpp"

namespace vyre::cuda {

inline constexpr const char* kBitwiseEntry = "vyre_collective_bitwise";
// The fold's op codes besides VYRE_REDUCE_AND/_OR/_XOR (4, 5, 6): float sums in rank order
// (VYRE_REDUCE_SUM_RANK_ORDER), acc = acc + row[q] rounded to nearest even (add.rn), q = 1..ranks-1.
inline constexpr std::uint32_t kFoldSumF32 = 7;  // f32 elements, one per word
inline constexpr std::uint32_t kFoldSumF64 = 8;  // f64 elements, one per two words (words is even)

// The kernel's PTX for `target`. Parameters: gathered (u64 address), out (u64 address), words
// (u64), ranks (u32), op (u32: VYRE_REDUCE_AND, _OR or _XOR); a grid-stride loop over words.
std::string bitwise_reduce_ptx(const Target& target);

class BitwiseKernel {
 public:
  // Load the module into `runtime`'s context (bound here). Throws vyre::Error as load failures do.
  explicit BitwiseKernel(Runtime& runtime);
  ~BitwiseKernel();  // unloads (errors ignored)
  BitwiseKernel(const BitwiseKernel&) = delete;
  BitwiseKernel& operator=(const BitwiseKernel&) = delete;

  // Queue the fold on `stream` (the context must be current). Nothing for words == 0.
  void launch(drv::CUstream stream, drv::CUdeviceptr gathered, drv::CUdeviceptr out, std::uint64_t words,
              std::uint32_t ranks, std::uint32_t op) const;

 private:
  Runtime& runtime_;
  drv::CUmodule module_ = nullptr;
  drv::CUfunction function_ = nullptr;
};

}  // namespace vyre::cuda
