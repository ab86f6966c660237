// kit::dispatch_resident_shard: one device's share of a group dispatch (vyre/shard.hpp).
#include <string>

#include <fmt/format.h>

#include "errors.hpp"
#include "handles.hpp"
#include "instance.hpp"
#include "resident_dispatch.hpp"
#include "vyre/abi_convert.hpp"
#include "vyre/abi_structs.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::kit {
namespace {

void check_shardable(const ResidentDispatch& dispatch) {
  if (dispatch.program->grid_sync()) {
    fail(VYRE_ERR_UNSUPPORTED, "dispatch_resident_shard: the program has a Barrier(grid_sync), which cannot be split across devices",
         "dispatch it on one device, or split it at the grid_sync into programs that each run on the group");
  }
  if (dispatch.geometry.fixpoint_iterations > 1) {
    fail(VYRE_ERR_UNSUPPORTED,
         fmt::format("dispatch_resident_shard: fixpoint_iterations = {} iterates over the whole grid, which cannot be split across devices",
                     dispatch.geometry.fixpoint_iterations),
         "dispatch it on one device, or run the iterations as separate group dispatches");
  }
}

void check_range(const LaunchGeometry& geometry, std::uint32_t first, std::uint32_t count) {
  if (std::uint64_t{first} + count <= geometry.grid[0]) return;
  fail(VYRE_ERR_INVALID_ARGUMENT,
       fmt::format("dispatch_resident_shard: workgroups [{}, {}) pass the dispatch's grid of {} along x", first,
                   std::uint64_t{first} + count, geometry.grid[0]),
       "split the grid with vyre::shard_ranges (vyre/shard.hpp)");
}

}  // namespace

vyre_status dispatch_resident_shard(vyre_backend* backend, const vyre_resident_dispatch_args* args,
                                    std::uint32_t first_workgroup_x, std::uint32_t workgroup_count_x,
                                    vyre_error** error) noexcept {
  return detail::guard(error, [&] {
    std::shared_ptr<detail::Instance> instance = detail::find_instance(backend);
    const vyre_resident_dispatch_args a = abi::read_struct(args, "vyre_resident_dispatch_args");
    std::shared_ptr<const CompiledProgram> program = instance->programs.get(detail::from_handle(a.program));
    ResidentDispatch checked = detail::make_resident_dispatch(*instance, std::move(program), abi::from_abi(a.config),
                                                              a.bindings, a.binding_count, false, "vyre_resident_dispatch_args");
    check_shardable(checked);
    check_range(checked.geometry, first_workgroup_x, workgroup_count_x);
    checked.shard = ShardRange{first_workgroup_x, workgroup_count_x};
    instance->backend().dispatch_resident(checked, true).reset();
  });
}

}  // namespace vyre::kit
