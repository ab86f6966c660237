// Soundness of the zero-start analysis of workgroup memory (optimize/workgroup_init.hpp) against
// the semantics: random programs that store to, barrier on and read from a workgroup buffer run on
// reference_cpu twice, as written and with the buffer filled with garbage before their first
// statement (one invocation stores a poison word to every element, then a barrier). Where the
// analysis says the zero start is unobservable, both runs must give the same outputs: that is what
// leaving out the zeroing means. The programs where it says "observable" and the runs differ show
// that the poison is seen whenever a read can reach an element no store reached. A failure prints
// the program as JSON.
#include <doctest/doctest.h>

#include <array>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "reference_backend.hpp"
#include "optimize/workgroup_init.hpp"
#include "vyre/backend.hpp"
#include "vyre/builder.hpp"
#include "vyre/json.hpp"
#include "vyre/validate.hpp"

namespace {

using namespace vyre::dsl;
using vyre::Access;
using vyre::Expr;
using vyre::Type;
namespace opt = vyre::cuda::optimize;

constexpr std::uint32_t kStatements = 8;
constexpr std::uint32_t kPoison = 0xDEADBEEFu;

const vyre::host::Backend& reference() { return vyre::cudatest::reference_backend(); }

struct Shape {
  std::array<std::uint32_t, 3> workgroup;
  std::uint32_t count;  // elements of the workgroup buffer
};

class Generator {
 public:
  explicit Generator(std::uint32_t seed) : rng_(seed) {}
  std::uint32_t pick(std::uint32_t n) { return static_cast<std::uint32_t>(rng_() % n); }

  // Linear local id of a (possibly 2-D) workgroup, as a let the statements use.
  Expr lid() { return var("lid"); }

  // Store indices that cover the buffer for some shapes and not for others.
  Expr store_index(std::uint32_t count) {
    switch (pick(9)) {
      case 0: return lid();
      case 1: return lid() / u32(32);
      case 2: return lid() % u32(count);
      case 3: return lid() * u32(2);
      case 4: return lid() / u32(2);
      case 5: return subgroup_lane();
      case 6: return u32(count - 1) - lid();
      case 7: return (lid() + u32(pick(5))) % u32(count + pick(2));
      default: return u32(pick(count + 1));
    }
  }

  Expr condition() {
    switch (pick(6)) {
      case 0: return eq(subgroup_lane(), u32(0));
      case 1: return lt(lid(), u32(pick(80)));
      case 2: return eq(lid() % u32(2), u32(0));
      case 3: return eq(subgroup_lane(), u32(31));
      default: return ne(lid(), u32(0xFFFFFFFFu));  // always true
    }
  }

 private:
  std::mt19937 rng_;
};

// The random program's statements, with `poison` first when asked.
vyre::Program random_program(Generator& g, const Shape& shape, std::uint32_t outputs, bool poison) {
  vyre::ProgramBuilder b;
  b.workgroup(shape.workgroup[0], shape.workgroup[1], shape.workgroup[2]);
  auto in = b.buffer("in", Access::Read, Type::U32);
  auto out = b.buffer("out", Access::Output, Type::U32, outputs);
  auto tile = b.buffer("tile", Access::Workgroup, Type::U32, shape.count);
  (void)in;
  auto lid = b.let("lid", local_id(0) + local_id(1) * u32(shape.workgroup[0]));
  const std::uint32_t invocations = shape.workgroup[0] * shape.workgroup[1];
  auto slot = b.let("slot", workgroup_id(0) * u32(invocations) + lid);
  if (poison) {
    b.if_(eq(lid, u32(0)), [&] {
      b.loop("p", u32(0), u32(shape.count), [&](Expr p) { b.store(tile, p, u32(kPoison)); });
    });
    b.barrier();
  }
  const std::uint32_t per = outputs / (kStatements * 2);  // output words per read statement
  if (g.pick(2) == 0) {  // often a store that may cover the buffer and a barrier first
    b.if_(g.condition(), [&] { b.store(tile, g.store_index(shape.count), lid * u32(3)); });
    if (g.pick(4) != 0) b.barrier();
  }
  for (std::uint32_t j = 0; j < kStatements; ++j) {
    switch (g.pick(6)) {
      case 0:
      case 1:
        if (g.pick(2) == 0) {
          b.store(tile, g.store_index(shape.count), lid + u32(100 * j + 1));
        } else {
          b.if_(g.condition(), [&] { b.store(tile, g.store_index(shape.count), lid + u32(100 * j + 1)); });
        }
        break;
      case 2: b.barrier(); break;
      case 3:
        b.let("old" + std::to_string(j), atomic(vyre::AtomicOp::Add, "tile", lid % u32(shape.count), u32(1)));
        break;
      default: {
        // A read of an element, written to this invocation's output slot of statement j.
        Expr index = g.pick(2) == 0 ? lid % u32(shape.count) : u32(g.pick(shape.count));
        b.store(out, u32(j * per) + slot, tile[index] + u32(1));
        break;
      }
    }
  }
  (void)slot;
  (void)out;
  return b.build();
}

}  // namespace

TEST_CASE("where the zero start is unobservable, garbage in workgroup memory changes no output") {
  const std::array<Shape, 5> shapes{{{{64, 1, 1}, 2}, {{256, 1, 1}, 8}, {{32, 1, 1}, 32}, {{8, 4, 1}, 16},
                                     {{64, 1, 1}, 64}}};
  std::size_t unobserved = 0, observed_and_seen = 0;
  for (std::uint32_t seed = 1; seed <= 400; ++seed) {
    const Shape& shape = shapes[seed % shapes.size()];
    const std::uint32_t grid = 2;
    const std::uint32_t invocations = shape.workgroup[0] * shape.workgroup[1];
    const std::uint32_t outputs = kStatements * 2 * invocations * grid;
    Generator g1(seed), g2(seed);
    const vyre::Program program = random_program(g1, shape, outputs, false);
    const vyre::Program poisoned = random_program(g2, shape, outputs, true);
    INFO("seed " << seed << ": " << vyre::to_json(program));
    vyre::validate_or_throw(program);
    vyre::validate_or_throw(poisoned);
    std::vector<const vyre::Node*> phase;
    for (const vyre::Node& n : program.body) phase.push_back(&n);
    const bool claim = opt::zero_start_unobserved(program, phase, shape.workgroup).at(2);

    std::vector<std::uint32_t> in(16, 7);
    vyre::DispatchConfig config;
    config.grid = std::array<std::uint32_t, 3>{grid, 1, 1};
    const std::vector<vyre::host::Bytes> inputs{std::as_bytes(std::span(in))};
    const auto plain = reference().dispatch(reference().compile(program), inputs, config);
    const auto garbage = reference().dispatch(reference().compile(poisoned), inputs, config);
    const bool same = plain.at(0) == garbage.at(0);
    if (claim) {
      CHECK(same);
      ++unobserved;
    } else if (!same) {
      ++observed_and_seen;
    }
  }
  MESSAGE(unobserved << " programs proved, " << observed_and_seen << " others whose outputs saw the garbage");
  CHECK(unobserved > 40);
  CHECK(observed_and_seen > 40);
}
