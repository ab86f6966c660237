// Shared by the GPU tests: opening the cuda and reference_cpu plugins of this build through the
// host wrapper, skipping (exit 77, with the reason) where no GPU is usable, deterministic inputs,
// and output comparisons that print the op, inputs, expected and actual values on a mismatch.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vyre/backend.hpp"
#include "vyre/ir.hpp"

namespace vyre::cudatest {

using host::ByteVector;
using host::Bytes;

// Call from a namespace-scope initializer: returns true when the cuda plugin can create an
// instance here; otherwise prints "SKIP: <reason>" and exits 77 (NO_DEVICE) or 1 (anything else).
bool require_gpu();

// A new instance of the backend `id` from build/plugins (throws vyre::Error).
host::Backend open_backend(std::string_view id, const host::CreateOptions& options = {});
// Shared default instances (created once).
const host::Backend& cuda();
const host::Backend& reference();

// The op ids the cuda plugin declares.
const std::vector<std::string>& cuda_ops();

// A metric's value (0 when absent).
std::uint64_t metric(const host::Backend& backend, std::string_view name);

// Environment knobs for replaying a failure: integers with a default.
std::uint64_t env_u64(const char* name, std::uint64_t fallback);

// `count` elements of storage type `t`, seeded: integers uniform over their width, floats finite
// values of mixed magnitude and sign (with zeros), bools 0/1.
ByteVector random_elements(Type t, std::size_t count, std::uint64_t seed);

// Host inputs for `program`: runtime-sized inputs get `runtime_count` elements.
std::vector<ByteVector> random_inputs(const Program& program, std::size_t runtime_count, std::uint64_t seed);
std::vector<Bytes> views(const std::vector<ByteVector>& buffers);

// True when equal; otherwise prints `what`, each differing output (buffer name, first differing
// elements as typed values, index, expected and actual) and the inputs' first elements.
bool same_outputs(std::string_view what, const Program& program, const std::vector<ByteVector>& inputs,
                  const std::vector<ByteVector>& expected, const std::vector<ByteVector>& actual);

// Element `index` of a little-endian array of `t`, as typed text.
std::string element_text(Type t, const ByteVector& bytes, std::size_t index);

// Absolute path of examples/<name>.
std::string example_path(std::string_view name);

}  // namespace vyre::cudatest
