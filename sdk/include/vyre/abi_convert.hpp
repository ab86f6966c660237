// Conversions between the C++ types of the SDK and their C ABI structs, shared by the plugin kit
// (C -> C++) and the host wrapper (C++ -> C), so both sides agree on every field.
#pragma once

#include "vyre/backend_abi.h"
#include "vyre/ir.hpp"

namespace vyre::abi {

// NULL means "all defaults". Applies the struct_size rules; unknown flag bits, a fixpoint count of
// 0 treated as 1. Throws vyre::Error (VYRE_ERR_ABI, VYRE_ERR_INVALID_ARGUMENT).
DispatchConfig from_abi(const vyre_dispatch_config* config);

// A full-size struct describing `config` (its time limit needs a 1.1 reader).
vyre_dispatch_config to_abi(const DispatchConfig& config);

}  // namespace vyre::abi
