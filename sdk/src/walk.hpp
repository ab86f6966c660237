// Internal: depth-first visits of every node and expression of a program body.
#pragma once

#include <vector>

#include "vyre/ir.hpp"

namespace vyre::detail {

// True when `pred` holds for some expression inside `e` (itself included).
template <typename Pred>
bool any_expr(const Expr& e, const Pred& pred) {
  if (pred(e)) return true;
  for (const auto& arg : e.args)
    if (any_expr(arg, pred)) return true;
  return false;
}

// True when `node_pred` holds for some node of `body` (nested bodies included) or `expr_pred`
// for some expression of one.
template <typename NodePred, typename ExprPred>
bool any_in_body(const std::vector<Node>& body, const NodePred& node_pred, const ExprPred& expr_pred) {
  for (const auto& n : body) {
    if (node_pred(n)) return true;
    for (const auto& e : n.exprs)
      if (any_expr(e, expr_pred)) return true;
    if (any_in_body(n.body, node_pred, expr_pred)) return true;
    if (any_in_body(n.else_body, node_pred, expr_pred)) return true;
  }
  return false;
}

inline bool is_subgroup_op(const Expr& e) {
  return e.kind == ExprKind::SubgroupBallot || e.kind == ExprKind::SubgroupShuffle ||
         e.kind == ExprKind::SubgroupReduce;
}

}  // namespace vyre::detail
