// The test plugins' interpreter.
#include "mini_interpreter.hpp"

#include <string>
#include <utility>

#include "vyre/error.hpp"

namespace vyre::test {

namespace {

[[noreturn]] void unsupported(const std::string& what) {
  fail(VYRE_ERR_UNSUPPORTED, "the test interpreter does not implement " + what,
       "use only the ops the test plugin declares");
}

class Invocation {
 public:
  Invocation(const Program& program, std::span<const std::span<std::uint32_t>> buffers,
             std::uint32_t id)
      : program_(program), buffers_(buffers), id_(id) {}

  // False when the body executed a Return.
  bool run(const std::vector<Node>& body) {
    const std::size_t mark = vars_.size();
    for (const Node& node : body) {
      if (!step(node)) return false;
    }
    vars_.resize(mark);
    return true;
  }

 private:
  std::size_t buffer_index(const std::string& name) const {
    for (std::size_t i = 0; i < program_.buffers.size(); ++i)
      if (program_.buffers[i].name == name) return i;
    unsupported("unknown buffer " + name);
  }

  std::uint32_t var(const std::string& name) const {
    for (auto it = vars_.rbegin(); it != vars_.rend(); ++it)
      if (it->first == name) return it->second;
    unsupported("unknown variable " + name);
  }

  std::uint32_t bin(BinOp op, std::uint32_t a, std::uint32_t b) const {
    switch (op) {
      case BinOp::Add: return a + b;
      case BinOp::Sub: return a - b;
      case BinOp::Xor: return a ^ b;
      case BinOp::Lt: return a < b ? 1 : 0;
      default: unsupported("binary operator " + std::string(bin_op_name(op)));
    }
  }

  std::uint32_t eval(const Expr& e) const {
    switch (e.kind) {
      case ExprKind::Lit: return static_cast<std::uint32_t>(e.bits);
      case ExprKind::Var: return var(e.name);
      case ExprKind::InvocationId: return e.axis == 0 ? id_ : 0;
      case ExprKind::BufLen:
        return static_cast<std::uint32_t>(buffers_[buffer_index(e.name)].size());
      case ExprKind::Load: {
        const std::span<std::uint32_t> buffer = buffers_[buffer_index(e.name)];
        const std::uint32_t index = eval(e.args.at(0));
        return index < buffer.size() ? buffer[index] : 0;
      }
      case ExprKind::Bin: return bin(e.bin_op, eval(e.args.at(0)), eval(e.args.at(1)));
      default: unsupported("expression kind " + std::to_string(static_cast<int>(e.kind)));
    }
  }

  bool step(const Node& n) {
    switch (n.kind) {
      case NodeKind::Let: vars_.emplace_back(n.name, eval(n.exprs.at(0))); return true;
      case NodeKind::Store: {
        const std::span<std::uint32_t> buffer = buffers_[buffer_index(n.name)];
        const std::uint32_t index = eval(n.exprs.at(0));
        const std::uint32_t value = eval(n.exprs.at(1));
        if (index < buffer.size()) buffer[index] = value;
        return true;
      }
      case NodeKind::If: return run(eval(n.exprs.at(0)) != 0 ? n.body : n.else_body);
      case NodeKind::Return: return false;
      default: unsupported("node kind " + std::to_string(static_cast<int>(n.kind)));
    }
  }

  const Program& program_;
  std::span<const std::span<std::uint32_t>> buffers_;
  std::uint32_t id_;
  std::vector<std::pair<std::string, std::uint32_t>> vars_;
};

}  // namespace

void interpret(const Program& program, const LaunchGeometry& geometry,
               std::span<const std::span<std::uint32_t>> buffers) {
  if (geometry.grid[1] != 1 || geometry.grid[2] != 1 || geometry.workgroup[1] != 1 ||
      geometry.workgroup[2] != 1)
    unsupported("multi-dimensional geometry");
  const std::uint64_t invocations = std::uint64_t{geometry.grid[0]} * geometry.workgroup[0];
  for (std::uint32_t iteration = 0; iteration < geometry.fixpoint_iterations; ++iteration)
    for (std::uint64_t id = 0; id < invocations; ++id) {
      if (geometry.tail_guard && id >= geometry.n) break;
      Invocation(program, buffers, static_cast<std::uint32_t>(id)).run(program.body);
    }
}

}  // namespace vyre::test
