// Every program of the kernel suite (bench/kernels/, K1..K13) at its small size on reference_cpu,
// checked against the host computation of the same algorithm with the tolerance the benchmark uses
// against the nvcc twin. Each case also proves it can fail: a corrupted output is rejected. The same
// programs on vulkan where a Vulkan device can be created (lavapipe in CI): each matches, or is
// refused at compile as unsupported by that device (lavapipe's subgroups are 8 wide).
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "kernels.hpp"
#include "support/build_plugins.hpp"
#include "vyre/backend.hpp"
#include "vyre/error.hpp"
#include "vyre/registry.hpp"
#include "vyre/validate.hpp"

namespace {

namespace k = vyre::bench::kernels;

vyre::Registry& registry() { return vyre::test::build_plugin_registry(); }

// Host dispatch of the case on `backend`: its outputs (read_write and output buffers, in order).
std::vector<vyre::host::ByteVector> run(const vyre::host::Backend& backend, const k::KernelCase& kc) {
  std::vector<vyre::host::Bytes> inputs;
  for (const auto& b : kc.buffers)
    if (vyre::is_host_input(b.access)) inputs.emplace_back(b.data);
  const vyre::host::Program program = backend.compile(kc.program);
  return backend.dispatch(program, inputs, kc.config());
}

// Checks case `id` on `backend_id`; false when the backend refused the program as unsupported.
bool check_case(const std::string& id, const std::string& backend_id = "reference_cpu") {
  CAPTURE(id);
  CAPTURE(backend_id);
  const k::KernelCase kc = k::make_case(id, k::Size::Small, 2, 0x5eed);
  REQUIRE(kc.block == kc.program.workgroup_size);
  std::vector<vyre::host::ByteVector> got;
  try {
    got = run(registry().backend(backend_id), kc);
  } catch (const vyre::Error& e) {
    if (backend_id == "reference_cpu" || e.code() != VYRE_ERR_UNSUPPORTED) throw;
    return false;
  }
  const auto want = k::host_outputs(kc);
  REQUIRE(got.size() == want.size());
  std::size_t o = 0;
  for (const auto& b : kc.buffers) {
    if (!b.is_output()) continue;
    const auto& actual = got[o];
    const auto& expected = want[o];
    ++o;
    const k::Comparison c = k::compare(b, expected, actual);
    INFO(b.name << ": " << c.first_failure << " (max ulp " << c.max_ulp << ", max abs " << c.max_abs << ")");
    CHECK(c.ok);
    // The check can fail: flip the top bit of the first element's last byte... of every word type.
    std::vector<std::byte> broken(actual.begin(), actual.end());
    broken[vyre::byte_size(b.element) - 1] ^= std::byte{0x40};
    CHECK_FALSE(k::compare(b, expected, broken).ok);
  }
  return true;
}

}  // namespace

TEST_CASE("kernel suite: every id builds a valid program with an explicit grid and a twin entry") {
  const auto ids = k::kernel_ids();
  CHECK(ids.size() == 12 + k::k13_functions().size());
  for (const auto& id : ids) {
    CAPTURE(id);
    const k::KernelCase kc = k::make_case(id, k::Size::Small, 2, 1);
    CHECK(kc.twin.starts_with("vyre_twin_k"));
    std::size_t bound = 0;
    for (const auto& d : kc.program.buffers) bound += d.access != vyre::Access::Workgroup;
    CHECK(bound == kc.buffers.size());
  }
  CHECK_THROWS(k::make_case("K99", k::Size::Small, 2, 1));
  CHECK_THROWS(k::make_case("K13-nope", k::Size::Small, 2, 1));
}

TEST_CASE("kernel suite on reference_cpu matches the host computation") {
  for (const auto& id : k::kernel_ids()) {
    SUBCASE(id.c_str()) { CHECK(check_case(id)); }
  }
}

TEST_CASE("kernel suite on vulkan matches the host computation, or is refused as unsupported") {
  if (const auto why = registry().probe("vulkan")) {
    MESSAGE("no Vulkan device here: " << *why);
    return;
  }
  std::vector<std::string> refused;
  std::size_t ran = 0;
  for (const auto& id : k::kernel_ids()) {
    if (check_case(id, "vulkan")) ++ran;
    else refused.push_back(id);
  }
  std::string list;
  for (const auto& id : refused) list += id + " ";
  MESSAGE(ran << " kernel cases ran on vulkan; refused as unsupported by this device: " << list);
  CHECK(ran > 0);
}
