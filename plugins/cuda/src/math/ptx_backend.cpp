#include "math/ptx_backend.hpp"

#include <bit>
#include <cstdio>
#include <string_view>

namespace vyre::math {
namespace {

std::string hex_literal(const char* prefix, std::uint64_t bits, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%s%0*llX", prefix, digits, static_cast<unsigned long long>(bits));
  return buf;
}

}  // namespace

PtxBackend::F32 PtxBackend::c(float v) {
  return op<F32>("mov.f32", {hex_literal("0f", std::bit_cast<std::uint32_t>(v), 8)});
}

PtxBackend::F64 PtxBackend::c(double v) {
  const auto bits = std::bit_cast<std::uint64_t>(v);
  // ptxas materialises an f64 immediate whose low word is not zero with two UMOVs at each use; read
  // from the constant bank it is one ULDC.64 (a `.const` datum of the module, named by its bits).
  if ((bits & 0xFFFFFFFFu) != 0) {
    const std::string name = f64_constant_name(bits);
    tables_.insert(name);
    return op<F64>("ld.const.f64", {"[" + name + "]"});
  }
  return op<F64>("mov.f64", {hex_literal("0d", bits, 16)});
}

PtxBackend::B32 PtxBackend::u32(std::uint32_t v) { return op<B32>("mov.b32", {hex_literal("0x", v, 8)}); }

PtxBackend::B64 PtxBackend::u64(std::uint64_t v) { return op<B64>("mov.b64", {hex_literal("0x", v, 16)}); }

PtxBackend::B32 PtxBackend::hi32(const B64& a) {
  B32 lo = fresh<B32>();
  B32 hi = fresh<B32>();
  emit("mov.b64 {" + lo.r + ", " + hi.r + "}, " + a.r + ";");
  return hi;
}

PtxBackend::B64 PtxBackend::pack64(const B32& lo, const B32& hi) {
  B64 d = fresh<B64>();
  emit("mov.b64 " + d.r + ", {" + lo.r + ", " + hi.r + "};");
  return d;
}

PtxBackend::B64 PtxBackend::load(const DataTable& table, const B32& index) {
  tables_.insert(std::string(table.name));
  B64 base = fresh<B64>();
  emit("mov.u64 " + base.r + ", " + std::string(table.name) + ";");
  B64 offset = op<B64>("mul.wide.u32", {index.r, "8"});
  B64 address = op<B64>("add.s64", {base.r, offset.r});
  B64 word = fresh<B64>();
  emit("ld.global.nc.u64 " + word.r + ", [" + address.r + "];");
  return word;
}

std::string PtxBackend::new_label() {
  return "$L__" + prefix_ + name_ + "_" + std::to_string(++n_label_);
}

PtxBackend::F32 PtxBackend::begin_f32(const std::string& name) {
  name_ = name;
  return op<F32>("ld.param.f32", {"[" + name_ + "_x]"});
}

PtxBackend::F64 PtxBackend::begin_f64(const std::string& name) {
  name_ = name;
  return op<F64>("ld.param.f64", {"[" + name_ + "_x]"});
}

std::string PtxBackend::finish(const F32& result) { return finish_with("f32", result.r); }

std::string PtxBackend::finish(const F64& result) { return finish_with("f64", result.r); }

std::string PtxBackend::declarations() const {
  std::string out;
  auto decl = [&](const char* type_name, const char* prefix, int count) {
    if (count > 0) {
      out += "\t.reg ." + std::string(type_name) + " %" + prefix_ + prefix + "<" +
             std::to_string(count + 1) + ">;\n";
    }
  };
  decl("pred", "p", n_pred_);
  decl("f32", "f", n_f32_);
  decl("f64", "fd", n_f64_);
  decl("b32", "r", n_b32_);
  decl("b64", "rd", n_b64_);
  return out;
}

std::string PtxBackend::finish_with(const std::string& type, const std::string& result_reg) {
  std::string out = ".func (.param ." + type + " " + name_ + "_r) " + name_ + " (.param ." + type +
                    " " + name_ + "_x)\n{\n";
  out += declarations();
  out += body_;
  out += "\tst.param." + type + " [" + name_ + "_r], " + result_reg + ";\n";
  out += "\tret;\n}\n";
  return out;
}

PtxBackend::F32 PtxBackend::begin_inline_f32(const std::string& name, const std::string& arg) {
  name_ = name;
  return op<F32>("mov.f32", {arg});
}

PtxBackend::F64 PtxBackend::begin_inline_f64(const std::string& name, const std::string& arg) {
  name_ = name;
  return op<F64>("mov.f64", {arg});
}

std::string PtxBackend::finish_inline(const F32& result, const std::string& dest) {
  return finish_inline_with("f32", result.r, dest);
}

std::string PtxBackend::finish_inline(const F64& result, const std::string& dest) {
  return finish_inline_with("f64", result.r, dest);
}

std::string PtxBackend::finish_inline_with(const std::string& type, const std::string& result_reg,
                                           const std::string& dest) {
  return finish_inline_outputs({{type.c_str(), result_reg, dest}});
}

std::string PtxBackend::finish_inline_outputs(std::initializer_list<Output> outputs) {
  std::string out = "{\n";
  out += declarations();
  out += body_;
  for (const Output& o : outputs) out += "\tmov." + std::string(o.type) + " " + o.dest + ", " + o.result + ";\n";
  out += "}\n";
  return out;
}

std::string f64_constant_name(std::uint64_t bits) { return hex_literal(kF64ConstantPrefix, bits, 16); }

std::string f64_constant_ptx(const std::string& name) {
  return ".const .align 8 .b64 " + name + " = 0x" + name.substr(std::string_view(kF64ConstantPrefix).size()) +
         ";\n";
}

std::string data_table_ptx(const DataTable& table) {
  std::string out = ".global .align 8 .b64 " + std::string(table.name) + "[" +
                    std::to_string(table.words.size()) + "] = {";
  for (std::size_t i = 0; i < table.words.size(); ++i) {
    char word[24];
    std::snprintf(word, sizeof word, "0x%016llX", static_cast<unsigned long long>(table.words[i]));
    out += (i % 4 == 0) ? "\n\t" : " ";
    out += word;
    if (i + 1 < table.words.size()) out += ",";
  }
  out += "\n};\n";
  return out;
}

}  // namespace vyre::math
