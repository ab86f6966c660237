// Expression typing shared by the validator and the backends' compilers.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vyre/ir.hpp"

namespace vyre {

// Lexically scoped variable types while walking a program's body.
class Scope {
 public:
  void push() { marks_.push_back(vars_.size()); }
  void pop() {
    vars_.resize(marks_.back());
    marks_.pop_back();
  }
  void declare(std::string name, Type type) { vars_.emplace_back(std::move(name), type); }
  std::optional<Type> lookup(std::string_view name) const {
    for (auto it = vars_.rbegin(); it != vars_.rend(); ++it)
      if (it->first == name) return it->second;
    return std::nullopt;
  }
  // Forget every variable (used at a grid_sync: nothing crosses it).
  void clear() { vars_.clear(); marks_.clear(); }

 private:
  std::vector<std::pair<std::string, Type>> vars_;
  std::vector<std::size_t> marks_;
};

// The type an expression evaluates to, or nullopt if it is ill-typed (the validator says why).
// Operands are typed recursively; buffers are looked up in `program`.
std::optional<Type> expr_type(const Expr& expr, const Program& program, const Scope& scope);

}  // namespace vyre
