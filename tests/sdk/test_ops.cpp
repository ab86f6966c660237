// The op catalog: family sizes, every id findable and decodable, signatures and SPEC §5
// tolerances, agreement of the *_defined functions with the catalog, and ops_used on samples.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "vyre/builder.hpp"
#include "vyre/error.hpp"
#include "vyre/fingerprint.hpp"
#include "vyre/ops.hpp"

namespace {

std::vector<std::string> split(const std::string& id) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    auto dot = id.find('.', start);
    parts.push_back(id.substr(start, dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

std::map<vyre::OpFamily, int> family_counts() {
  std::map<vyre::OpFamily, int> counts;
  for (const auto& op : vyre::op_catalog()) ++counts[op.family];
  return counts;
}

const vyre::OpInfo& op(std::string_view id) {
  const vyre::OpInfo* info = vyre::find_op(id);
  REQUIRE_MESSAGE(info != nullptr, id);
  return *info;
}

}  // namespace

TEST_CASE("family sizes follow SPEC §4 and SEMANTICS") {
  auto counts = family_counts();
  using F = vyre::OpFamily;
  // integers: all 27 binary ops; floats: add sub mul div min max + 6 comparisons; bool: 7.
  CHECK(counts[F::Bin] == 4 * 27 + 2 * 12 + 7);
  // integers: 9 unary ops; floats: 13 basic + 13 transcendental; bool: not, logical_not.
  CHECK(counts[F::Un] == 4 * 9 + 2 * 26 + 2);
  CHECK(counts[F::Cast] == 7 * 6);
  CHECK(counts[F::Bitcast] == 6 + 6);
  CHECK(counts[F::Fma] == 2);
  CHECK(counts[F::Select] == 7);
  CHECK(counts[F::Load] == 13);
  CHECK(counts[F::Store] == 13);
  CHECK(counts[F::Atomic] == 2 * (2 * 8 + 3));
  CHECK(counts[F::Subgroup] == 1 + 6 + (4 * 6 + 3 * 4));
  CHECK(counts[F::Builtin] == 7);
  CHECK(counts[F::NodeOp] == 8);
  CHECK(counts[F::Mem] == 1);
  CHECK(counts[F::Dispatch] == 1);
  CHECK(vyre::op_catalog().size() == 416);
}

TEST_CASE("every id is unique, lower case, findable, and decodes to its fields") {
  std::set<std::string> seen;
  for (const auto& info : vyre::op_catalog()) {
    CAPTURE(info.id);
    CHECK(seen.insert(info.id).second);
    for (char c : info.id) CHECK(((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_'));
    CHECK(vyre::find_op(info.id) == &info);
    auto parts = split(info.id);
    CHECK(parts[0] == vyre::op_family_name(info.family));
    switch (info.family) {
      case vyre::OpFamily::Bin:
        REQUIRE(parts.size() == 3);
        CHECK(vyre::parse_bin_op(parts[1]) == info.bin_op);
        CHECK(vyre::parse_type(parts[2]) == info.type);
        break;
      case vyre::OpFamily::Un:
        REQUIRE(parts.size() == 3);
        CHECK(vyre::parse_un_op(parts[1]) == info.un_op);
        CHECK(vyre::parse_type(parts[2]) == info.type);
        break;
      case vyre::OpFamily::Cast:
      case vyre::OpFamily::Bitcast:
        REQUIRE(parts.size() == 3);
        CHECK(vyre::parse_type(parts[1]) == info.from);
        CHECK(vyre::parse_type(parts[2]) == info.type);
        break;
      case vyre::OpFamily::Atomic:
        REQUIRE(parts.size() >= 3);
        CHECK(vyre::parse_atomic_op(parts[1]) == info.atomic_op);
        CHECK(vyre::parse_type(parts[2]) == info.type);
        CHECK(info.workgroup_atomic == (parts.size() == 4 && parts[3] == "workgroup"));
        break;
      case vyre::OpFamily::Builtin:
        REQUIRE(parts.size() == 2);
        CHECK(vyre::parse_builtin(parts[1]) == info.builtin);
        break;
      default: break;
    }
  }
  CHECK(vyre::find_op("bin.add") == nullptr);
  CHECK(vyre::find_op("bin.mod.f32") == nullptr);
  CHECK(vyre::find_op("cast.u32.u32") == nullptr);
  CHECK(vyre::find_op("") == nullptr);
}

TEST_CASE("signatures") {
  CHECK(op("bin.add.u32").signature() == "(u32, u32) -> u32");
  CHECK(op("bin.shl.u64").signature() == "(u64, u32) -> u64");
  CHECK(op("bin.rotr.i32").signature() == "(i32, u32) -> i32");
  CHECK(op("bin.lt.f64").signature() == "(f64, f64) -> bool");
  CHECK(op("bin.abs_diff.i64").signature() == "(i64, i64) -> u64");
  CHECK(op("bin.logical_and.u32").signature() == "(u32, u32) -> bool");
  CHECK(op("bin.xor.bool").signature() == "(bool, bool) -> bool");
  CHECK(op("un.popcount.i64").signature() == "(i64) -> u32");
  CHECK(op("un.is_nan.f32").signature() == "(f32) -> bool");
  CHECK(op("un.logical_not.i32").signature() == "(i32) -> bool");
  CHECK(op("un.not.bool").signature() == "(bool) -> bool");
  CHECK(op("cast.f64.i32").signature() == "(f64) -> i32");
  CHECK(op("bitcast.f32.u32").signature() == "(f32) -> u32");
  CHECK(op("fma.f64").signature() == "(f64, f64, f64) -> f64");
  CHECK(op("select.i64").signature() == "(bool, i64, i64) -> i64");
  CHECK(op("load.bf16").signature() == "(u32) -> f32");
  CHECK(op("load.i8").signature() == "(u32) -> i32");
  CHECK(op("store.u16").signature() == "(u32, u32)");
  CHECK(op("atomic.add.u64").signature() == "(u32, u64) -> u64");
  CHECK(op("atomic.compare_exchange.i32.workgroup").signature() == "(u32, i32, i32) -> i32");
  CHECK(op("subgroup.ballot").signature() == "(bool) -> u32");
  CHECK(op("subgroup.shuffle.f64").signature() == "(f64, u32) -> f64");
  CHECK(op("subgroup.reduce.max.f32").signature() == "(f32) -> f32");
  CHECK(op("builtin.buf_len").signature() == "() -> u32");
  CHECK(op("node.loop").signature() == "(u32, u32)");
  CHECK(op("node.grid_sync").grid_sync_node);
  CHECK(op("node.grid_sync").node == vyre::NodeKind::Barrier);
  CHECK_FALSE(op("node.barrier").grid_sync_node);
  CHECK(op("mem.workgroup").signature() == "()");
}

TEST_CASE("which ops exist on which type") {
  for (const char* id : {"bin.mod.i64", "bin.mul_high.u64", "bin.sat_mul.i32", "bin.min.f32",
                         "un.sin.f64", "un.round.f32", "un.reverse_bits.u64", "un.sign.u32",
                         "bin.logical_or.bool", "atomic.min.i32", "atomic.max.u32.workgroup",
                         "atomic.exchange.u64.workgroup", "subgroup.reduce.xor.i64",
                         "cast.bool.f64", "cast.f32.bool", "bitcast.i64.f64"})
    CHECK_MESSAGE(vyre::find_op(id) != nullptr, id);
  for (const char* id : {"bin.mod.f32", "bin.shl.f64", "bin.and.f32", "bin.logical_and.f32",
                         "bin.add.bool", "bin.lt.bool", "un.sqrt.u32", "un.neg.bool",
                         "un.popcount.f32", "un.logical_not.f32", "atomic.min.u64", "atomic.add.i64",
                         "atomic.add.f32", "subgroup.reduce.and.f32", "subgroup.shuffle.bool",
                         "bitcast.u32.u64", "bitcast.bool.u32", "bitcast.u32.bool",
                         "cast.f32.f32", "fma.u32", "load.u128", "select.u8", "un.sin.f16"})
    CHECK_MESSAGE(vyre::find_op(id) == nullptr, id);
}

TEST_CASE("defined functions agree with the catalog") {
  using vyre::Type;
  for (Type t : vyre::kStorageTypes) {
    std::string tn(vyre::type_name(t));
    for (int o = 0; o < vyre::kBinOpCount; ++o) {
      auto bop = static_cast<vyre::BinOp>(o);
      std::string id = "bin." + std::string(vyre::bin_op_name(bop)) + "." + tn;
      CHECK_MESSAGE(vyre::bin_op_defined(bop, t) == (vyre::find_op(id) != nullptr), id);
    }
    for (int o = 0; o < vyre::kUnOpCount; ++o) {
      auto uop = static_cast<vyre::UnOp>(o);
      std::string id = "un." + std::string(vyre::un_op_name(uop)) + "." + tn;
      CHECK_MESSAGE(vyre::un_op_defined(uop, t) == (vyre::find_op(id) != nullptr), id);
    }
    for (int o = 0; o < vyre::kReduceOpCount; ++o) {
      auto rop = static_cast<vyre::ReduceOp>(o);
      std::string id = "subgroup.reduce." + std::string(vyre::reduce_op_name(rop)) + "." + tn;
      CHECK_MESSAGE(vyre::reduce_defined(rop, t) == (vyre::find_op(id) != nullptr), id);
    }
    for (int o = 0; o < vyre::kAtomicOpCount; ++o) {
      auto aop = static_cast<vyre::AtomicOp>(o);
      std::string id = "atomic." + std::string(vyre::atomic_op_name(aop)) + "." + tn;
      CHECK_MESSAGE(vyre::atomic_defined(aop, t, false) == (vyre::find_op(id) != nullptr), id);
      CHECK(vyre::atomic_defined(aop, t, true) == (vyre::find_op(id + ".workgroup") != nullptr));
    }
    CHECK(vyre::shuffle_defined(t) == (vyre::find_op("subgroup.shuffle." + tn) != nullptr));
    for (Type to : vyre::kStorageTypes) {
      std::string suffix = tn + "." + std::string(vyre::type_name(to));
      CHECK(vyre::cast_defined(t, to) == (vyre::find_op("cast." + suffix) != nullptr));
      CHECK(vyre::bitcast_defined(t, to) == (vyre::find_op("bitcast." + suffix) != nullptr));
    }
  }
  // Out-of-range enum values (as a corrupted decoder could produce) are never defined.
  CHECK_FALSE(vyre::bin_op_defined(static_cast<vyre::BinOp>(200), Type::U32));
  CHECK_FALSE(vyre::un_op_defined(static_cast<vyre::UnOp>(200), Type::F32));
  CHECK_FALSE(vyre::bin_op_defined(vyre::BinOp::Add, static_cast<Type>(99)));
}

TEST_CASE("tolerances follow SPEC §5") {
  const std::map<std::string, std::uint32_t> ulps = {
      {"exp", 2}, {"exp2", 2}, {"log", 2},  {"log2", 2}, {"inverse_sqrt", 2},
      {"sin", 4}, {"cos", 4},  {"asin", 4}, {"acos", 4}, {"sinh", 4},
      {"cosh", 4}, {"tanh", 4}, {"tan", 5}, {"atan", 5}};
  int inexact = 0;
  for (const auto& info : vyre::op_catalog()) {
    CAPTURE(info.id);
    std::uint32_t expected = 0;
    if (info.family == vyre::OpFamily::Un) {
      auto it = ulps.find(std::string(vyre::un_op_name(info.un_op)));
      if (it != ulps.end()) expected = it->second;
    }
    CHECK(info.tolerance.max_ulp == expected);
    CHECK(info.tolerance.exact() == (expected == 0));
    if (expected != 0) ++inexact;
  }
  CHECK(inexact == 14 * 2);  // each on f32 and f64
  CHECK(op("un.sqrt.f32").tolerance.exact());
  CHECK(op("fma.f64").tolerance.exact());
  CHECK(op("subgroup.reduce.add.f32").tolerance.exact());
}

TEST_CASE("catalog hash is the SHA-256 of the id|signature|ulp lines") {
  const std::string& hash = vyre::catalog_hash();
  CHECK(hash.size() == 64);
  CHECK(hash.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(&hash == &vyre::catalog_hash());
  std::string lines;
  for (const auto& info : vyre::op_catalog())
    lines += info.id + "|" + info.signature() + "|" + std::to_string(info.tolerance.max_ulp) + "\n";
  CHECK(lines.find("un.sin.f32|(f32) -> f32|4\n") != std::string::npos);
  CHECK(hash == vyre::to_hex(vyre::sha256(std::string_view(lines))));
}

// ---- ops_used ---------------------------------------------------------------------------------

TEST_CASE("ops_used on an elementwise program") {
  using namespace vyre::dsl;
  using vyre::Access;
  using vyre::Type;
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto x = b.buffer("x", Access::Read, Type::U32);
  auto h = b.buffer("h", Access::Read, Type::F16);
  auto out = b.buffer("out", Access::Output, Type::BF16, 64);
  auto i = b.let("i", invocation_id(0));
  b.if_(lt(i, x.len()), [&] {
    b.store(out, i, h[i] * cast(Type::F32, x[i] >> u32(3)));
  });
  auto used = vyre::ops_used(b.build());
  std::vector<std::string> expected = {
      "bin.lt.u32",   "bin.mul.f32",  "bin.shr.u32", "builtin.buf_len", "builtin.invocation_id",
      "cast.u32.f32", "load.f16",     "load.u32",    "node.if",         "node.let",
      "store.bf16"};
  CHECK(used == expected);
  vyre::DispatchConfig config;
  CHECK(vyre::ops_used(b.build(), config) == expected);
  config.fixpoint_iterations = 3;
  auto with_fixpoint = vyre::ops_used(b.build(), config);
  CHECK(std::count(with_fixpoint.begin(), with_fixpoint.end(), "dispatch.fixpoint") == 1);
  CHECK(with_fixpoint.size() == expected.size() + 1);
}

TEST_CASE("ops_used on atomics, subgroups, barriers and grid_sync") {
  using namespace vyre::dsl;
  using vyre::Access;
  using vyre::Type;
  vyre::ProgramBuilder b;
  b.workgroup(32);
  auto counts = b.buffer("counts", Access::ReadWrite, Type::U64);
  auto scratch = b.buffer("scratch", Access::Workgroup, Type::I32, 32);
  auto out = b.buffer("out", Access::Output, Type::F64, 32);
  auto lane = b.let("lane", subgroup_lane());
  b.emit(let("old", atomic(vyre::AtomicOp::Max, "scratch", lane, i32(1))));
  b.barrier();
  b.emit(let("seen", compare_exchange("counts", u32(0), u64(0), u64(1))));
  b.emit(let("mask", ballot(eq(var("seen"), u64(0)))));
  b.grid_sync();
  b.loop("k", u32(0), u32(2), [&](vyre::Expr k) {
    b.store(out, k, reduce(vyre::ReduceOp::Add, shuffle(f64(1.5), k)));
  });
  b.ret();
  (void)counts;
  (void)scratch;
  auto used = vyre::ops_used(b.build());
  std::vector<std::string> expected = {"atomic.compare_exchange.u64", "atomic.max.i32.workgroup",
                                       "bin.eq.u64", "builtin.subgroup_lane", "mem.workgroup",
                                       "node.barrier", "node.grid_sync", "node.let", "node.loop",
                                       "node.return", "store.f64", "subgroup.ballot",
                                       "subgroup.reduce.add.f64", "subgroup.shuffle.f64"};
  CHECK(used == expected);
  for (const auto& id : used) CHECK_MESSAGE(vyre::find_op(id) != nullptr, id);
}

TEST_CASE("ops_used: a variable's type is taken from its Let, shadowing by scope") {
  using namespace vyre::dsl;
  vyre::ProgramBuilder b;
  auto out = b.buffer("out", vyre::Access::Output, vyre::Type::I64, 4);
  b.block([&] { b.let("v", f32(1.0f)); b.store(out, u32(0), cast(vyre::Type::I64, un(vyre::UnOp::Exp, var("v")))); });
  b.block([&] { b.let("v", i64(2)); b.store(out, u32(1), var("v") / i64(3)); });
  auto used = vyre::ops_used(b.build());
  CHECK(std::count(used.begin(), used.end(), "un.exp.f32") == 1);
  CHECK(std::count(used.begin(), used.end(), "cast.f32.i64") == 1);
  CHECK(std::count(used.begin(), used.end(), "bin.div.i64") == 1);
  CHECK(std::count(used.begin(), used.end(), "node.block") == 1);
}

TEST_CASE("ops_used rejects an ill-typed program with a clear error") {
  using namespace vyre::dsl;
  vyre::ProgramBuilder b;
  auto out = b.buffer("out", vyre::Access::Output, vyre::Type::U32, 4);
  b.store(out, u32(0), u32(1) + f32(2.0f));
  try {
    vyre::ops_used(b.build());
    FAIL("no error");
  } catch (const vyre::Error& e) {
    CHECK(e.code() == VYRE_ERR_INVALID_PROGRAM);
    CHECK(std::string(e.what()).find("Fix:") != std::string::npos);
  }
  vyre::Program bad_arity;
  bad_arity.body.push_back(vyre::dsl::node(vyre::NodeKind::Let));
  CHECK_THROWS_AS(vyre::ops_used(bad_arity), vyre::Error);
}
