// The compiled form of a Program: structured statements over flat instruction lists, built once
// by compile_program and run by the interpreter for every workgroup of every dispatch.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "exec.hpp"
#include "vyre/ir.hpp"

namespace vyre::refcpu {

enum class StmtKind : std::uint8_t {
  Code,     // run `code` (straight-line instructions)
  If,       // split the active lanes on register `cond`; run then_body / else_body
  Loop,     // while var < to: run then_body, var += 1 (per lane; var set by earlier code)
  Return,   // the active lanes end this phase
  Barrier,  // Barrier(workgroup): every lane of the workgroup must be here
};

struct Stmt {
  StmtKind kind = StmtKind::Code;
  std::vector<Instr> code;
  std::uint32_t cond = 0;  // If
  std::uint32_t var = 0;   // Loop
  std::uint32_t to = 0;    // Loop
  std::vector<Stmt> then_body;
  std::vector<Stmt> else_body;
  bool may_return = false;  // a Return can run inside: re-filter the active lanes after it
  std::uint32_t site = 0;   // Barrier
};

// Registers filled by the interpreter rather than by instructions.
enum class FillKind : std::uint8_t {
  Constant,       // value (every lane)
  LocalId,        // axis
  SubgroupLane,   //
  NumWorkgroups,  // axis
  BufLen,         // buffer index
  WorkgroupId,    // axis (per workgroup)
  InvocationId,   // axis (per workgroup)
};

struct RegFill {
  std::uint32_t reg = 0;
  FillKind kind = FillKind::Constant;
  std::uint32_t arg = 0;
  std::uint64_t value = 0;
};

struct WorkgroupBuffer {
  std::uint32_t index = 0;  // into Program::buffers
  std::uint64_t count = 0;
  std::uint32_t element_size = 0;
};

struct Executable {
  // One phase per stretch of the top-level body between grid_syncs; each phase runs over the
  // whole grid before the next starts.
  std::vector<std::vector<Stmt>> phases;
  std::uint32_t reg_count = 0;
  std::uint32_t max_depth = 0;          // deepest nesting of If/Loop bodies
  std::vector<RegFill> dispatch_fills;  // once per dispatch (per worker)
  std::vector<RegFill> workgroup_fills; // at every workgroup start
  std::vector<WorkgroupBuffer> workgroup_buffers;
  bool can_fail = false;                // has a barrier or subgroup op (run-time errors possible)
  std::vector<std::string> sites;       // "body[2].then[0] (subgroup.reduce.add.f32)"
};

// Compile a validated program. Throws vyre::Error (VYRE_ERR_INTERNAL) for a construct the
// validator should have rejected.
std::shared_ptr<const Executable> compile_program(const Program& program);

}  // namespace vyre::refcpu
