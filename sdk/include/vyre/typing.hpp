// Expression typing shared by the validator and the backends' compilers.
#pragma once

#include <optional>
#include <span>

#include "vyre/buffer_index.hpp"
#include "vyre/ir.hpp"
#include "vyre/scoped_names.hpp"

namespace vyre {

// Lexically scoped variable types while walking a program's body.
using Scope = ScopedNames<Type>;

// The type an expression evaluates to, or nullopt if it is ill-typed (the validator says why).
// Operands are typed recursively; buffers are looked up in `buffers`. O(size of the expression).
std::optional<Type> expr_type(const Expr& expr, const BufferIndex& buffers, const Scope& scope);
// The same for a one-off question: indexes `program`'s buffers first (O(buffers log buffers)); walks
// that type many expressions keep one BufferIndex instead.
std::optional<Type> expr_type(const Expr& expr, const Program& program, const Scope& scope);

// The type of `expr` given its operands' types (operands[i] is the type of expr.args[i], nullopt
// when ill-typed), without visiting the operands: for walks that type a tree bottom-up in one pass.
// `operands` must have one entry per operand.
std::optional<Type> expr_type_from(const Expr& expr, std::span<const std::optional<Type>> operands,
                                   const BufferIndex& buffers, const Scope& scope);

}  // namespace vyre
