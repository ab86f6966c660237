// Seeded generator of random *valid* programs (they pass vyre::validate), for round-trip, fuzz
// and differential tests. With every feature on, the programs exercise every expression and node
// kind, every buffer access and every storage type (over a few hundred seeds). They are valid but
// not necessarily race-free or convergent: tests that *run* them should turn off the features
// whose run-time behaviour depends on scheduling (atomics, barriers, subgroups, workgroup buffers,
// stores) as they need. Loops run at most 8 iterations each.
#pragma once

#include <cstdint>
#include <random>

#include "vyre/ir.hpp"

namespace vyre::test {

struct RandomProgramOptions {
  std::uint32_t max_statements = 5;  // per body (at least 1)
  std::uint32_t max_body_depth = 3;  // nesting of If/Loop/Block
  std::uint32_t max_expr_depth = 4;  // nesting of operands
  bool subgroups = true;             // ballot/shuffle/reduce (workgroup product a multiple of 32)
  bool barriers = true;              // Barrier(workgroup)
  bool grid_sync = true;             // top-level Barrier(grid_sync)
  bool atomics = true;
  bool returns = true;
  bool workgroup_buffers = true;
  bool narrow_types = true;          // u8/u16/i8/i16/f16/bf16 buffers
  bool stores = true;                // Store statements (to read_write/output/workgroup buffers)
};

Program random_program(std::uint64_t seed, const RandomProgramOptions& options = {});

// Bits of a random literal of value type `t` (edge values, special floats, NaN payloads, random
// values), zero-extended from the type's width as Lit requires.
std::uint64_t random_literal_bits(std::mt19937_64& rng, Type t);

}  // namespace vyre::test
