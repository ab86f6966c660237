// The fixed launch geometry of an AOT bundle: every buffer size and the grid are resolved at
// compile time (SPEC §3 through vyre::resolve_geometry), because a bundle launches exactly what its
// manifest says.
#pragma once

#include <cstdint>
#include <vector>

#include "vyre/geometry.hpp"
#include "vyre/ir.hpp"

namespace vyre::cuda::aot {

struct BundleGeometry {
  LaunchGeometry launch;              // non-empty; N fits u32
  std::vector<std::uint64_t> counts;  // per declared buffer, its fixed element count
};

// Throws vyre::Error: VYRE_ERR_INVALID_ARGUMENT for a runtime-sized (count 0) buffer, an
// inconsistent config, or an empty dispatch; VYRE_ERR_LIMIT when N does not fit u32.
BundleGeometry resolve_bundle_geometry(const Program& program, const DispatchConfig& config);

}  // namespace vyre::cuda::aot
