// Invariants every decoded program must satisfy, shared by the program harnesses.
#pragma once

#include <string_view>

#include "harness.hpp"
#include "vyre/ir.hpp"

namespace vyre::fuzz {

// validate() never throws and reports each problem with a path and a "Fix:" message; a valid
// program has a wire round trip, a fingerprint and its op ids.
void check_program(const Program& program, std::string_view harness);

}  // namespace vyre::fuzz
