#include <optional>

#include "harness.hpp"
#include "vyre/backend.hpp"
#include "vyre/error.hpp"
#include "vyre/json.hpp"
#include "vyre/types.hpp"
#include "vyre/validate.hpp"
#include "vyre/wire.hpp"

namespace vyre::fuzz {

namespace {

constexpr std::uint64_t kMaxBufferBytes = 64 << 10;  // all declared buffers together
constexpr std::uint32_t kMaxWorkgroupProduct = 256;
constexpr std::uint32_t kRuntimeElements = 64;      // the length of runtime-sized inputs

bool has_loop(const std::vector<Node>& body) {
  for (const Node& n : body)
    if (n.kind == NodeKind::Loop || has_loop(n.body) || has_loop(n.else_body)) return true;
  return false;
}

// Programs whose run is bounded and small: no loops (a loop may run 2^32 times), small buffers,
// small workgroups. Others are only compiled.
bool small_enough_to_run(const Program& p) {
  if (has_loop(p.body)) return false;
  const auto& wg = p.workgroup_size;
  if (std::uint64_t{wg[0]} * wg[1] * wg[2] > kMaxWorkgroupProduct) return false;
  std::uint64_t bytes = 0;
  for (const BufferDecl& b : p.buffers)
    bytes += std::uint64_t{b.count == 0 ? kRuntimeElements : b.count} * byte_size(b.element);
  return bytes <= kMaxBufferBytes;
}

std::optional<Program> decode(Input bytes) {
  try {
    if (looks_like_wire(bytes)) return decode_wire(bytes);
    return from_json(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  } catch (const Error&) {
    return std::nullopt;
  }
}

// Input bytes for every host input: the fuzz input repeated (so the fuzzer steers the values).
std::vector<host::ByteVector> inputs_for(const Program& p, Input seed) {
  std::vector<host::ByteVector> inputs;
  std::size_t at = 0;
  for (std::size_t index : p.input_indices()) {
    const BufferDecl& b = p.buffers[index];
    host::ByteVector data(std::size_t{b.count == 0 ? kRuntimeElements : b.count} * byte_size(b.element));
    for (std::byte& x : data) x = seed.empty() ? std::byte{0} : std::byte{seed[at++ % seed.size()]};
    inputs.push_back(std::move(data));
  }
  return inputs;
}

}  // namespace

bool reference_dispatch(Input bytes) {
  const std::optional<Program> program = decode(bytes);
  if (!program || !validate(*program).empty()) return false;
  const host::Backend& backend = reference_backend();
  try {
    const host::Program compiled = backend.compile(*program);
    if (!small_enough_to_run(*program)) return true;
    const std::vector<host::ByteVector> inputs = inputs_for(*program, bytes);
    std::vector<host::Bytes> views(inputs.begin(), inputs.end());
    const std::vector<host::ByteVector> outputs = backend.dispatch(compiled, views);
    require(outputs.size() == program->output_indices().size(), "dispatch", "wrong number of outputs");
  } catch (const Error& e) {
    // Run-time errors the semantics define (divergent barrier, inactive subgroup lanes), limits,
    // and geometry a default config cannot express; never INTERNAL.
    require(e.code() != VYRE_ERR_INTERNAL, "dispatch", std::string("an internal error: ") + e.what());
    return false;
  }
  return true;
}

}  // namespace vyre::fuzz
