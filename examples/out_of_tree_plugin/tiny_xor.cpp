// A tiny backend plugin built against an installed vyre: it runs exactly one kind of program, the
// elementwise u32 xor `out[i] = a[i] ^ b[i]` that vyre's builder makes (examples/embed), on the
// CPU. Everything else it refuses at compile time with VYRE_ERR_UNSUPPORTED. The plugin kit does
// the rest: the C function table, wire decoding and validation, every dispatch input check.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <vyre/plugin_kit.hpp>

namespace {

using vyre::Access;
using vyre::ExprKind;
using vyre::NodeKind;
using vyre::Type;

bool is_var(const vyre::Expr& e, const std::string& name) {
  return e.kind == ExprKind::Var && e.name == name;
}
bool is_load_at(const vyre::Expr& e, const std::string& buffer, const std::string& index) {
  return e.kind == ExprKind::Load && e.name == buffer && is_var(e.args.at(0), index);
}

// let i = invocation_id(0); out[i] = a[i] ^ b[i], over read/read/output u32 buffers.
bool is_elementwise_xor(const vyre::Program& p) {
  if (p.buffers.size() != 3 || p.body.size() != 2) return false;
  const auto& a = p.buffers[0];
  const auto& b = p.buffers[1];
  const auto& out = p.buffers[2];
  if (a.access != Access::Read || b.access != Access::Read || out.access != Access::Output) return false;
  if (a.element != Type::U32 || b.element != Type::U32 || out.element != Type::U32) return false;
  if (p.workgroup_size[1] != 1 || p.workgroup_size[2] != 1) return false;
  const vyre::Node& let = p.body[0];
  if (let.kind != NodeKind::Let || let.exprs[0].kind != ExprKind::InvocationId || let.exprs[0].axis != 0)
    return false;
  const vyre::Node& store = p.body[1];
  if (store.kind != NodeKind::Store || store.name != out.name || !is_var(store.exprs[0], let.name))
    return false;
  const vyre::Expr& value = store.exprs[1];
  return value.kind == ExprKind::Bin && value.bin_op == vyre::BinOp::Xor &&
         is_load_at(value.args[0], a.name, let.name) && is_load_at(value.args[1], b.name, let.name);
}

std::uint32_t element(vyre::kit::Bytes bytes, std::uint64_t i) {
  std::uint32_t v = 0;  // out of bounds: a load yields zero (SPEC §2)
  if ((i + 1) * sizeof v <= bytes.size()) std::memcpy(&v, bytes.data() + i * sizeof v, sizeof v);
  return v;
}

class TinyXor final : public vyre::kit::BackendImpl {
 public:
  void device_profile(vyre_device_profile& out) override {
    std::strcpy(out.name, "cpu");
    std::strcpy(out.target, "cpu");
    out.kind = VYRE_DEVICE_KIND_CPU;
    out.multiprocessors = 1;
    out.subgroup_width = 1;
    out.max_threads_per_workgroup = 1024;
    for (int axis = 0; axis < 3; ++axis) {
      out.max_workgroup_size[axis] = 1024;
      out.max_grid_size[axis] = 0xffffffffu;
    }
  }

  std::shared_ptr<vyre::kit::CompiledProgram> compile(vyre::Program program, std::string fingerprint) override {
    if (!is_elementwise_xor(program))
      vyre::fail(VYRE_ERR_UNSUPPORTED, "tiny_xor runs only the elementwise u32 xor out[i] = a[i] ^ b[i]",
                 "route other programs to another backend (VYRE_BACKEND or Registry::route)");
    return std::make_shared<vyre::kit::CompiledProgram>(std::move(program), std::move(fingerprint));
  }

  // Every invocation x < N (the tail guard) of the grid's x axis writes out[x]; the other axes
  // and fixpoint iterations repeat the same stores.
  void dispatch(const vyre::kit::HostDispatch& d) override {
    const std::uint64_t out_len = d.buffer_elements[2];
    std::uint64_t invocations = std::uint64_t{d.geometry.grid[0]} * d.geometry.workgroup[0];
    if (d.geometry.tail_guard) invocations = std::min(invocations, d.geometry.n);
    std::vector<std::uint32_t> out(out_len, 0);  // output buffers start zeroed
    for (std::uint64_t x = 0; x < std::min(invocations, out_len); ++x)
      out[x] = element(d.inputs[0], x) ^ element(d.inputs[1], x);
    const vyre::kit::OutputTarget& target = d.outputs[0];
    std::memcpy(target.dst.data(), reinterpret_cast<const std::byte*>(out.data()) + target.buffer_offset,
                target.dst.size());
  }
};

const vyre::kit::PluginSpec& spec() {
  static const vyre::kit::PluginSpec s = [] {
    vyre::kit::PluginSpec p;
    p.id = "tiny_xor";
    p.version = "0.1.0";
    p.rank = 100;  // preferred to the reference (900) for the programs it declares
    p.capabilities = VYRE_CAP_DISPATCH;
    p.op_ids = {"bin.xor.u32", "builtin.invocation_id", "load.u32", "node.let", "store.u32"};
    p.create = [](const vyre::CreateOptions&) { return std::make_unique<TinyXor>(); };
    return p;
  }();
  return s;
}

}  // namespace

extern "C" VYRE_PLUGIN_EXPORT vyre_status vyre_backend_register(const vyre_host_info* host,
                                                                vyre_backend_info* info) {
  return vyre::kit::register_backend(spec(), host, info);
}
