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

// Where the GPU's bits are not specified (rsqrt.approx.ftz.f32 in inverse_sqrt, asin and acos,
// rcp.approx.ftz.f32 in tanh, sinh, cosh, atan and tan), the twin takes one of several admissible
// values: f32_variants(op) of them (1 for every other function); use_f32_variant(v) selects the
// v-th for the f32 twins this thread runs (sweep_f32 passes the caller's to its threads).
// A function is certified when every variant is within its bound.
int f32_variants(vyre::UnOp op);
void use_f32_variant(int variant);
int current_f32_variant();
// The most admissible values any approximate instruction of this thread's evaluations had since
// the last reset: where it is at most v + 1, variant v + 1 (and every later one) repeats variant
// v's evaluation exactly (each instruction already returned its largest admissible value).
void reset_f32_admitted();
int f32_admitted();

}  // namespace vyre::cuda::math_test
