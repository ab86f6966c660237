// Device-independent checks shared by every dispatch path of the kit.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "vyre/plugin_kit.hpp"

namespace vyre::kit::detail {

// Elements bound to `buffer` by `byte_len` bytes: a whole number of elements, exactly
// count * size when the declaration has a count, fewer than 2^32. `role` names the binding in
// messages ("input", "binding").
std::uint64_t bound_elements(const BufferDecl& buffer, std::uint64_t byte_len, std::string_view role);

// resolve_geometry plus check_config_supported (compile checked every other op).
LaunchGeometry checked_geometry(const CompiledProgram& program, const DispatchConfig& config,
                                std::span<const std::uint64_t> buffer_elements);

// Throws VYRE_ERR_UNSUPPORTED when config needs dispatch.fixpoint and the plugin lacks it, or has a
// time limit and the plugin lacks VYRE_CAP_DEADLINE.
void check_config_supported(const DispatchConfig& config);

// "'name' (buffer 2, u32)"
std::string describe(const BufferDecl& buffer, std::size_t index);

}  // namespace vyre::kit::detail
