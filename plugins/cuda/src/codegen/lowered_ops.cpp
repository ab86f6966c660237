// lowered_ops(): the catalog ops the emitter lowers for a target, which is what the plugin
// declares. Every op is lowered on every supported target (sm_70+) except the transcendentals the
// math library does not provide. dispatch.fixpoint needs nothing from the module: the runtime
// launches the same entries k times.
#include "lowering.hpp"
#include "math/math_library.hpp"
#include "vyre/ops.hpp"

namespace vyre::cuda {

namespace {

bool is_library_op(UnOp op) {
  return op == UnOp::InverseSqrt || static_cast<int>(op) >= static_cast<int>(UnOp::Exp);
}

bool lowered(const OpInfo& op) {
  if (op.family != OpFamily::Un || !is_library_op(op.un_op)) return true;
  return math_function(op.un_op, op.type) != nullptr;
}

}  // namespace

std::vector<std::string> lowered_ops(const Target& target) {
  target.ptx_isa_version();  // throws for a target the emitter does not know
  std::vector<std::string> ids;
  for (const OpInfo& op : op_catalog())
    if (lowered(op)) ids.push_back(op.id);
  return ids;
}

}  // namespace vyre::cuda
