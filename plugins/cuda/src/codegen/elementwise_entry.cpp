// Emission of the elementwise entry (elementwise.hpp): thread setup, the choice between the vector
// path and the scalar lane loop, and both paths.
#include <array>
#include <string>
#include <vector>

#include "codegen/elementwise.hpp"
#include "codegen/entry_parts.hpp"
#include "codegen/function_emitter.hpp"
#include "codegen/statements.hpp"
#include "codegen/storage_conversion.hpp"

namespace vyre::cuda::codegen {

namespace {

constexpr std::uint32_t kVectorBytes = 16;

struct ThreadSetup {
  std::string base;   // .b64: InvocationId.x of the thread's first lane
  std::string fast;   // .pred: every lane in bounds of N and of every accessed buffer, all aligned
};

std::string special(FunctionEmitter& f, std::string_view name) {
  std::string r = f.reg(RegClass::B32);
  f.ins("mov.u32 {}, %{}.x;", r, name);
  return r;
}

// base = 4 * (ctaid.x * ntid.x + tid.x), in 64 bits (a launch with the full SPEC grid stays correct);
// sharded entries add the shard's first invocation, workgroup_base * ntid.x.
std::string first_invocation(FunctionEmitter& f) {
  std::string local = special(f, "tid");
  std::string group = special(f, "ctaid");
  std::string size = special(f, "ntid");
  std::string thread = f.reg(RegClass::B32);
  f.ins("mad.lo.u32 {}, {}, {}, {};", thread, group, size, local);
  std::string base = f.reg(RegClass::B64);
  f.ins("mul.wide.u32 {}, {}, {};", base, thread, kElementwiseLanes);
  if (f.params.workgroup_base.empty()) return base;
  std::string shard_first = f.reg(RegClass::B64);
  f.ins("mul.wide.u32 {}, {}, {};", shard_first, f.params.workgroup_base, size);
  std::string global = f.reg(RegClass::B64);
  f.ins("add.u64 {}, {}, {};", global, base, shard_first);
  return global;
}

// base + 4 <= min(N, BufLen of each accessed buffer).
std::string lanes_in_bounds(FunctionEmitter& f, const ElementwiseShape& shape, const std::string& base) {
  std::string limit = f.reg(RegClass::B32);
  f.ins("mov.u32 {}, {};", limit, f.params.dispatch_n);
  for (std::size_t b : shape.accessed) f.ins("min.u32 {}, {}, {};", limit, limit, f.params.count[b]);
  std::string wide_limit = f.reg(RegClass::B64);
  f.ins("cvt.u64.u32 {}, {};", wide_limit, limit);
  std::string end = f.reg(RegClass::B64);
  f.ins("add.u64 {}, {}, {};", end, base, kElementwiseLanes);
  std::string inside = f.reg(RegClass::Pred);
  f.ins("setp.le.u64 {}, {}, {};", inside, end, wide_limit);
  return inside;
}

// Every accessed buffer's address is a multiple of 16, and (sharded entries, whose first
// invocation can be any number) the thread's first element starts a 16-byte vector: base % 4 == 0.
std::string all_aligned(FunctionEmitter& f, const ElementwiseShape& shape, const std::string& base) {
  std::string bits = f.reg(RegClass::B64);
  f.ins("mov.b64 {}, 0;", bits);
  if (!f.params.workgroup_base.empty()) f.ins("shl.b64 {}, {}, 2;", bits, base);  // base % 4 in bits 2..3
  for (std::size_t b : shape.accessed) f.ins("or.b64 {}, {}, {};", bits, bits, f.params.pointer[b]);
  f.ins("and.b64 {}, {}, {};", bits, bits, kVectorBytes - 1);
  std::string aligned = f.reg(RegClass::Pred);
  f.ins("setp.eq.u64 {}, {}, 0;", aligned, bits);
  return aligned;
}

ThreadSetup thread_setup(FunctionEmitter& f, const ElementwiseShape& shape) {
  ThreadSetup setup;
  setup.base = first_invocation(f);
  std::string inside = lanes_in_bounds(f, shape, setup.base);
  std::string aligned = all_aligned(f, shape, setup.base);
  setup.fast = f.reg(RegClass::Pred);
  f.ins("and.pred {}, {}, {};", setup.fast, inside, aligned);
  return setup;
}

// ---- vector path ----

struct VectorPath {
  std::vector<std::string> address;  // by buffer: .b64 address of the thread's first element
  std::array<InvocationLane, kElementwiseLanes> lanes;
  std::array<FunctionEmitter::Variables, kElementwiseLanes> variables;
};

// Accesses of 16 bytes covering the 4 lanes' elements: {count, lanes per access}.
std::pair<std::uint32_t, std::uint32_t> vector_split(Type storage) {
  const std::uint32_t per_access = kVectorBytes / byte_size(storage);
  return {kElementwiseLanes / per_access, per_access};
}

std::string vector_operands(const std::array<std::string, kElementwiseLanes>& regs, std::uint32_t first,
                            std::uint32_t count) {
  std::string text = "{";
  for (std::uint32_t k = 0; k < count; ++k) {
    if (k > 0) text += ", ";
    text += regs[first + k];
  }
  text += "}";
  return text;
}

void vector_load(FunctionEmitter& f, VectorPath& path, std::size_t buffer) {
  const Type storage = f.program().buffers[buffer].element;
  const StorageAccess access = storage_access(storage);
  std::array<std::string, kElementwiseLanes> raw;
  for (auto& r : raw) r = f.reg(access.load_class);
  const auto [accesses, per_access] = vector_split(storage);
  for (std::uint32_t a = 0; a < accesses; ++a) {
    f.ins("ld.global.v{}.{} {}, [{}+{}];", per_access, access.load_type,
          vector_operands(raw, a * per_access, per_access), path.address[buffer], a * kVectorBytes);
  }
  for (std::uint32_t k = 0; k < kElementwiseLanes; ++k) path.lanes[k].loaded[buffer] = widen_loaded(f, storage, raw[k]);
}

void vector_store(FunctionEmitter& f, VectorPath& path, std::size_t buffer) {
  const Type storage = f.program().buffers[buffer].element;
  const StorageAccess access = storage_access(storage);
  std::array<std::string, kElementwiseLanes> raw;
  for (std::uint32_t k = 0; k < kElementwiseLanes; ++k) raw[k] = path.lanes[k].stored[buffer];
  const auto [accesses, per_access] = vector_split(storage);
  for (std::uint32_t a = 0; a < accesses; ++a) {
    f.ins("st.global.v{}.{} [{}+{}], {};", per_access, access.store_type, path.address[buffer],
          a * kVectorBytes, vector_operands(raw, a * per_access, per_access));
  }
}

// One statement for all lanes: its loads as vectors, the statement per lane, its store as vectors.
void vector_statement(FunctionEmitter& f, VectorPath& path, const Node& node) {
  const std::size_t buffers = f.program().buffers.size();
  for (InvocationLane& lane : path.lanes) {
    lane.loaded.assign(buffers, Value{});
    lane.stored.assign(buffers, std::string());
  }
  for (std::size_t b : loaded_buffers(f.program(), node)) vector_load(f, path, b);
  for (std::uint32_t k = 0; k < kElementwiseLanes; ++k) {
    f.lane = &path.lanes[k];
    f.swap_variables(path.variables[k]);
    emit_statement(f, node);
    f.swap_variables(path.variables[k]);
    f.lane = nullptr;
  }
  if (node.kind != NodeKind::Store) return;
  for (std::size_t b = 0; b < buffers; ++b) {
    if (!path.lanes[0].stored[b].empty()) vector_store(f, path, b);
  }
}

void emit_vector_path(FunctionEmitter& f, const ElementwiseShape& shape, const std::string& base) {
  VectorPath path;
  path.address.assign(f.program().buffers.size(), std::string());
  for (std::size_t b : shape.accessed) {
    std::string offset = f.reg(RegClass::B64);
    f.ins("mul.lo.u64 {}, {}, {};", offset, base, byte_size(f.program().buffers[b].element));
    path.address[b] = f.reg(RegClass::B64);
    f.ins("add.s64 {}, {}, {};", path.address[b], f.params.pointer[b], offset);
  }
  std::string first = f.reg(RegClass::B32);
  f.ins("cvt.u32.u64 {}, {};", first, base);  // base + 4 <= N < 2^32 here
  for (std::uint32_t k = 0; k < kElementwiseLanes; ++k) {
    path.lanes[k].vector = true;
    path.lanes[k].invocation_x = f.reg(RegClass::B32);
    f.ins("add.u32 {}, {}, {};", path.lanes[k].invocation_x, first, k);
  }
  for (const Node& node : f.program().body) vector_statement(f, path, node);
}

// ---- scalar path: the lanes one after another, each the ordinary body ----

void emit_scalar_path(FunctionEmitter& f, const std::string& base, const std::string& done) {
  std::string n = f.reg(RegClass::B64);
  f.ins("cvt.u64.u32 {}, {};", n, f.params.dispatch_n);
  std::string k = f.reg(RegClass::B32);
  f.ins("mov.u32 {}, 0;", k);
  std::string head = f.new_label("lane");
  f.put_label(head);
  std::string wide_k = f.reg(RegClass::B64);
  f.ins("cvt.u64.u32 {}, {};", wide_k, k);
  std::string id = f.reg(RegClass::B64);
  f.ins("add.u64 {}, {}, {};", id, base, wide_k);
  std::string beyond = f.reg(RegClass::Pred);
  f.ins("setp.ge.u64 {}, {}, {};", beyond, id, n);
  f.ins("@{} bra {};", beyond, done);  // the tail guard; later lanes are further past N
  InvocationLane lane;
  lane.invocation_x = f.reg(RegClass::B32);
  f.ins("cvt.u32.u64 {}, {};", lane.invocation_x, id);
  f.lane = &lane;
  emit_block(f, f.program().body);
  f.lane = nullptr;
  f.ins("add.u32 {}, {}, 1;", k, k);
  std::string more = f.reg(RegClass::Pred);
  f.ins("setp.lt.u32 {}, {}, {};", more, k, kElementwiseLanes);
  f.ins("@{} bra {};", more, head);
}

}  // namespace

EmittedEntry emit_elementwise_entry(const ProgramLayout& layout, const Target& target,
                                    const ElementwiseShape& shape, bool sharded) {
  EmittedEntry out;
  out.entry.name = kElementwiseEntryName;
  out.entry.params = kernel_params(*layout.program, sharded, false, layout.covering);
  out.entry.invocations_per_thread = kElementwiseLanes;

  FunctionEmitter f(layout, target);
  emit_prologue(f, out.entry.params);
  f.return_label = f.new_label("end");  // no Return in an elementwise body; kept for safety
  const ThreadSetup setup = thread_setup(f, shape);
  std::string scalar = f.new_label("scalar");
  f.ins("@!{} bra {};", setup.fast, scalar);
  emit_vector_path(f, shape, setup.base);
  f.ins("bra {};", f.return_label);
  f.put_label(scalar);
  emit_scalar_path(f, setup.base, f.return_label);
  f.put_label(f.return_label);
  f.ins("ret;");

  out.ptx = entry_header(kElementwiseEntryName, out.entry.params, layout);
  out.ptx += f.register_declarations();
  out.ptx += f.body();
  out.ptx += "}\n";
  out.math_calls = f.math_calls;
  return out;
}

}  // namespace vyre::cuda::codegen
