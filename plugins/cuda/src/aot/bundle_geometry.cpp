#include "aot/bundle_geometry.hpp"

#include <cstdint>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "vyre/error.hpp"

namespace vyre::cuda::aot {
namespace {

std::vector<std::uint64_t> fixed_counts(const Program& program) {
  std::vector<std::uint64_t> counts;
  for (const BufferDecl& buffer : program.buffers) {
    if (buffer.count == 0) {
      fail(VYRE_ERR_INVALID_ARGUMENT,
           fmt::format("buffer '{}' is runtime-sized (count 0), but an AOT bundle fixes every buffer size "
                       "at compile time",
                       buffer.name),
           fmt::format("give its size: vyre-aot --in {0}=FILE (the file's size) or --count {0}=N, or declare a "
                       "count in the program",
                       buffer.name));
    }
    counts.push_back(buffer.count);
  }
  return counts;
}

}  // namespace

BundleGeometry resolve_bundle_geometry(const Program& program, const DispatchConfig& config) {
  BundleGeometry bundle;
  bundle.counts = fixed_counts(program);
  bundle.launch = resolve_geometry(program, config, bundle.counts);
  if (bundle.launch.empty()) {
    fail(VYRE_ERR_INVALID_ARGUMENT,
         fmt::format("the dispatch is empty (N = {}, grid {}): a bundle must launch a non-zero grid", bundle.launch.n,
                     bundle.launch.grid),
         "give the geometry explicitly: vyre-aot --elements N (N >= 1) or --grid X,Y,Z");
  }
  if (bundle.launch.n > UINT32_MAX) {
    fail(VYRE_ERR_LIMIT, fmt::format("the dispatch covers {} elements; CUDA kernels take N as u32", bundle.launch.n),
         "dispatch fewer than 2^32 elements (vyre-aot --elements)");
  }
  return bundle;
}

}  // namespace vyre::cuda::aot
