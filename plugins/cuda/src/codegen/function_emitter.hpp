// Stage 2 of the emitter: the state of one PTX function while its body is written. It names
// registers (one counter per register class, declared once at the top), makes labels, keeps the
// lexical scopes of Let/Loop variables (each variable is one register) and holds the registers the
// entry prologue loaded the kernel parameters into. The lowering stages (expressions, memory,
// statements, entry assembly) write instructions through it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "codegen/program_layout.hpp"
#include "codegen/ptx_types.hpp"
#include "lowering.hpp"
#include "vyre/scoped_names.hpp"

#include "math/math_library.hpp"

namespace vyre::cuda::codegen {

// An expression's result: the register that holds it and its value type. Registers returned for a
// Var are the variable's own; lowering never writes into an operand's register.
struct Value {
  std::string reg;
  Type type = Type::U32;
};

// One invocation of an elementwise entry (elementwise.hpp), while its statements are emitted: the
// register holding its InvocationId.x and, in the vector path, its elements of each buffer loaded
// up front for the current statement and the raw value the statement stores (both by buffer index).
struct InvocationLane {
  std::string invocation_x;          // .b32
  bool vector = false;               // loads and stores go through `loaded` and `stored`
  std::vector<Value> loaded;         // reg "" where the statement loads nothing from the buffer
  std::vector<std::string> stored;   // "" where the statement stores nothing to the buffer
};

// Registers the prologue fills from the kernel parameters.
struct ParamRegs {
  std::vector<std::string> pointer;  // by buffer index: .b64 global address ("" for workgroup)
  std::vector<std::string> count;    // by buffer index: .b32 element count ("" for workgroup)
  std::string dispatch_n;            // .b32 N
  std::string tail_guard;            // .b32 0/1
  std::string grid_barrier;          // .b64 global address of the barrier state ("" if none)
  std::string workgroup_base;        // .b32 sharded entries: the launch's first WorkgroupId.x ("" if not)
  std::string grid_x;                // .b32 sharded entries: the dispatch's NumWorkgroups.x ("" if not)
  std::string shared_base;           // .b32 shared-window address of the shared block ("" if none)
};

class FunctionEmitter {
 public:
  FunctionEmitter(const ProgramLayout& layout, const Target& target)
      : layout_(layout), target_(target) {}

  const ProgramLayout& layout() const { return layout_; }
  const Program& program() const { return *layout_.program; }
  const Target& target() const { return target_; }

  // ---- registers and labels ----
  std::string reg(RegClass c);
  Value value(Type t) { return Value{reg(reg_class(t)), t}; }
  std::string new_label(std::string_view hint);
  // `.reg` declarations for every register named so far.
  std::string register_declarations() const;

  // ---- output ----
  template <typename... Args>
  void ins(fmt::format_string<Args...> format, Args&&... args) {
    body_ += "  ";
    body_ += fmt::format(format, std::forward<Args>(args)...);
    body_ += '\n';
  }
  void put_label(std::string_view label);
  void comment(std::string_view text);
  // Appends `text` (whole lines, each ending in a newline) to the body as it is.
  void raw(std::string_view text) { body_ += text; }
  const std::string& body() const { return body_; }

  // ---- variables (Let, Loop) ----
  void push_scope() { variables_.open(); }
  void pop_scope() { variables_.close(); }
  void clear_scopes() { variables_ = Variables(); }  // at a grid_sync: no variable crosses it
  void declare(std::string name, Value value) { variables_.declare(std::move(name), std::move(value)); }
  const Value& lookup(std::string_view name) const;
  // Elementwise entries keep one variable table per lane and swap it in around each statement.
  using Variables = ScopedNames<Value>;
  void swap_variables(Variables& other) { variables_.swap(other); }

  // ---- context for the statement lowering ----
  ParamRegs params;
  std::string return_label;  // where Return jumps: the end of the current phase
  InvocationLane* lane = nullptr;  // set while an elementwise entry emits one invocation
  // Math-library entries this function needs at module scope (each once, in first-use order):
  // the functions it calls and the data its inline copies read.
  std::vector<const MathFunction*> math_calls;
  // Inline copies of math functions so far (names their registers) and their instructions.
  std::uint32_t math_inline_sites = 0;
  std::uint32_t math_inline_instructions = 0;

  // ---- values kept for reuse in straight-line code ----
  // The f32 sin/cos parts of a register (math_call.cpp), from where they were computed until the
  // next label (a join or a loop head, which paths that did not compute them reach) or the next
  // write into that register (emit_move: an Assign).
  const SinCosRegisters* sin_cos_parts(std::string_view x) const;
  void keep_sin_cos_parts(std::string x, SinCosRegisters parts) {
    sin_cos_parts_.emplace_back(std::move(x), std::move(parts));
  }
  void forget_values_of(std::string_view reg);

 private:
  const ProgramLayout& layout_;
  const Target& target_;
  std::array<std::uint32_t, kRegClassCount> reg_counts_{};
  std::uint32_t label_count_ = 0;
  std::string body_;
  Variables variables_;
  std::vector<std::pair<std::string, SinCosRegisters>> sin_cos_parts_;
};

// ---- small instruction idioms shared by the lowering stages ----

// A fresh register of type `t` holding the literal `bits`.
Value emit_constant(FunctionEmitter& f, Type t, std::uint64_t bits);
// A fresh register holding `cond ? a : b` (both of type `t`, `t` not bool).
Value emit_select(FunctionEmitter& f, Type t, const std::string& cond, const std::string& a,
                  const std::string& b);
// A fresh predicate holding the negation of `p`.
std::string emit_not(FunctionEmitter& f, const std::string& p);
// A fresh predicate: `value != 0` for an integer value.
std::string emit_nonzero(FunctionEmitter& f, const Value& value);
// Copy `from` into the existing register `to` (same class).
void emit_move(FunctionEmitter& f, const std::string& to, const Value& from);

}  // namespace vyre::cuda::codegen
