// Dispatch geometry (SPEC §3): N, grid, tail guard, and every inconsistent config rejected with
// an error that names the value and ends in a fix.
#include <doctest/doctest.h>

#include <limits>
#include <string>
#include <vector>

#include "vyre/builder.hpp"
#include "vyre/error.hpp"
#include "vyre/geometry.hpp"

namespace {

using namespace vyre::dsl;
using vyre::Access;
using vyre::Type;

vyre::Program elementwise(std::uint32_t wx = 64) {
  vyre::ProgramBuilder b;
  b.workgroup(wx);
  auto in = b.buffer("in", Access::Read, Type::U32);
  auto out = b.buffer("out", Access::Output, Type::U32, 100);
  auto i = b.let("i", invocation_id(0));
  b.store(out, i, in[i]);
  return b.build();
}

// Expect resolve_geometry to fail with `code` and a message containing `needle` and a fix.
void expect_error(const vyre::Program& p, const vyre::DispatchConfig& c,
                  const std::vector<std::uint64_t>& elements, vyre_status code,
                  const std::string& needle) {
  try {
    vyre::resolve_geometry(p, c, elements);
    FAIL("no error for: " << needle);
  } catch (const vyre::Error& e) {
    std::string what = e.what();
    CAPTURE(what);
    CHECK(e.code() == code);
    CHECK(what.find(needle) != std::string::npos);
    CHECK(what.find("Fix: ") != std::string::npos);
  }
}

}  // namespace

TEST_CASE("N defaults to the largest output, the grid covers it, the tail is guarded") {
  auto p = elementwise(64);
  auto g = vyre::resolve_geometry(p, {}, std::vector<std::uint64_t>{500, 100});
  CHECK(g.n == 100);  // the output decides, not the larger input
  CHECK(g.workgroup == std::array<std::uint32_t, 3>{64, 1, 1});
  CHECK(g.grid == std::array<std::uint32_t, 3>{2, 1, 1});
  CHECK(g.tail_guard);
  CHECK(g.workgroup_invocations() == 64);
  CHECK(g.workgroup_count() == 2);
  CHECK_FALSE(g.empty());
  CHECK(g.fixpoint_iterations == 1);
}

TEST_CASE("N falls back to the largest input, then 0") {
  vyre::ProgramBuilder b;
  b.workgroup(32);
  b.buffer("a", Access::Read, Type::U32);
  b.buffer("b", Access::Uniform, Type::U32);
  b.buffer("w", Access::Workgroup, Type::U32, 4096);
  auto p = b.build();
  auto g = vyre::resolve_geometry(p, {}, std::vector<std::uint64_t>{10, 65, 4096});
  CHECK(g.n == 65);
  CHECK(g.grid[0] == 3);
  CHECK_FALSE(g.tail_guard);  // workgroup buffer: full-workgroup mode

  vyre::Program empty;
  auto e = vyre::resolve_geometry(empty, {}, {});
  CHECK(e.n == 0);
  CHECK(e.grid[0] == 0);
  CHECK(e.empty());
}

TEST_CASE("dispatch_elements, explicit grid and overrides") {
  auto p = elementwise(64);
  vyre::DispatchConfig c;
  c.dispatch_elements = 129;
  auto g = vyre::resolve_geometry(p, c, std::vector<std::uint64_t>{1, 1});
  CHECK(g.n == 129);
  CHECK(g.grid[0] == 3);
  CHECK(g.tail_guard);

  c.grid = std::array<std::uint32_t, 3>{4, 2, 1};
  c.workgroup_override = std::array<std::uint32_t, 3>{8, 8, 2};
  c.fixpoint_iterations = 5;
  g = vyre::resolve_geometry(p, c, std::vector<std::uint64_t>{1, 1});
  CHECK(g.grid == std::array<std::uint32_t, 3>{4, 2, 1});
  CHECK(g.workgroup == std::array<std::uint32_t, 3>{8, 8, 2});
  CHECK_FALSE(g.tail_guard);  // explicit grid: the program guards itself
  CHECK(g.fixpoint_iterations == 5);
  CHECK(g.workgroup_count() == 8);
  CHECK(g.workgroup_invocations() == 128);
}

TEST_CASE("full-workgroup mode: barrier, workgroup buffer, subgroup op") {
  CHECK_FALSE(vyre::needs_full_workgroups(elementwise()));

  auto with_barrier = elementwise();
  with_barrier.body.push_back(vyre::dsl::block({vyre::dsl::barrier()}));
  CHECK(vyre::needs_full_workgroups(with_barrier));
  CHECK_FALSE(vyre::has_grid_sync(with_barrier));

  auto with_grid_sync = elementwise();
  with_grid_sync.body.push_back(vyre::dsl::grid_sync());
  CHECK(vyre::needs_full_workgroups(with_grid_sync));
  CHECK(vyre::has_grid_sync(with_grid_sync));

  auto with_subgroup = elementwise(32);
  with_subgroup.body.push_back(let("m", ballot(boolean(true))));
  CHECK(vyre::needs_full_workgroups(with_subgroup));
  CHECK(vyre::uses_subgroup_ops(with_subgroup));
  auto g = vyre::resolve_geometry(with_subgroup, {}, std::vector<std::uint64_t>{0, 100});
  CHECK_FALSE(g.tail_guard);
  CHECK(g.grid[0] == 4);

  auto with_lane = elementwise(48);
  with_lane.body.push_back(let("l", subgroup_lane()));
  CHECK_FALSE(vyre::uses_subgroup_ops(with_lane));
  CHECK_FALSE(vyre::needs_full_workgroups(with_lane));
}

TEST_CASE("inconsistent configs are clear errors") {
  auto p = elementwise(64);
  std::vector<std::uint64_t> two{1, 100};
  vyre::DispatchConfig c;

  c.workgroup_override = std::array<std::uint32_t, 3>{0, 1, 1};
  expect_error(p, c, two, VYRE_ERR_INVALID_ARGUMENT, "workgroup_override [0, 1, 1] has a zero axis");
  c.workgroup_override = std::array<std::uint32_t, 3>{64, 4, 8};
  expect_error(p, c, two, VYRE_ERR_LIMIT, "2048 invocations");
  c.workgroup_override = std::array<std::uint32_t, 3>{8, 8, 1};
  expect_error(p, c, two, VYRE_ERR_INVALID_ARGUMENT, "multi-dimensional");
  c = {};
  c.grid = std::array<std::uint32_t, 3>{1, 0, 1};
  expect_error(p, c, two, VYRE_ERR_INVALID_ARGUMENT, "grid [1, 0, 1] has a zero axis");
  c.grid = std::array<std::uint32_t, 3>{0x4000000u, 1, 1};
  expect_error(p, c, two, VYRE_ERR_LIMIT, "on axis 0");
  c = {};
  c.fixpoint_iterations = 0;
  expect_error(p, c, two, VYRE_ERR_INVALID_ARGUMENT, "fixpoint_iterations is 0");
  c = {};
  c.dispatch_elements = std::uint64_t{1} << 40;
  expect_error(p, c, two, VYRE_ERR_LIMIT, "1099511627776 elements");
  c.dispatch_elements = std::numeric_limits<std::uint32_t>::max();  // 2^26 groups * 64 > u32
  expect_error(p, c, two, VYRE_ERR_LIMIT, "more than 2^32-1");
  expect_error(p, {}, std::vector<std::uint64_t>{1}, VYRE_ERR_INVALID_ARGUMENT, "1 buffer element counts");

  auto bad_workgroup = p;
  bad_workgroup.workgroup_size = {0, 1, 1};
  expect_error(bad_workgroup, {}, two, VYRE_ERR_INVALID_ARGUMENT, "workgroup_size [0, 1, 1]");

  auto subgroup = elementwise(32);
  subgroup.body.push_back(let("r", reduce(vyre::ReduceOp::Add, u32(1))));
  c = {};
  c.workgroup_override = std::array<std::uint32_t, 3>{48, 1, 1};
  expect_error(subgroup, c, two, VYRE_ERR_INVALID_ARGUMENT, "not a multiple of 32");
}

TEST_CASE("the largest grid that fits is accepted") {
  auto p = elementwise(1);
  vyre::DispatchConfig c;
  c.dispatch_elements = std::numeric_limits<std::uint32_t>::max();
  auto g = vyre::resolve_geometry(p, c, std::vector<std::uint64_t>{0, 0});
  CHECK(g.grid[0] == std::numeric_limits<std::uint32_t>::max());
}
