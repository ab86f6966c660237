// The PTX backend of the math instruction set: each operation appends one PTX instruction (into a
// fresh virtual register) to the body of the .func being built. It has the same interface as
// CpuBackend (cpu_backend.hpp), which defines what each operation computes; the algorithms are
// templates over the backend, so the PTX printed here and the CPU evaluation are the same sequence.
// Only IEEE .rn arithmetic, exact integer/bit operations and explicit conversions are emitted,
// except the approximations the algorithms correct: rsqrt_approx_ftz (the first guess of
// inverse_sqrt f32, and of asin and acos f32's square root) and rcp_approx_ftz (of the reciprocal
// in tanh, sinh, cosh, atan and tan f32); .ftz where no input the result depends on is subnormal.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <utility>
#include <set>
#include <string>
#include <vector>

#include "math/data_tables.hpp"

namespace vyre::math {

class PtxBackend {
 public:
  struct F32 { std::string r; };
  struct F64 { std::string r; };
  struct B32 { std::string r; };
  struct B64 { std::string r; };
  struct Pred { std::string r; };
  template <class T>
  struct Var { T reg; };

  // ---- constants ----
  F32 c(float v);
  F64 c(double v);
  B32 u32(std::uint32_t v);
  B64 u64(std::uint64_t v);

  // ---- float arithmetic ----
  F32 add(const F32& a, const F32& b) { return op<F32>("add.rn.f32", {a.r, b.r}); }
  F64 add(const F64& a, const F64& b) { return op<F64>("add.rn.f64", {a.r, b.r}); }
  F32 sub(const F32& a, const F32& b) { return op<F32>("sub.rn.f32", {a.r, b.r}); }
  F64 sub(const F64& a, const F64& b) { return op<F64>("sub.rn.f64", {a.r, b.r}); }
  F32 mul(const F32& a, const F32& b) { return op<F32>("mul.rn.f32", {a.r, b.r}); }
  F64 mul(const F64& a, const F64& b) { return op<F64>("mul.rn.f64", {a.r, b.r}); }
  F32 fma(const F32& a, const F32& b, const F32& c) { return op<F32>("fma.rn.f32", {a.r, b.r, c.r}); }
  F64 fma(const F64& a, const F64& b, const F64& c) { return op<F64>("fma.rn.f64", {a.r, b.r, c.r}); }
  F32 div(const F32& a, const F32& b) { return op<F32>("div.rn.f32", {a.r, b.r}); }
  F64 div(const F64& a, const F64& b) { return op<F64>("div.rn.f64", {a.r, b.r}); }
  // 1 / a correctly rounded: rcp.rn gives div.rn's bits with a shorter SASS expansion.
  F32 recip(const F32& a) { return op<F32>("rcp.rn.f32", {a.r}); }
  F64 recip(const F64& a) { return op<F64>("rcp.rn.f64", {a.r}); }
  F32 sqrt(const F32& a) { return op<F32>("sqrt.rn.f32", {a.r}); }
  F64 sqrt(const F64& a) { return op<F64>("sqrt.rn.f64", {a.r}); }
  // MUFU.RSQ (relative error <= 2^-22.9) on a normal argument (or 0, inf, NaN), only as a first
  // guess that the algorithm corrects: inverse_sqrt f32's (one Newton step on x scaled into the
  // normal range, inverse_sqrt.hpp) and asin and acos f32's square root (a double-word,
  // asin_acos.hpp).
  F32 rsqrt_approx_ftz(const F32& a) { return op<F32>("rsqrt.approx.ftz.f32", {a.r}); }
  // MUFU.RCP alone (the .ftz form: without it ptxas adds a subnormal rescaling), at most 1 ulp
  // from 1/a (PTX ISA); see recip_refined_f32 (common.hpp) for its one use.
  F32 rcp_approx_ftz(const F32& a) { return op<F32>("rcp.approx.ftz.f32", {a.r}); }
  // min.f32: the smaller operand, the other one where one is NaN (IEEE minNum); see CpuBackend.
  F32 min_num(const F32& a, const F32& b) { return op<F32>("min.f32", {a.r, b.r}); }
  F32 neg(const F32& a) { return op<F32>("neg.f32", {a.r}); }
  F64 neg(const F64& a) { return op<F64>("neg.f64", {a.r}); }
  F32 abs(const F32& a) { return op<F32>("abs.f32", {a.r}); }
  F64 abs(const F64& a) { return op<F64>("abs.f64", {a.r}); }
  F32 rint(const F32& a) { return op<F32>("cvt.rni.f32.f32", {a.r}); }
  F64 rint(const F64& a) { return op<F64>("cvt.rni.f64.f64", {a.r}); }

  // ---- float comparisons (ordered) ----
  Pred lt(const F32& a, const F32& b) { return op<Pred>("setp.lt.f32", {a.r, b.r}); }
  Pred lt(const F64& a, const F64& b) { return op<Pred>("setp.lt.f64", {a.r, b.r}); }
  Pred le(const F32& a, const F32& b) { return op<Pred>("setp.le.f32", {a.r, b.r}); }
  Pred le(const F64& a, const F64& b) { return op<Pred>("setp.le.f64", {a.r, b.r}); }
  Pred gt(const F32& a, const F32& b) { return op<Pred>("setp.gt.f32", {a.r, b.r}); }
  Pred gt(const F64& a, const F64& b) { return op<Pred>("setp.gt.f64", {a.r, b.r}); }
  Pred ge(const F32& a, const F32& b) { return op<Pred>("setp.ge.f32", {a.r, b.r}); }
  Pred ge(const F64& a, const F64& b) { return op<Pred>("setp.ge.f64", {a.r, b.r}); }
  Pred eq(const F32& a, const F32& b) { return op<Pred>("setp.eq.f32", {a.r, b.r}); }
  Pred eq(const F64& a, const F64& b) { return op<Pred>("setp.eq.f64", {a.r, b.r}); }
  Pred is_nan(const F32& a) { return op<Pred>("setp.nan.f32", {a.r, a.r}); }
  Pred is_nan(const F64& a) { return op<Pred>("setp.nan.f64", {a.r, a.r}); }

  // ---- selection ----
  F32 sel(const Pred& p, const F32& a, const F32& b) { return op<F32>("selp.f32", {a.r, b.r, p.r}); }
  F64 sel(const Pred& p, const F64& a, const F64& b) { return op<F64>("selp.f64", {a.r, b.r, p.r}); }
  B32 sel(const Pred& p, const B32& a, const B32& b) { return op<B32>("selp.b32", {a.r, b.r, p.r}); }
  B64 sel(const Pred& p, const B64& a, const B64& b) { return op<B64>("selp.b64", {a.r, b.r, p.r}); }

  // ---- conversions ----
  F32 to_f32(const F64& a) { return op<F32>("cvt.rn.f32.f64", {a.r}); }
  F64 to_f64(const F32& a) { return op<F64>("cvt.f64.f32", {a.r}); }
  B32 to_s32(const F32& a) { return op<B32>("cvt.rzi.s32.f32", {a.r}); }
  B32 to_s32(const F64& a) { return op<B32>("cvt.rzi.s32.f64", {a.r}); }
  F32 s32_to_f32(const B32& a) { return op<F32>("cvt.rn.f32.s32", {a.r}); }
  F64 s32_to_f64(const B32& a) { return op<F64>("cvt.rn.f64.s32", {a.r}); }
  F64 u64_to_f64(const B64& a) { return op<F64>("cvt.rn.f64.u64", {a.r}); }
  B32 bits(const F32& a) { return op<B32>("mov.b32", {a.r}); }
  B64 bits(const F64& a) { return op<B64>("mov.b64", {a.r}); }
  F32 f32_from_bits(const B32& a) { return op<F32>("mov.b32", {a.r}); }
  F64 f64_from_bits(const B64& a) { return op<F64>("mov.b64", {a.r}); }
  B32 lo32(const B64& a) { return op<B32>("cvt.u32.u64", {a.r}); }
  B32 hi32(const B64& a);
  B64 pack64(const B32& lo, const B32& hi);
  B64 zext64(const B32& a) { return op<B64>("cvt.u64.u32", {a.r}); }

  // ---- 32-bit integers ----
  B32 add(const B32& a, const B32& b) { return op<B32>("add.s32", {a.r, b.r}); }
  B32 sub(const B32& a, const B32& b) { return op<B32>("sub.s32", {a.r, b.r}); }
  B32 mul_lo(const B32& a, const B32& b) { return op<B32>("mul.lo.s32", {a.r, b.r}); }
  B32 and_(const B32& a, const B32& b) { return op<B32>("and.b32", {a.r, b.r}); }
  B32 or_(const B32& a, const B32& b) { return op<B32>("or.b32", {a.r, b.r}); }
  B32 xor_(const B32& a, const B32& b) { return op<B32>("xor.b32", {a.r, b.r}); }
  B32 shl(const B32& a, const B32& n) { return op<B32>("shl.b32", {a.r, n.r}); }
  B32 shr_u(const B32& a, const B32& n) { return op<B32>("shr.u32", {a.r, n.r}); }
  B32 shr_s(const B32& a, const B32& n) { return op<B32>("shr.s32", {a.r, n.r}); }
  Pred eq(const B32& a, const B32& b) { return op<Pred>("setp.eq.s32", {a.r, b.r}); }
  Pred ne(const B32& a, const B32& b) { return op<Pred>("setp.ne.s32", {a.r, b.r}); }
  Pred lt_u(const B32& a, const B32& b) { return op<Pred>("setp.lt.u32", {a.r, b.r}); }
  Pred lt_s(const B32& a, const B32& b) { return op<Pred>("setp.lt.s32", {a.r, b.r}); }

  // ---- 64-bit integers ----
  B64 add(const B64& a, const B64& b) { return op<B64>("add.s64", {a.r, b.r}); }
  B64 sub(const B64& a, const B64& b) { return op<B64>("sub.s64", {a.r, b.r}); }
  B64 mul_lo(const B64& a, const B64& b) { return op<B64>("mul.lo.s64", {a.r, b.r}); }
  B64 mul_hi_u(const B64& a, const B64& b) { return op<B64>("mul.hi.u64", {a.r, b.r}); }
  B64 and_(const B64& a, const B64& b) { return op<B64>("and.b64", {a.r, b.r}); }
  B64 or_(const B64& a, const B64& b) { return op<B64>("or.b64", {a.r, b.r}); }
  B64 xor_(const B64& a, const B64& b) { return op<B64>("xor.b64", {a.r, b.r}); }
  B64 shl(const B64& a, const B32& n) { return op<B64>("shl.b64", {a.r, n.r}); }
  B64 shr_u(const B64& a, const B32& n) { return op<B64>("shr.u64", {a.r, n.r}); }
  B64 shr_s(const B64& a, const B32& n) { return op<B64>("shr.s64", {a.r, n.r}); }
  B32 clz(const B64& a) { return op<B32>("clz.b64", {a.r}); }
  Pred eq(const B64& a, const B64& b) { return op<Pred>("setp.eq.s64", {a.r, b.r}); }
  Pred ne(const B64& a, const B64& b) { return op<Pred>("setp.ne.s64", {a.r, b.r}); }
  Pred lt_u(const B64& a, const B64& b) { return op<Pred>("setp.lt.u64", {a.r, b.r}); }
  Pred lt_s(const B64& a, const B64& b) { return op<Pred>("setp.lt.s64", {a.r, b.r}); }

  // ---- predicates ----
  Pred and_(const Pred& a, const Pred& b) { return op<Pred>("and.pred", {a.r, b.r}); }
  Pred or_(const Pred& a, const Pred& b) { return op<Pred>("or.pred", {a.r, b.r}); }
  Pred not_(const Pred& a) { return op<Pred>("not.pred", {a.r}); }

  // ---- module data ----
  B64 load(const DataTable& table, const B32& index);

  // ---- structured control flow ----
  // A Var is a register assigned more than once; get() copies it into a fresh register, so a
  // value read before a later set() keeps its meaning (as it does on the CPU).
  template <class T>
  Var<T> var(const T& init) {
    Var<T> v{fresh<T>()};
    emit(std::string("mov") + suffix<T>() + " " + v.reg.r + ", " + init.r + ";");
    return v;
  }
  template <class T>
  T get(const Var<T>& v) { return op<T>(std::string("mov") + suffix<T>(), {v.reg.r}); }
  template <class T>
  void set(Var<T>& v, const T& value) {
    emit(std::string("mov") + suffix<T>() + " " + v.reg.r + ", " + value.r + ";");
  }
  template <class Then>
  void if_(const Pred& p, Then&& then) {
    const std::string skip = new_label();
    emit("@!" + p.r + " bra " + skip + ";");
    then();
    body_ += skip + ":\n";
  }

  // ---- building a function ----
  // Starts `.func (.param .fXX r) name (.param .fXX x)` and returns x.
  F32 begin_f32(const std::string& name);
  F64 begin_f64(const std::string& name);
  std::string finish(const F32& result);
  std::string finish(const F64& result);

  // ---- building an inline copy (a scope block the caller pastes at the use) ----
  // Every register and label of the body is named with `prefix` (e.g. "m3_": %m3_f1,
  // $L__m3_...), which must be unique within the calling function and must not start a name the
  // caller uses; the block declares its own registers. begin copies the caller's register `arg`
  // into the body, finish_inline returns `{ .reg ...; body; mov <dest>, result; }`.
  explicit PtxBackend(std::string prefix = "") : prefix_(std::move(prefix)) {}
  F32 begin_inline_f32(const std::string& name, const std::string& arg);
  F64 begin_inline_f64(const std::string& name, const std::string& arg);
  std::string finish_inline(const F32& result, const std::string& dest);
  std::string finish_inline(const F64& result, const std::string& dest);
  // A block of several inputs and outputs: begin_inline, one inline_arg per caller register read,
  // then finish_inline_outputs with each result and the caller register it is moved to.
  void begin_inline(const std::string& name) { name_ = name; }
  F32 inline_arg(const std::string& arg, F32) { return op<F32>("mov.f32", {arg}); }
  B32 inline_arg(const std::string& arg, B32) { return op<B32>("mov.b32", {arg}); }
  struct Output {
    const char* type;  // "f32", "b32", ...
    std::string result;
    std::string dest;
  };
  std::string finish_inline_outputs(std::initializer_list<Output> outputs);
  // The number of instructions written so far (labels excluded).
  int instructions() const { return n_instructions_; }
  // The names of the module-scope data the body reads (tables, f64 constants).
  std::vector<std::string> dependencies() const { return {tables_.begin(), tables_.end()}; }

 private:
  template <class T>
  static const char* suffix();
  template <class T>
  T fresh();
  template <class T>
  T op(const std::string& opcode, std::initializer_list<std::string> operands) {
    T d = fresh<T>();
    std::string line = opcode + " " + d.r;
    for (const auto& s : operands) line += ", " + s;
    emit(line + ";");
    return d;
  }
  void emit(const std::string& line) {
    body_ += "\t" + line + "\n";
    ++n_instructions_;
  }
  std::string new_label();
  std::string finish_with(const std::string& type, const std::string& result_reg);
  std::string declarations() const;
  std::string finish_inline_with(const std::string& type, const std::string& result_reg,
                                 const std::string& dest);

  std::string prefix_;
  std::string name_;
  std::string body_;
  std::set<std::string> tables_;
  int n_f32_ = 0, n_f64_ = 0, n_b32_ = 0, n_b64_ = 0, n_pred_ = 0, n_label_ = 0;
  int n_instructions_ = 0;
};

template <> inline const char* PtxBackend::suffix<PtxBackend::F32>() { return ".f32"; }
template <> inline const char* PtxBackend::suffix<PtxBackend::F64>() { return ".f64"; }
template <> inline const char* PtxBackend::suffix<PtxBackend::B32>() { return ".b32"; }
template <> inline const char* PtxBackend::suffix<PtxBackend::B64>() { return ".b64"; }
template <> inline const char* PtxBackend::suffix<PtxBackend::Pred>() { return ".pred"; }
template <> inline PtxBackend::F32 PtxBackend::fresh<PtxBackend::F32>() { return {"%" + prefix_ + "f" + std::to_string(++n_f32_)}; }
template <> inline PtxBackend::F64 PtxBackend::fresh<PtxBackend::F64>() { return {"%" + prefix_ + "fd" + std::to_string(++n_f64_)}; }
template <> inline PtxBackend::B32 PtxBackend::fresh<PtxBackend::B32>() { return {"%" + prefix_ + "r" + std::to_string(++n_b32_)}; }
template <> inline PtxBackend::B64 PtxBackend::fresh<PtxBackend::B64>() { return {"%" + prefix_ + "rd" + std::to_string(++n_b64_)}; }
template <> inline PtxBackend::Pred PtxBackend::fresh<PtxBackend::Pred>() { return {"%" + prefix_ + "p" + std::to_string(++n_pred_)}; }

// The PTX definition of a table: `.global .align 8 .b64 name[n] = {...};`
std::string data_table_ptx(const DataTable& table);

// f64 constants the backend reads from the constant bank (see PtxBackend::c(double)): each is a
// module-scope datum `.const .align 8 .b64 vyre_math_k64_<16 hex digits of its bits>`, a
// dependency of the functions that use it.
inline constexpr const char* kF64ConstantPrefix = "vyre_math_k64_";
std::string f64_constant_name(std::uint64_t bits);
std::string f64_constant_ptx(const std::string& name);  // its definition

}  // namespace vyre::math
