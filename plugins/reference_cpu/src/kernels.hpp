// Kernel selection: the compiler asks for the kernel of one operator at the types it sees; each
// returns nullptr where the operator is not defined on those types (the compiler then reports an
// internal error: the validator and the op catalog should have rejected the program).
#pragma once

#include "exec.hpp"
#include "vyre/ir.hpp"

namespace vyre::refcpu {

KernelFn bin_kernel(BinOp op, Type operand);
KernelFn un_kernel(UnOp op, Type operand);
KernelFn cast_kernel(Type from, Type to);
KernelFn bitcast_kernel(Type from, Type to);
KernelFn fma_kernel(Type t);
KernelFn select_kernel();  // dst = a ? b : c
KernelFn copy_kernel();    // dst = a

// Memory: `index` is the index operand's type (u32, or i32 where negative is out of bounds).
KernelFn load_kernel(Type storage, Type index);   // dst = buffer[a]
KernelFn store_kernel(Type storage, Type index);  // buffer[a] = b
// dst = old buffer[a]; value b; expected c (compare_exchange). `element` is the buffer's type.
KernelFn atomic_kernel(AtomicOp op, Type element, Type index);

// Subgroups (32 lanes of consecutive local linear ids); each checks that every subgroup it runs
// for has all 32 lanes active and throws VYRE_ERR_EXECUTION naming Instr::site otherwise.
KernelFn ballot_kernel();             // dst = mask of lanes whose a is true
KernelFn shuffle_kernel();            // dst = a of lane (b % 32)
KernelFn reduce_kernel(ReduceOp op, Type t);  // dst = op over the 32 lanes' a

}  // namespace vyre::refcpu
