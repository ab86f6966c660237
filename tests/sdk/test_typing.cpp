// expr_type: every expression kind's result type, and nullopt for each way of being ill-typed.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "vyre/builder.hpp"
#include "vyre/typing.hpp"

namespace {

using namespace vyre::dsl;
using vyre::Access;
using vyre::Type;

struct Fixture {
  vyre::Program program;
  vyre::BufferIndex buffers{program};
  vyre::Scope scope;
  Fixture() {
    vyre::ProgramBuilder b;
    b.buffer("h", Access::Read, Type::F16);
    b.buffer("s8", Access::Read, Type::I8);
    b.buffer("c", Access::ReadWrite, Type::U64);
    b.buffer("w", Access::Workgroup, Type::I32, 16);
    b.buffer("r", Access::Read, Type::U32);
    b.buffer("o", Access::Output, Type::F32, 4);
    program = b.build();
    buffers = vyre::BufferIndex(program);
    scope.open();
    scope.declare("x", Type::U32);
    scope.declare("f", Type::F64);
  }
  std::optional<Type> type(const vyre::Expr& e) const { return vyre::expr_type(e, buffers, scope); }
};

}  // namespace

TEST_CASE_FIXTURE(Fixture, "well-typed expressions") {
  CHECK(type(u32(1)) == Type::U32);
  CHECK(type(var("f")) == Type::F64);
  CHECK(type(load("h", var("x"))) == Type::F32);
  CHECK(type(load("s8", i32(-1))) == Type::I32);
  CHECK(type(buf_len("r")) == Type::U32);
  CHECK(type(local_id(2)) == Type::U32);
  CHECK(type(subgroup_size()) == Type::U32);
  CHECK(type(var("x") << u32(3)) == Type::U32);
  CHECK(type(i64(5) >> u32(3)) == Type::I64);
  CHECK(type(bin(vyre::BinOp::AbsDiff, i32(1), i32(2))) == Type::U32);
  CHECK(type(lt(var("f"), f64(1.0))) == Type::Bool);
  CHECK(type(un(vyre::UnOp::Clz, u64(1))) == Type::U32);
  CHECK(type(un(vyre::UnOp::IsInf, f32(1))) == Type::Bool);
  CHECK(type(select(boolean(true), var("f"), f64(2))) == Type::F64);
  CHECK(type(cast(Type::I32, var("f"))) == Type::I32);
  CHECK(type(bitcast(Type::U64, var("f"))) == Type::U64);
  CHECK(type(fma(f32(1), f32(2), f32(3))) == Type::F32);
  CHECK(type(atomic(vyre::AtomicOp::Add, "c", u32(0), u64(1))) == Type::U64);
  CHECK(type(atomic(vyre::AtomicOp::Min, "w", i32(0), i32(1))) == Type::I32);
  CHECK(type(compare_exchange("w", u32(0), i32(0), i32(1))) == Type::I32);
  CHECK(type(ballot(boolean(false))) == Type::U32);
  CHECK(type(shuffle(var("f"), u32(3))) == Type::F64);
  CHECK(type(reduce(vyre::ReduceOp::Xor, i64(1))) == Type::I64);
}

TEST_CASE_FIXTURE(Fixture, "ill-typed expressions have no type") {
  CHECK_FALSE(type(var("nope")));
  CHECK_FALSE(type(lit(Type::U8, 1)));  // storage-only type
  CHECK_FALSE(type(load("nope", u32(0))));
  CHECK_FALSE(type(load("h", u64(0))));  // index must be u32 or i32
  CHECK_FALSE(type(buf_len("nope")));
  CHECK_FALSE(type(invocation_id(3)));
  CHECK_FALSE(type(u32(1) + i32(1)));
  CHECK_FALSE(type(u32(1) << u64(1)));
  CHECK_FALSE(type(bin(vyre::BinOp::Mod, f32(1), f32(1))));
  CHECK_FALSE(type(un(vyre::UnOp::Sqrt, u32(1))));
  CHECK_FALSE(type(select(u32(1), u32(1), u32(2))));
  CHECK_FALSE(type(select(boolean(true), u32(1), i32(2))));
  CHECK_FALSE(type(cast(Type::U32, u32(1))));
  CHECK_FALSE(type(bitcast(Type::U64, u32(1))));
  CHECK_FALSE(type(fma(u32(1), u32(2), u32(3))));
  CHECK_FALSE(type(fma(f32(1), f64(2), f32(3))));
  CHECK_FALSE(type(atomic(vyre::AtomicOp::Add, "r", u32(0), u32(1))));   // read-only
  CHECK_FALSE(type(atomic(vyre::AtomicOp::Add, "o", u32(0), f32(1))));   // f32 element
  CHECK_FALSE(type(atomic(vyre::AtomicOp::Min, "c", u32(0), u64(1))));   // no u64 min
  CHECK_FALSE(type(atomic(vyre::AtomicOp::Add, "c", u32(0), u32(1))));   // value type
  CHECK_FALSE(type(atomic(vyre::AtomicOp::CompareExchange, "c", u32(0), u64(1))));  // arity
  CHECK_FALSE(type(ballot(u32(1))));
  CHECK_FALSE(type(shuffle(boolean(true), u32(0))));
  CHECK_FALSE(type(shuffle(u32(1), i32(0))));
  CHECK_FALSE(type(reduce(vyre::ReduceOp::And, f32(1))));
  auto bad = u32(1) + u32(2);
  bad.args.pop_back();
  CHECK_FALSE(type(bad));
  auto lit_with_args = u32(1);
  lit_with_args.args.push_back(u32(2));
  CHECK_FALSE(type(lit_with_args));
}

TEST_CASE("scope: a newer binding hides an older one until its scope closes") {
  vyre::Scope s;
  s.open();
  s.declare("a", Type::U32);
  s.open();
  s.declare("a", Type::F32);
  s.declare("b", Type::I64);
  REQUIRE(s.find("a") != nullptr);
  CHECK(*s.find("a") == Type::F32);
  std::vector<Type> forgotten;
  s.close([&](Type t) { forgotten.push_back(t); });
  CHECK(forgotten == std::vector<Type>{Type::I64, Type::F32});  // newest first
  REQUIRE(s.find("a") != nullptr);
  CHECK(*s.find("a") == Type::U32);
  CHECK(s.find("b") == nullptr);
  s.declare("a", Type::Bool);  // declared again in the same scope: hides the first
  CHECK(*s.find("a") == Type::Bool);
  CHECK(s.size() == 2);
  s.close();
  CHECK(s.find("a") == nullptr);
  CHECK(s.size() == 0);
  s.close();  // nothing open: no effect
  CHECK(s.size() == 0);
}

TEST_CASE("scope: clear forgets every binding and keeps the open scopes usable") {
  vyre::Scope s;
  s.open();
  s.declare("a", Type::U32);
  s.open();
  s.declare("b", Type::F32);
  std::vector<std::string> names;
  s.clear([&](const std::string& name, Type) { names.push_back(name); });
  CHECK(names == std::vector<std::string>{"b", "a"});
  CHECK(s.find("a") == nullptr);
  s.declare("c", Type::U32);
  s.close();  // closes the inner scope, which now holds c
  CHECK(s.find("c") == nullptr);
  s.declare("d", Type::U32);
  s.close();
  CHECK(s.size() == 0);
}

TEST_CASE("buffer index: first declaration wins, unknown names are absent") {
  vyre::ProgramBuilder b;
  b.buffer("x", Access::Read, Type::U32);
  b.buffer("y", Access::Read, Type::U32);
  b.buffer("x", Access::Read, Type::F32);
  const vyre::Program p = b.build();
  const vyre::BufferIndex index(p);
  CHECK(index.position("x") == std::optional<std::size_t>(0));
  CHECK(index.position("y") == std::optional<std::size_t>(1));
  CHECK(index.find("y") == &p.buffers[1]);
  CHECK_FALSE(index.position("z"));
  CHECK(index.find("z") == nullptr);
}
