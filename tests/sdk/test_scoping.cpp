// Scoping rules of the validator, pinned on tricky programs: shadowing, sibling reuse, names
// leaving their scope, loop variables, grid_sync. The expected diagnostics are the decisions the
// validator made before it moved to O(log n) name lookups (ScopedNames), checked against that
// version; ops_used, which walks the same scopes, must accept exactly the valid ones.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "vyre/builder.hpp"
#include "vyre/error.hpp"
#include "vyre/ops.hpp"
#include "vyre/validate.hpp"

namespace {

using namespace vyre::dsl;
using vyre::Access;
using vyre::Type;

// o (output u32, 64), f (output f32, 64); workgroup 64; the body is `body`.
vyre::Program program(std::vector<vyre::Node> body) {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  b.buffer("o", Access::Output, Type::U32, 64);
  b.buffer("f", Access::Output, Type::F32, 64);
  vyre::Program p = b.build();
  p.body = std::move(body);
  return p;
}

vyre::Node use(const char* name) { return store("o", u32(0), var(name)); }

// "CheckName@path" per diagnostic, in report order, separated by "; ".
std::string decisions(const vyre::Program& p) {
  std::string out;
  for (const auto& d : vyre::validate(p))
    out += (out.empty() ? "" : "; ") + std::string(vyre::check_name(d.code)) + "@" + d.path;
  return out;
}

struct ScopeCase {
  const char* what;
  vyre::Program program;
  std::string expected;  // empty: accepted
};

std::vector<ScopeCase> cases() {
  using V = std::vector<vyre::Node>;
  return {
      {"siblings may reuse a name", program({block({let("a", u32(1)), use("a")}), block({let("a", u32(2)), use("a")})}), ""},
      {"a nested scope may not shadow", program({let("a", u32(1)), block({let("a", u32(2))})}),
       "DuplicateVariable@body[1].block[0]"},
      {"a name leaves with its block", program({block({let("a", u32(1))}), use("a")}),
       "UnknownVariable@body[1].value"},
      {"then-names are not seen in else", program({if_(boolean(true), V{let("a", u32(1))}, V{use("a")})}),
       "UnknownVariable@body[0].else[0].value"},
      {"a let may not shadow its loop variable",
       program({loop("j", u32(0), u32(4), V{let("j", u32(1))})}), "DuplicateVariable@body[0].body[0]"},
      {"nested loops may not share a variable",
       program({loop("j", u32(0), u32(4), V{loop("j", u32(0), u32(4), V{})})}), "DuplicateVariable@body[0].body[0]"},
      {"a loop variable is gone after its loop, and its name free",
       program({loop("j", u32(0), u32(4), V{use("j")}), let("j", u32(1)), use("j")}), ""},
      {"a body's names are gone after the loop",
       program({loop("j", u32(0), u32(4), V{let("t", var("j"))}), use("t")}), "UnknownVariable@body[1].value"},
      {"loop variables are read-only", program({loop("j", u32(0), u32(4), V{assign("j", u32(1))})}),
       "AssignLoopVariable@body[0].body[0]"},
      {"inner scopes assign outer variables",
       program({let("a", u32(0)), if_(boolean(true), V{assign("a", u32(1))}), use("a")}), ""},
      {"a redeclared name means the newest binding",
       program({let("a", u32(1)), let("a", f32(1.0f)), use("a")}),
       "DuplicateVariable@body[1]; TypeMismatch@body[2].value"},
      {"a shadowing binding ends with its scope",
       program({let("a", u32(1)), block({let("a", f32(1.0f))}), use("a")}), "DuplicateVariable@body[1].block[0]"},
      {"nothing crosses a grid_sync", program({let("a", u32(1)), grid_sync(), use("a")}),
       "CrossesGridSync@body[2].value"},
      {"nor into a block after it", program({let("a", u32(1)), grid_sync(), block({use("a")})}),
       "CrossesGridSync@body[2].block[0].value"},
      {"a name is free again after a grid_sync",
       program({let("a", u32(1)), grid_sync(), let("a", f32(2.0f)), store("f", u32(0), var("a"))}), ""},
      {"a misplaced grid_sync keeps names in scope",
       program({let("a", u32(1)), block({grid_sync()}), use("a")}), "GridSyncPlacement@body[1].block[0]"},
      {"an unknown name used twice is reported twice", program({use("z"), block({use("z")})}),
       "UnknownVariable@body[0].value; UnknownVariable@body[1].block[0].value"},
  };
}

}  // namespace

TEST_CASE("scoping decisions are those of the linear-search validator") {
  for (const ScopeCase& c : cases()) {
    CAPTURE(std::string(c.what));
    CHECK(decisions(c.program) == c.expected);
    // ops_used walks the same scopes: it lists the valid programs' ops, and refuses the others
    // only where they are ill-typed (it does not judge scoping otherwise).
    if (c.expected.empty()) CHECK_NOTHROW(vyre::ops_used(c.program));
  }
}
