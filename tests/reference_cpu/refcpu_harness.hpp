// Test harness for the reference CPU plugin: loads libvyre_reference_cpu.so from the build tree
// (dlopen + vyre_backend_register), creates instances through the host wrapper, and converts
// between typed values and buffer bytes.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "vyre/backend.hpp"
#include "vyre/builder.hpp"
#include "vyre/ir.hpp"

namespace refcpu_test {

// The plugin's registration info (the library stays loaded for the whole test run).
const vyre_backend_info& plugin_info();

// A fresh instance (default: the machine's worker count, forward order).
vyre::host::Backend make_backend(const vyre::CreateOptions& options = {});
// One shared default instance.
const vyre::host::Backend& backend();

// Dispatch configs: an explicit grid of workgroups; a dispatch element count.
inline vyre::DispatchConfig grid(std::uint32_t x, std::uint32_t y = 1, std::uint32_t z = 1) {
  vyre::DispatchConfig c;
  c.grid = std::array<std::uint32_t, 3>{x, y, z};
  return c;
}
inline vyre::DispatchConfig elements(std::uint64_t n) {
  vyre::DispatchConfig c;
  c.dispatch_elements = n;
  return c;
}

// Compile and run on the shared instance.
std::vector<vyre::host::ByteVector> run(const vyre::Program& program,
                                        const std::vector<vyre::host::ByteVector>& inputs,
                                        const vyre::DispatchConfig& config = {});
// The error code a dispatch fails with (VYRE_OK when it succeeds).
vyre_status run_status(const vyre::Program& program, const std::vector<vyre::host::ByteVector>& inputs,
                       const vyre::DispatchConfig& config = {}, std::string* message = nullptr);

template <class T>
vyre::host::ByteVector bytes_of(const std::vector<T>& values) {
  vyre::host::ByteVector out(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

template <class T>
std::vector<T> values_of(const vyre::host::ByteVector& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

// Bits (zero-extended) of buffer elements of storage type `t` <-> bytes.
vyre::host::ByteVector bytes_of_bits(vyre::Type t, const std::vector<std::uint64_t>& bits);
std::vector<std::uint64_t> bits_of_bytes(vyre::Type t, const vyre::host::ByteVector& bytes);

inline std::uint32_t f32_bits(float v) { return std::bit_cast<std::uint32_t>(v); }
inline std::uint64_t f64_bits(double v) { return std::bit_cast<std::uint64_t>(v); }
inline float f32_of(std::uint64_t bits) { return std::bit_cast<float>(static_cast<std::uint32_t>(bits)); }
inline double f64_of(std::uint64_t bits) { return std::bit_cast<double>(bits); }

// out[i] = op(a[i], b[i]) over element-wise inputs of the operator's types; returns the stored bits
// of each result (bools as 0/1 words, floats canonicalised by the store).
std::vector<std::uint64_t> eval_binary(vyre::BinOp op, vyre::Type t, const std::vector<std::uint64_t>& a,
                                       const std::vector<std::uint64_t>& b);
std::vector<std::uint64_t> eval_unary(vyre::UnOp op, vyre::Type t, const std::vector<std::uint64_t>& a);
std::vector<std::uint64_t> eval_cast(vyre::Type from, vyre::Type to, const std::vector<std::uint64_t>& a,
                                     bool bitcast = false);

// Distance between two floats on the ordered-bit scale (0 when bit-identical, huge across NaN).
std::uint64_t ulp_distance_f32(float a, float b);
std::uint64_t ulp_distance_f64(double a, double b);

}  // namespace refcpu_test
