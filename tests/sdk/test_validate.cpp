// The validator: generated programs pass; a table of bad programs each yields exactly the expected
// Check at the expected path (and nothing else); several problems are reported at once.
#include <doctest/doctest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "support/random_program.hpp"
#include "vyre/builder.hpp"
#include "vyre/error.hpp"
#include "vyre/ops.hpp"
#include "vyre/validate.hpp"
#include "vyre/wire.hpp"

namespace {

using namespace vyre::dsl;
using vyre::Access;
using vyre::Check;
using vyre::Type;

std::string describe(const std::vector<vyre::Diagnostic>& diagnostics) {
  std::string text;
  for (const auto& d : diagnostics)
    text += std::string(vyre::check_name(d.code)) + " at " + d.path + ": " + d.message + "\n";
  return text;
}

// in(read u32) u(uniform f32) rw(read_write u32) out(output f32, 64) w(workgroup i32, 32)
// c64(read_write u64) h(output f16, 8); workgroup 64; body: let i = invocation_id(0), then `rest`.
vyre::Program base(std::vector<vyre::Node> rest = {}) {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  b.buffer("in", Access::Read, Type::U32);
  b.buffer("u", Access::Uniform, Type::F32);
  b.buffer("rw", Access::ReadWrite, Type::U32);
  b.buffer("out", Access::Output, Type::F32, 64);
  b.buffer("w", Access::Workgroup, Type::I32, 32);
  b.buffer("c64", Access::ReadWrite, Type::U64);
  b.buffer("h", Access::Output, Type::F16, 8);
  b.let("i", invocation_id(0));
  vyre::Program p = b.build();
  for (auto& n : rest) p.body.push_back(std::move(n));
  return p;
}

vyre::Program with(std::function<void(vyre::Program&)> change, std::vector<vyre::Node> rest = {}) {
  vyre::Program p = base(std::move(rest));
  change(p);
  return p;
}

vyre::Node let_x(vyre::Expr e) { return let("x", std::move(e)); }

struct BadCase {
  const char* what;
  vyre::Program program;
  Check code;
  std::string path;
};

// The path of the first expression deeper than 256: the let is at depth 1, its value at 2.
std::string deep_path() {
  std::string path = "body[1].value";
  for (std::uint32_t depth = 2; depth < vyre::kWireMaxDepth + 1; ++depth) path += ".a";
  return path;
}

vyre::Expr nested_neg(int depth) {
  vyre::Expr e = i32(1);
  for (int k = 0; k < depth; ++k) e = -e;
  return e;
}

std::vector<BadCase> bad_cases() {
  auto wg = [](std::uint32_t x, std::uint32_t y) { return [=](vyre::Program& p) { p.workgroup_size = {x, y, 1}; }; };
  auto buffer = [](std::function<void(vyre::BufferDecl&)> f) {
    return [=](vyre::Program& p) {
      vyre::BufferDecl d{"extra", 100, Access::ReadWrite, Type::U32, 4, std::nullopt};
      f(d);
      p.buffers.push_back(d);
    };
  };
  vyre::Expr bad_arity = u32(1) + u32(2);
  bad_arity.args.pop_back();
  vyre::Node empty_let = let("x", u32(1));
  empty_let.exprs.clear();
  vyre::Node return_with_body = ret();
  return_with_body.body.push_back(ret());
  vyre::Node bad_kind = ret();
  bad_kind.kind = static_cast<vyre::NodeKind>(99);

  return {
      {"zero workgroup axis", with(wg(0, 1)), Check::WorkgroupSize, "workgroup_size"},
      {"workgroup over 1024", with(wg(64, 32)), Check::WorkgroupSize, "workgroup_size"},
      {"duplicate buffer name", with(buffer([](auto& d) { d.name = "rw"; })), Check::DuplicateBufferName, "buffers[7]"},
      {"duplicate binding", with(buffer([](auto& d) { d.binding = 2; })), Check::DuplicateBinding, "buffers[7]"},
      {"bad buffer name", with(buffer([](auto& d) { d.name = "1x"; })), Check::InvalidName, "buffers[7]"},
      {"empty buffer name", with(buffer([](auto& d) { d.name = ""; })), Check::InvalidName, "buffers[7]"},
      {"output count 0", with(buffer([](auto& d) { d.access = Access::Output; d.count = 0; })), Check::BufferCount, "buffers[7]"},
      {"workgroup count 0", with(buffer([](auto& d) { d.access = Access::Workgroup; d.count = 0; })), Check::BufferCount, "buffers[7]"},
      {"range on an input", with(buffer([](auto& d) { d.access = Access::Read; d.output_byte_range = vyre::ByteRange{0, 4}; })), Check::OutputRange, "buffers[7]"},
      {"empty range", with(buffer([](auto& d) { d.output_byte_range = vyre::ByteRange{4, 4}; })), Check::OutputRange, "buffers[7]"},
      {"range past the end", with(buffer([](auto& d) { d.output_byte_range = vyre::ByteRange{8, 17}; })), Check::OutputRange, "buffers[7]"},
      {"element out of range", with(buffer([](auto& d) { d.element = static_cast<Type>(99); })), Check::InvalidType, "buffers[7]"},
      {"store to unknown buffer", base({store("nope", var("i"), u32(1))}), Check::UnknownBuffer, "body[1]"},
      {"load from unknown buffer", base({let_x(load("nope", var("i")))}), Check::UnknownBuffer, "body[1].value"},
      {"unknown variable", base({let_x(var("y"))}), Check::UnknownVariable, "body[1].value"},
      {"let twice", base({let("i", u32(1))}), Check::DuplicateVariable, "body[1]"},
      {"let shadowing in a block", base({block({let("i", u32(1))})}), Check::DuplicateVariable, "body[1].block[0]"},
      {"loop variable in scope", base({loop("i", u32(0), u32(1), {})}), Check::DuplicateVariable, "body[1]"},
      {"u32 + i32", base({let_x(var("i") + i32(1))}), Check::TypeMismatch, "body[1].value"},
      {"shift by u64", base({let_x(var("i") << u64(1))}), Check::TypeMismatch, "body[1].value.b"},
      {"mod on f32", base({let_x(f32(1) % f32(2))}), Check::OpNotDefined, "body[1].value"},
      {"logical_and on f32", base({let_x(logical_and(f32(1), f32(2)))}), Check::OpNotDefined, "body[1].value"},
      {"sqrt of u32", base({let_x(un(vyre::UnOp::Sqrt, var("i")))}), Check::OpNotDefined, "body[1].value"},
      {"store f32 into u32", base({store("rw", var("i"), f32(1))}), Check::TypeMismatch, "body[1].value"},
      {"store f64 into f16", base({store("h", var("i"), f64(1))}), Check::TypeMismatch, "body[1].value"},
      {"store to a read buffer", base({store("in", var("i"), u32(1))}), Check::NotWritable, "body[1]"},
      {"store to a uniform buffer", base({store("u", var("i"), f32(1))}), Check::NotWritable, "body[1]"},
      {"f32 store index", base({store("rw", f32(0), u32(1))}), Check::TypeMismatch, "body[1].index"},
      {"u64 load index", base({let_x(load("in", u64(0)))}), Check::TypeMismatch, "body[1].value.index"},
      {"atomic on a read buffer", base({let_x(atomic(vyre::AtomicOp::Add, "in", var("i"), u32(1)))}), Check::NotWritable, "body[1].value"},
      {"atomic on f32", base({let_x(atomic(vyre::AtomicOp::Add, "out", var("i"), f32(1)))}), Check::AtomicElement, "body[1].value"},
      {"atomic min on u64", base({let_x(atomic(vyre::AtomicOp::Min, "c64", var("i"), u64(1)))}), Check::OpNotDefined, "body[1].value"},
      {"atomic value type", base({let_x(atomic(vyre::AtomicOp::Add, "c64", var("i"), u32(1)))}), Check::TypeMismatch, "body[1].value.value"},
      {"compare_exchange expected type", base({let_x(compare_exchange("rw", var("i"), i32(0), u32(1)))}), Check::TypeMismatch, "body[1].value.expected"},
      {"atomic f32 index", base({let_x(atomic(vyre::AtomicOp::Add, "rw", f32(0), u32(1)))}), Check::TypeMismatch, "body[1].value.index"},
      {"atomic arity", base({let_x([] { auto e = atomic(vyre::AtomicOp::CompareExchange, "rw", u32(0), u32(1)); return e; }())}), Check::ArityMismatch, "body[1].value"},
      {"axis 3", base({let_x(local_id(3))}), Check::InvalidAxis, "body[1].value"},
      {"grid_sync in an if", base({if_(boolean(true), {grid_sync()})}), Check::GridSyncPlacement, "body[1].then[0]"},
      {"grid_sync in a loop", base({loop("k", u32(0), u32(1), {grid_sync()})}), Check::GridSyncPlacement, "body[1].body[0]"},
      {"use after grid_sync", base({grid_sync(), let_x(var("i"))}), Check::CrossesGridSync, "body[2].value"},
      {"assign after grid_sync", base({grid_sync(), assign("i", u32(1))}), Check::CrossesGridSync, "body[2]"},
      {"ballot with 48 lanes", with(wg(48, 1), {let_x(ballot(boolean(true)))}), Check::SubgroupWorkgroup, "workgroup_size"},
      {"reduce with 8x5 lanes", with(wg(8, 5), {let_x(reduce(vyre::ReduceOp::Add, u32(1)))}), Check::SubgroupWorkgroup, "workgroup_size"},
      {"bin with one operand", base({let_x(bad_arity)}), Check::ArityMismatch, "body[1].value"},
      {"let without value", base({empty_let}), Check::ArityMismatch, "body[1]"},
      {"return with a body", base({return_with_body}), Check::ArityMismatch, "body[1]"},
      {"bool literal 2", base({let_x(lit(Type::Bool, 2))}), Check::InvalidLiteral, "body[1].value"},
      {"u32 literal of 33 bits", base({let_x(lit(Type::U32, 1ull << 32))}), Check::InvalidLiteral, "body[1].value"},
      {"i32 literal sign-extended", base({let_x(lit(Type::I32, ~0ull))}), Check::InvalidLiteral, "body[1].value"},
      {"u8 literal", base({let_x(lit(Type::U8, 1))}), Check::InvalidLiteral, "body[1].value"},
      {"assign to a loop variable", base({loop("k", u32(0), u32(4), {assign("k", u32(1))})}), Check::AssignLoopVariable, "body[1].body[0]"},
      {"assign to an undeclared name", base({assign("y", u32(1))}), Check::UnknownVariable, "body[1]"},
      {"assign of another type", base({assign("i", i32(1))}), Check::TypeMismatch, "body[1].value"},
      {"buf_len of a workgroup buffer", base({let_x(buf_len("w"))}), Check::WorkgroupBufferAccess, "body[1].value"},
      {"cast to the same type", base({let_x(cast(Type::U32, var("i")))}), Check::CastToSameType, "body[1].value"},
      {"bitcast to the same type", base({let_x(bitcast(Type::U32, var("i")))}), Check::CastToSameType, "body[1].value"},
      {"bitcast across widths", base({let_x(bitcast(Type::U64, var("i")))}), Check::OpNotDefined, "body[1].value"},
      {"bitcast from bool", base({let_x(bitcast(Type::U32, boolean(true)))}), Check::OpNotDefined, "body[1].value"},
      {"cast to u8", base({let_x(cast(Type::U8, var("i")))}), Check::OpNotDefined, "body[1].value"},
      {"u32 if condition", base({if_(var("i"), {})}), Check::TypeMismatch, "body[1].if"},
      {"i32 loop bound", base({loop("k", i32(0), u32(4), {})}), Check::TypeMismatch, "body[1].from"},
      {"u32 select condition", base({let_x(select(var("i"), u32(1), u32(2)))}), Check::TypeMismatch, "body[1].value.select"},
      {"select arms differ", base({let_x(select(boolean(true), u32(1), i32(2)))}), Check::TypeMismatch, "body[1].value"},
      {"fma of u32", base({let_x(fma(u32(1), u32(2), u32(3)))}), Check::OpNotDefined, "body[1].value"},
      {"fma of mixed floats", base({let_x(fma(f32(1), f64(2), f32(3)))}), Check::TypeMismatch, "body[1].value"},
      {"shuffle a bool", base({let_x(shuffle(boolean(true), u32(0)))}), Check::OpNotDefined, "body[1].value"},
      {"shuffle lane i32", base({let_x(shuffle(u32(1), i32(0)))}), Check::TypeMismatch, "body[1].value.lane"},
      {"reduce and on f32", base({let_x(reduce(vyre::ReduceOp::And, f32(1)))}), Check::OpNotDefined, "body[1].value"},
      {"ballot of u32", base({let_x(ballot(var("i")))}), Check::TypeMismatch, "body[1].value.ballot"},
      {"bad variable name", base({let("bad-name", u32(1))}), Check::InvalidName, "body[1]"},
      {"bad loop variable name", base({loop("", u32(0), u32(1), {})}), Check::InvalidName, "body[1]"},
      {"deep nesting", base({let_x(nested_neg(300))}), Check::NestingDepth, deep_path()},
      {"node kind out of range", base({bad_kind}), Check::InvalidType, "body[1]"},
      {"deep error path", base({if_(boolean(true), {loop("k", u32(0), u32(2), {store("rw", var("k"), var("k") + f32(1))})})}),
       Check::TypeMismatch, "body[1].then[0].body[0].value"},
  };
}

}  // namespace

TEST_CASE("generated programs are valid and their ops are in the catalog") {
  vyre::test::RandomProgramOptions plain;
  plain.subgroups = plain.barriers = plain.grid_sync = plain.atomics = plain.returns = false;
  plain.workgroup_buffers = plain.narrow_types = plain.stores = false;
  for (std::uint64_t seed = 0; seed < 400; ++seed) {
    for (const auto& options : {vyre::test::RandomProgramOptions{}, plain}) {
      vyre::Program p = vyre::test::random_program(seed, options);
      auto diagnostics = vyre::validate(p);
      CHECK_MESSAGE(diagnostics.empty(), "seed ", seed, ":\n", describe(diagnostics));
      for (const auto& id : vyre::ops_used(p)) CHECK_MESSAGE(vyre::find_op(id) != nullptr, id);
      CHECK_NOTHROW(vyre::validate_or_throw(p));
    }
  }
}

TEST_CASE("the generator exercises every kind, access and storage type") {
  std::set<std::string> ids;
  std::set<vyre::Access> accesses;
  std::set<Type> elements;
  bool range = false;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    vyre::Program p = vyre::test::random_program(seed);
    for (const auto& id : vyre::ops_used(p)) ids.insert(id);
    for (const auto& d : p.buffers) {
      accesses.insert(d.access);
      elements.insert(d.element);
      range = range || d.output_byte_range.has_value();
    }
  }
  for (const char* id : {"node.let", "node.assign", "node.if", "node.loop", "node.return", "node.block",
                         "node.barrier", "node.grid_sync", "mem.workgroup", "subgroup.ballot",
                         "builtin.invocation_id", "builtin.local_id", "builtin.workgroup_id",
                         "builtin.num_workgroups", "builtin.subgroup_lane", "builtin.subgroup_size",
                         "builtin.buf_len", "fma.f32", "fma.f64", "atomic.compare_exchange.u32",
                         "atomic.add.u64.workgroup"})
    CHECK_MESSAGE(ids.count(id) == 1, id);
  auto has_prefix = [&](std::string prefix) {
    for (const auto& id : ids)
      if (id.starts_with(prefix)) return true;
    return false;
  };
  for (const char* prefix : {"bin.", "un.", "cast.", "bitcast.", "select.", "load.", "store.",
                             "atomic.", "subgroup.shuffle.", "subgroup.reduce."})
    CHECK_MESSAGE(has_prefix(prefix), prefix);
  CHECK(accesses.size() == static_cast<std::size_t>(vyre::kAccessCount));
  CHECK(elements.size() == static_cast<std::size_t>(vyre::kTypeCount));
  for (Type t : vyre::kStorageTypes) {
    CHECK_MESSAGE(ids.count("load." + std::string(vyre::type_name(t))) == 1, vyre::type_name(t));
    CHECK_MESSAGE(ids.count("store." + std::string(vyre::type_name(t))) == 1, vyre::type_name(t));
  }
  CHECK(range);
  CHECK(ids.size() > 250);
}

TEST_CASE("the base of the bad-program table is valid, and so are near misses") {
  CHECK(vyre::validate(base()).empty());
  std::vector<vyre::Program> fine = {
      base({block({let("t", u32(1))}), block({let("t", f32(1))})}),  // sibling scopes reuse names
      base({let_x(i64(1) << u32(3))}),
      base({let_x(bin(vyre::BinOp::AbsDiff, i32(1), i32(2))), store("rw", var("i"), var("x"))}),
      base({store("h", var("i"), f32(1.5f))}),  // f16 buffers take f32 values
      base({let_x(atomic(vyre::AtomicOp::Min, "w", var("i"), i32(1)))}),
      base({let_x(load("in", i32(-1)))}),
      base({grid_sync(), let("i", u32(2)), let_x(var("i"))}),  // a new i after the grid_sync
      with([](vyre::Program& p) { p.workgroup_size = {48, 1, 1}; }, {let_x(subgroup_lane())}),
      with([](vyre::Program& p) { p.buffers[2].output_byte_range = vyre::ByteRange{4, 1000}; }),
      base({let_x(lit(Type::Bool, 1)), let("y", lit(Type::I32, 0xFFFFFFFF))}),
  };
  for (std::size_t k = 0; k < fine.size(); ++k) {
    auto diagnostics = vyre::validate(fine[k]);
    CHECK_MESSAGE(diagnostics.empty(), "case ", k, ":\n", describe(diagnostics));
  }
}

TEST_CASE("each bad program reports exactly its problem, at its path") {
  for (const auto& c : bad_cases()) {
    CAPTURE(c.what);
    auto diagnostics = vyre::validate(c.program);
    CAPTURE(describe(diagnostics));
    REQUIRE(diagnostics.size() == 1);
    CHECK(diagnostics[0].code == c.code);
    CHECK(diagnostics[0].path == c.path);
    CHECK(diagnostics[0].message.find("Fix: ") != std::string::npos);
    CHECK(diagnostics[0].message.back() == '.');
  }
}

TEST_CASE("all problems are reported at once, in program order") {
  vyre::Program p = base({let("x", var("nope")), store("in", var("i"), u32(1)), let_x(u32(1)),
                          if_(boolean(true), {grid_sync()})});
  p.workgroup_size = {0, 1, 1};
  p.buffers[3].count = 0;
  auto diagnostics = vyre::validate(p);
  CAPTURE(describe(diagnostics));
  REQUIRE(diagnostics.size() == 6);
  CHECK(diagnostics[0].code == Check::WorkgroupSize);
  CHECK(diagnostics[1].code == Check::BufferCount);
  CHECK(diagnostics[1].path == "buffers[3]");
  CHECK(diagnostics[2].code == Check::UnknownVariable);
  CHECK(diagnostics[2].path == "body[1].value");
  CHECK(diagnostics[3].code == Check::NotWritable);
  CHECK(diagnostics[3].path == "body[2]");
  CHECK(diagnostics[4].code == Check::DuplicateVariable);
  CHECK(diagnostics[4].path == "body[3]");
  CHECK(diagnostics[5].code == Check::GridSyncPlacement);

  try {
    vyre::validate_or_throw(p);
    FAIL("no error");
  } catch (const vyre::Error& e) {
    std::string what = e.what();
    CHECK(e.code() == VYRE_ERR_INVALID_PROGRAM);
    CHECK(what.starts_with("the program fails validation (6 problems):"));
    CHECK(what.find("\n  UnknownVariable at body[1].value: variable \"nope\" is not in scope. Fix: ") != std::string::npos);
    CHECK(what.find("Fix: ", what.rfind('\n')) != std::string::npos);
  }
}

TEST_CASE("check names are stable") {
  CHECK(vyre::check_name(Check::WorkgroupSize) == "WorkgroupSize");
  CHECK(vyre::check_name(Check::TypeMismatch) == "TypeMismatch");
  CHECK(vyre::check_name(Check::CastToSameType) == "CastToSameType");
  CHECK(vyre::check_name(Check::NestingDepth) == "NestingDepth");
  CHECK(vyre::check_name(static_cast<Check>(7)) == "Unknown");
  CHECK(vyre::check_name(static_cast<Check>(999)) == "Unknown");
}
