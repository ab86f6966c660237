// Building the checked views of resident dispatches, sequences, uploads and downloads.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "instance.hpp"
#include "vyre/backend_abi.h"
#include "vyre/plugin_kit.hpp"

namespace vyre::kit::detail {

// One binding per non-workgroup buffer in declaration order; resident bindings are live handles
// of `instance` whose size matches the declaration; host bindings only for read/uniform buffers
// (and not at all when `resident_only`). Geometry resolved. Throws vyre::Error; no work done.
ResidentDispatch make_resident_dispatch(Instance& instance,
                                        std::shared_ptr<const CompiledProgram> program,
                                        DispatchConfig config, const vyre_binding* bindings,
                                        std::size_t binding_count, bool resident_only,
                                        std::string_view what);

ResidentDispatch make_sequence_step(Instance& instance, const vyre_sequence_step& step,
                                    std::string_view what);

std::vector<CheckedWrite> make_writes(Instance& instance, const vyre_resident_write* writes,
                                       std::size_t count);
std::vector<CheckedRead> make_reads(Instance& instance, const vyre_resident_read* reads,
                                     std::size_t count, std::string_view what);

// The checked dispatch of a vyre_resident_dispatch_args. Throws vyre::Error; no work done.
ResidentDispatch check_resident_dispatch(Instance& instance, const vyre_resident_dispatch_args* args);

// Run a checked dispatch: wait for it when `out` is null, else hand back its pending handle.
void start_resident_dispatch(Instance& instance, const ResidentDispatch& checked, vyre_pending** out);

// The resident buffers a dispatch binds (to keep alive while it is in flight).
std::vector<std::shared_ptr<DeviceBuffer>> residents_of(const ResidentDispatch& dispatch);

}  // namespace vyre::kit::detail
