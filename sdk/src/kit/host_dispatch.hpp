// Building the checked HostDispatch view from the ABI's host input/output arrays.
#pragma once

#include <cstddef>
#include <memory>

#include "vyre/backend_abi.h"
#include "vyre/plugin_kit.hpp"

namespace vyre::kit::detail {

// Every device-independent check of a host dispatch (SPEC §2/§3): input and output counts equal
// the program's, byte lengths match the declarations, output capacities suffice for the (trimmed)
// outputs, output_byte_range lies within the bound buffer, the geometry resolves. Throws
// vyre::Error; performs no work.
HostDispatch make_host_dispatch(std::shared_ptr<const CompiledProgram> program, DispatchConfig config,
                                const vyre_host_input* inputs, std::size_t input_count,
                                vyre_host_output* outputs, std::size_t output_count);

// Write each output's byte_len (call after the dispatch succeeded).
void set_output_lengths(vyre_host_output* outputs, const HostDispatch& dispatch);

}  // namespace vyre::kit::detail
