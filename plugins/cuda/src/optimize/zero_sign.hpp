// Float min/max whose sign of zero nothing observes (issue 11 §2). SPEC: min(-0, +0) = -0 and
// max(-0, +0) = +0; the emitter fixes PTX's min/max up for that (codegen/float_binary.cpp: a
// compare, a bitwise and/or and a select: 3 SASS instructions next to FMNMX). K2's row maximum
// (`m = max(m, partial[w])`, 7 times) feeds only `exp(v - m)`, and exp(+0) = exp(-0): whichever
// zero the maximum is, no output changes, so there the fix-up is dead weight.
//
// The analysis: a value is *zero-sign blind* when replacing it by the other signed zero (where it
// is ±0) changes no observable result. Every use of a value passes it to a context that is blind
// or not:
//   - blind: comparisons (-0 == +0), casts to integers or bool, is_nan/is_inf/is_finite, exp,
//     exp2, cos, cosh, acos, log, log2 (equal at ±0, C99 Annex F), the index of an access, a
//     condition or loop bound, a ballot, a shuffle's lane;
//   - as blind as the result: add, sub, mul, fma, min, max, a division's dividend, neg, abs, sign,
//     floor/ceil/trunc/round, sqrt, sin, tan, asin, atan, sinh, tanh, casts to floats, select arms,
//     subgroup shuffles and reductions (their results then differ at most in the sign of a zero,
//     or not at all);
//   - never blind: a division's divisor (1/±0 = ±inf), reciprocal, inverse_sqrt, bitcast, a store
//     to a global buffer.
// Variables (by name: every variable of one name together) are blind when all their uses are;
// a workgroup buffer when all its loads are, and a store to it is then blind. The walk runs in
// reverse program order to a fixpoint (loops and assignments); past kMaxPasses it gives up and
// proves nothing. A Min/Max Bin expression in a blind context may drop the fix-up: its result then
// differs from SPEC's at most in the sign of a zero, which nothing downstream can see.
#pragma once

#include <unordered_set>

#include "vyre/ir.hpp"

namespace vyre::cuda::optimize {

class ZeroSignAnalysis {
 public:
  explicit ZeroSignAnalysis(const Program& program);
  // Whether a Bin(Min/Max) expression of the analysed program (by address) is used only where the
  // sign of a zero result cannot be observed.
  bool blind(const Expr& min_max) const { return blind_.count(&min_max) != 0; }
  std::size_t proven() const { return blind_.size(); }

 private:
  friend class ZeroSignWalk;
  std::unordered_set<const Expr*> blind_;
};

}  // namespace vyre::cuda::optimize
