// Names of every IR enum round-trip through their parsers; errors end in "Fix: ..."; program
// queries follow SPEC §2's input/output order.
#include <doctest/doctest.h>

#include <filesystem>
#include <ios>
#include <new>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>

#include "vyre/builder.hpp"
#include "vyre/error.hpp"
#include "vyre/ir.hpp"
#include "vyre/ops.hpp"
#include "vyre/types.hpp"

namespace {

template <typename Enum, typename NameFn, typename ParseFn>
void check_round_trip(int count, NameFn name_fn, ParseFn parse_fn) {
  std::set<std::string> seen;
  for (int i = 0; i < count; ++i) {
    auto value = static_cast<Enum>(i);
    std::string name(name_fn(value));
    CAPTURE(name);
    CHECK(name != "?");
    CHECK(seen.insert(name).second);
    auto parsed = parse_fn(name);
    REQUIRE(parsed.has_value());
    CHECK(*parsed == value);
  }
  CHECK(name_fn(static_cast<Enum>(count)) == "?");
  CHECK_FALSE(parse_fn("no_such_name").has_value());
  CHECK_FALSE(parse_fn("").has_value());
}

}  // namespace

TEST_CASE("every enum name round-trips through its parser") {
  check_round_trip<vyre::Type>(vyre::kTypeCount, vyre::type_name, vyre::parse_type);
  check_round_trip<vyre::BinOp>(vyre::kBinOpCount, vyre::bin_op_name, vyre::parse_bin_op);
  check_round_trip<vyre::UnOp>(vyre::kUnOpCount, vyre::un_op_name, vyre::parse_un_op);
  check_round_trip<vyre::AtomicOp>(vyre::kAtomicOpCount, vyre::atomic_op_name,
                                   vyre::parse_atomic_op);
  check_round_trip<vyre::ReduceOp>(vyre::kReduceOpCount, vyre::reduce_op_name,
                                   vyre::parse_reduce_op);
  check_round_trip<vyre::Access>(vyre::kAccessCount, vyre::access_name, vyre::parse_access);
  check_round_trip<vyre::BarrierKind>(2, vyre::barrier_name, vyre::parse_barrier);
  check_round_trip<vyre::NodeKind>(vyre::kNodeKindCount, vyre::node_kind_name,
                                   vyre::parse_node_kind);
  check_round_trip<vyre::Builtin>(7, vyre::builtin_name, vyre::parse_builtin);
}

TEST_CASE("names used in op ids are the SPEC spellings") {
  CHECK(vyre::type_name(vyre::Type::BF16) == "bf16");
  CHECK(vyre::type_name(vyre::Type::Bool) == "bool");
  CHECK(vyre::bin_op_name(vyre::BinOp::AbsDiff) == "abs_diff");
  CHECK(vyre::bin_op_name(vyre::BinOp::LogicalOr) == "logical_or");
  CHECK(vyre::un_op_name(vyre::UnOp::InverseSqrt) == "inverse_sqrt");
  CHECK(vyre::un_op_name(vyre::UnOp::ReverseBits) == "reverse_bits");
  CHECK(vyre::un_op_name(vyre::UnOp::Tanh) == "tanh");
  CHECK(vyre::atomic_op_name(vyre::AtomicOp::CompareExchange) == "compare_exchange");
  CHECK(vyre::access_name(vyre::Access::ReadWrite) == "read_write");
  CHECK(vyre::barrier_name(vyre::BarrierKind::GridSync) == "grid_sync");
  CHECK(vyre::builtin_name(vyre::Builtin::BufLen) == "buf_len");
  CHECK(vyre::op_family_name(vyre::OpFamily::Dispatch) == "dispatch");
  CHECK(vyre::op_family_name(vyre::OpFamily::NodeOp) == "node");
  CHECK(vyre::expr_kind_name(vyre::ExprKind::SubgroupShuffle) == "shuffle");
}

TEST_CASE("Error::make composes problem and fix") {
  auto e = vyre::Error::make(VYRE_ERR_DECODE, "bad byte at offset 3", "re-encode the program.");
  CHECK(e.code() == VYRE_ERR_DECODE);
  CHECK(std::string(e.what()) == "bad byte at offset 3. Fix: re-encode the program.");
  auto f = vyre::Error::make(VYRE_ERR_IO, "cannot read x.", "check the path");
  CHECK(std::string(f.what()) == "cannot read x. Fix: check the path.");
}

TEST_CASE("fail throws a vyre::Error with the code") {
  try {
    vyre::fail(VYRE_ERR_LIMIT, "too big", "make it smaller");
    FAIL("fail returned");
  } catch (const vyre::Error& e) {
    CHECK(e.code() == VYRE_ERR_LIMIT);
    CHECK(std::string(e.what()).ends_with("Fix: make it smaller."));
  }
}

TEST_CASE("status names are stable") {
  CHECK(vyre::status_name(VYRE_OK) == "ok");
  CHECK(vyre::status_name(VYRE_ERR_INVALID_ARGUMENT) == "invalid_argument");
  CHECK(vyre::status_name(VYRE_ERR_DECODE) == "decode");
  CHECK(vyre::status_name(VYRE_ERR_OUT_OF_MEMORY) == "out_of_memory");
  CHECK(vyre::status_name(VYRE_ERR_INTERNAL) == "internal");
  CHECK(vyre::status_name(9999) == "unknown");
}

TEST_CASE("program input and output order follows SPEC") {
  vyre::ProgramBuilder b;
  b.buffer("r", vyre::Access::Read, vyre::Type::U32);
  b.buffer("o", vyre::Access::Output, vyre::Type::U32, 4);
  b.buffer("w", vyre::Access::Workgroup, vyre::Type::U32, 4);
  b.buffer("rw", vyre::Access::ReadWrite, vyre::Type::U32);
  b.buffer("u", vyre::Access::Uniform, vyre::Type::U32);
  vyre::Program p = b.build();
  CHECK(p.input_indices() == std::vector<std::size_t>{0, 3, 4});
  CHECK(p.output_indices() == std::vector<std::size_t>{1, 3});
  REQUIRE(p.find_buffer("w") != nullptr);
  CHECK(p.find_buffer("w")->access == vyre::Access::Workgroup);
  CHECK(p.find_buffer("rw")->binding == 3);
  CHECK(p.find_buffer("nope") == nullptr);
}

TEST_CASE("a copied ProgramBuilder appends to its own program") {
  using namespace vyre::dsl;
  vyre::ProgramBuilder a;
  a.let("x", u32(1));
  vyre::ProgramBuilder b = a;
  b.let("y", u32(2));
  vyre::ProgramBuilder c = std::move(b);
  c.ret();
  CHECK(a.build().body.size() == 1);
  CHECK(c.build().body.size() == 3);
  a = c;
  a.ret();
  CHECK(a.build().body.size() == 4);
  CHECK(c.build().body.size() == 3);
}

TEST_CASE("child names used by JSON keys and validator paths") {
  using namespace vyre::dsl;
  auto sel = select(boolean(true), u32(1), u32(2));
  CHECK(vyre::expr_operand_name(sel, 0) == "select");
  CHECK(vyre::expr_operand_name(sel, 2) == "b");
  auto cas = compare_exchange("b", u32(0), u32(1), u32(2));
  CHECK(vyre::expr_operand_name(cas, 0) == "index");
  CHECK(vyre::expr_operand_name(cas, 1) == "value");
  CHECK(vyre::expr_operand_name(cas, 2) == "expected");
  CHECK(vyre::expr_operand_name(fma(f32(1), f32(2), f32(3)), 1) == "fma[1]");
  CHECK(vyre::expr_operand_name(shuffle(u32(1), u32(2)), 1) == "lane");
  auto odd = u32(1) + u32(2);
  odd.args.push_back(u32(3));
  CHECK(vyre::expr_operand_name(odd, 2) == "args[2]");
  CHECK(vyre::node_expr_name(vyre::NodeKind::Store, 0) == "index");
  CHECK(vyre::node_expr_name(vyre::NodeKind::Loop, 1) == "to");
  CHECK(vyre::node_expr_name(vyre::NodeKind::If, 0) == "if");
  CHECK(vyre::node_expr_name(vyre::NodeKind::Return, 0) == "exprs[0]");
  CHECK(vyre::node_body_name(vyre::NodeKind::If, true) == "else");
  CHECK(vyre::node_body_name(vyre::NodeKind::Block) == "block");
}

TEST_CASE("the tools' outermost catch turns every exception into a stable code with a Fix") {
  const auto as_error = [](auto&& thrower) {
    try {
      thrower();
    } catch (...) {
      return vyre::current_exception_as_error();
    }
    return vyre::Error(VYRE_OK, "");
  };
  const auto oom = as_error([] { throw std::bad_alloc(); });
  CHECK(oom.code() == VYRE_ERR_OUT_OF_MEMORY);
  CHECK(std::string(oom.what()).find("Fix:") != std::string::npos);
  const auto io = as_error([] { throw std::ios_base::failure("basic_filebuf::underflow error reading the file"); });
  CHECK(io.code() == VYRE_ERR_IO);
  CHECK(std::string(io.what()).find("basic_filebuf::underflow") != std::string::npos);
  CHECK(std::string(io.what()).find("Fix:") != std::string::npos);
  const auto fs_error = as_error([] {
    throw std::filesystem::filesystem_error("cannot rename", std::make_error_code(std::errc::permission_denied));
  });
  CHECK(fs_error.code() == VYRE_ERR_IO);
  CHECK(std::string(fs_error.what()).find("Fix:") != std::string::npos);
  CHECK(as_error([] { throw std::runtime_error("odd"); }).code() == VYRE_ERR_INTERNAL);
  CHECK(as_error([] { throw 42; }).code() == VYRE_ERR_INTERNAL);
  const auto kept = as_error([] { vyre::fail(VYRE_ERR_LIMIT, "too big", "shrink it"); });
  CHECK(kept.code() == VYRE_ERR_LIMIT);
  CHECK(std::string(kept.what()) == "too big. Fix: shrink it.");
}
