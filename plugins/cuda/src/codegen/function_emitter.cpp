// Register naming, labels, variable scopes and the shared instruction idioms.
#include "codegen/function_emitter.hpp"

#include "vyre/error.hpp"

namespace vyre::cuda::codegen {

std::string FunctionEmitter::reg(RegClass c) {
  auto& count = reg_counts_[static_cast<int>(c)];
  return fmt::format("{}{}", reg_class_prefix(c), count++);
}

std::string FunctionEmitter::new_label(std::string_view hint) {
  return fmt::format("$L_{}_{}", hint, label_count_++);
}

std::string FunctionEmitter::register_declarations() const {
  std::string text;
  for (int c = 0; c < kRegClassCount; ++c) {
    if (reg_counts_[c] == 0) continue;
    auto cls = static_cast<RegClass>(c);
    text += fmt::format("  .reg {} {}<{}>;\n", reg_class_decl(cls), reg_class_prefix(cls),
                        reg_counts_[c]);
  }
  return text;
}

void FunctionEmitter::put_label(std::string_view label) {
  body_ += label;
  body_ += ":\n";
  sin_cos_parts_.clear();
}

const SinCosRegisters* FunctionEmitter::sin_cos_parts(std::string_view x) const {
  for (const auto& [reg, parts] : sin_cos_parts_) {
    if (reg == x) return &parts;
  }
  return nullptr;
}

void FunctionEmitter::forget_values_of(std::string_view reg) {
  std::erase_if(sin_cos_parts_, [&](const auto& entry) { return entry.first == reg; });
}

void FunctionEmitter::comment(std::string_view text) {
  body_ += "  // ";
  body_ += text;
  body_ += '\n';
}

const Value& FunctionEmitter::lookup(std::string_view name) const {
  if (const Value* v = variables_.find(name)) return *v;
  fail(VYRE_ERR_INVALID_PROGRAM, fmt::format("variable '{}' is not in scope", name),
       "validate the program before lowering it; bind the variable with Let before its use");
}

Value emit_constant(FunctionEmitter& f, Type t, std::uint64_t bits) {
  Value v = f.value(t);
  f.ins("mov.{} {}, {};", mov_type(reg_class(t)), v.reg, immediate(t, bits));
  return v;
}

Value emit_select(FunctionEmitter& f, Type t, const std::string& cond, const std::string& a,
                  const std::string& b) {
  Value v = f.value(t);
  f.ins("selp.{} {}, {}, {}, {};", mov_type(reg_class(t)), v.reg, a, b, cond);
  return v;
}

std::string emit_not(FunctionEmitter& f, const std::string& p) {
  std::string q = f.reg(RegClass::Pred);
  f.ins("not.pred {}, {};", q, p);
  return q;
}

std::string emit_nonzero(FunctionEmitter& f, const Value& value) {
  std::string p = f.reg(RegClass::Pred);
  f.ins("setp.ne.{} {}, {}, 0;", int_type(value.type), p, value.reg);
  return p;
}

void emit_move(FunctionEmitter& f, const std::string& to, const Value& from) {
  f.forget_values_of(to);
  f.ins("mov.{} {}, {};", mov_type(reg_class(from.type)), to, from.reg);
}

}  // namespace vyre::cuda::codegen
