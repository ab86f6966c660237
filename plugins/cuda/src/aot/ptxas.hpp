// Optional ahead-of-time assembly of the PTX into a cubin with NVIDIA's ptxas. Absence of ptxas is
// not an error: the bundle then carries only PTX, which the driver JIT-compiles at load, and the
// manifest says why there is no cubin.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lowering.hpp"

namespace vyre::cuda::aot {

// VYRE_PTXAS names ptxas explicitly ("off" disables assembly).
inline constexpr const char* kPtxasEnv = "VYRE_PTXAS";

struct CubinResult {
  std::optional<std::vector<std::uint8_t>> cubin;  // set when ptxas ran and succeeded
  std::string status;                              // what happened, for the manifest and the user
};

// Where ptxas is: VYRE_PTXAS, else `ptxas` on PATH, else $CUDA_HOME/bin, else /usr/local/cuda/bin.
// nullopt when none is executable or VYRE_PTXAS is "off".
std::optional<std::filesystem::path> find_ptxas();

// Run `ptxas -arch=sm_XX` on `ptx` in a private temporary directory. Never throws for a missing
// or failing ptxas (the status says what happened); throws vyre::Error (VYRE_ERR_IO) only when the
// temporary files cannot be written.
CubinResult assemble_cubin(const std::string& ptx, const Target& target);

}  // namespace vyre::cuda::aot
