// A sequence of resident steps (SPEC: prefix once, repeated steps repeat_count times, then reads),
// on one stream with one final fence. The repeated steps are one CUDA graph (kernel_graph.hpp)
// launched repeat_count times; a graph of the same shape (the same kernels in the same order) is
// taken from the cache and updated in place when only bindings or counts changed. Steps that must
// launch cooperatively are never put in a graph: such a sequence launches its steps directly.
#pragma once

#include "runtime/runtime.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::cuda {

void run_sequence(Runtime& runtime, const kit::CheckedSequence& sequence);

}  // namespace vyre::cuda
