// The math library evaluated on the CPU: the same instruction sequences as the PTX functions
// (algorithms instantiated with math::CpuBackend), bit for bit.
#pragma once

#include "vyre/ir.hpp"

namespace vyre::cuda::math_test {

using F32Fn = float (*)(float);
using F64Fn = double (*)(double);

// The CPU twin of the library function for `op`; nullptr if `op` is not a library op.
F32Fn cpu_f32(vyre::UnOp op);
F64Fn cpu_f64(vyre::UnOp op);

}  // namespace vyre::cuda::math_test
