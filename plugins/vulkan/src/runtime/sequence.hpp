// Sequences: the prefix steps recorded once into the main command buffer, the repeated steps once
// into a second one submitted `repeat_count` times, and the reads recorded into a third; one
// submission, one timeline value, then the reads are copied out of staging.
#pragma once

#include "runtime/resident.hpp"

namespace vyre::vulkan {

void run_sequence(Runtime& rt, const kit::CheckedSequence& sequence);

}  // namespace vyre::vulkan
