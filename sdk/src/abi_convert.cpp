// DispatchConfig <-> vyre_dispatch_config.
#include "vyre/abi_convert.hpp"

#include <array>

#include "vyre/abi_structs.hpp"
#include "vyre/error.hpp"

namespace vyre::abi {

namespace {

constexpr std::uint32_t kKnownConfigFlags = VYRE_CONFIG_HAS_DISPATCH_ELEMENTS | VYRE_CONFIG_HAS_GRID |
                                           VYRE_CONFIG_HAS_WORKGROUP | VYRE_CONFIG_HAS_TIME_LIMIT;

std::array<std::uint32_t, 3> to_array(const std::uint32_t (&v)[3]) { return {v[0], v[1], v[2]}; }

void copy_array(const std::array<std::uint32_t, 3>& from, std::uint32_t (&to)[3]) {
  for (std::size_t i = 0; i < 3; ++i) to[i] = from[i];
}

}  // namespace

DispatchConfig from_abi(const vyre_dispatch_config* config) {
  DispatchConfig out;
  if (config == nullptr) return out;
  const vyre_dispatch_config c = read_struct(config, "vyre_dispatch_config");
  if ((c.flags & ~kKnownConfigFlags) != 0)
    fail(VYRE_ERR_INVALID_ARGUMENT,
         "vyre_dispatch_config.flags has unknown bits 0x" + std::to_string(c.flags & ~kKnownConfigFlags),
         "set only VYRE_CONFIG_HAS_DISPATCH_ELEMENTS, VYRE_CONFIG_HAS_GRID, VYRE_CONFIG_HAS_WORKGROUP and "
         "VYRE_CONFIG_HAS_TIME_LIMIT");
  if (c.flags & VYRE_CONFIG_HAS_DISPATCH_ELEMENTS) out.dispatch_elements = c.dispatch_elements;
  if (c.flags & VYRE_CONFIG_HAS_GRID) out.grid = to_array(c.grid);
  if (c.flags & VYRE_CONFIG_HAS_WORKGROUP) out.workgroup_override = to_array(c.workgroup);
  if (c.flags & VYRE_CONFIG_HAS_TIME_LIMIT) out.time_limit_ns = c.time_limit_ns;
  out.fixpoint_iterations = c.fixpoint_iterations == 0 ? 1 : c.fixpoint_iterations;
  return out;
}

vyre_dispatch_config to_abi(const DispatchConfig& config) {
  vyre_dispatch_config c{};
  c.struct_size = sizeof c;
  c.fixpoint_iterations = config.fixpoint_iterations;
  if (config.dispatch_elements) {
    c.flags |= VYRE_CONFIG_HAS_DISPATCH_ELEMENTS;
    c.dispatch_elements = *config.dispatch_elements;
  }
  if (config.grid) {
    c.flags |= VYRE_CONFIG_HAS_GRID;
    copy_array(*config.grid, c.grid);
  }
  if (config.workgroup_override) {
    c.flags |= VYRE_CONFIG_HAS_WORKGROUP;
    copy_array(*config.workgroup_override, c.workgroup);
  }
  if (config.time_limit_ns) {
    c.flags |= VYRE_CONFIG_HAS_TIME_LIMIT;
    c.time_limit_ns = *config.time_limit_ns;
  }
  return c;
}

}  // namespace vyre::abi
