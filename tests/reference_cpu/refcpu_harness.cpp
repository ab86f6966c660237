#include "refcpu_harness.hpp"

#include <dlfcn.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <optional>
#include <limits>
#include <memory>
#include <stdexcept>

#include "vyre/ops.hpp"
#include "vyre/types.hpp"

namespace refcpu_test {

namespace {

struct Plugin {
  std::shared_ptr<void> library;
  vyre_backend_info info{};
};

const Plugin& plugin() {
  static const Plugin loaded = [] {
    std::string path = std::string(VYRE_PLUGIN_BUILD_DIR) + "/libvyre_reference_cpu.so";
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) throw std::runtime_error(std::string("dlopen failed: ") + dlerror());
    auto reg = reinterpret_cast<vyre_backend_register_fn>(dlsym(handle, VYRE_REGISTER_SYMBOL));
    if (reg == nullptr) throw std::runtime_error("the plugin lacks vyre_backend_register");
    Plugin p;
    p.library = std::shared_ptr<void>(handle, [](void*) {});  // stays loaded for the test run
    vyre_host_info host{};
    host.struct_size = sizeof host;
    host.abi_major = VYRE_ABI_VERSION_MAJOR;
    host.abi_minor = VYRE_ABI_VERSION_MINOR;
    host.host_name = "vyre reference_cpu tests";
    p.info.struct_size = sizeof p.info;
    if (reg(&host, &p.info) != VYRE_OK) throw std::runtime_error("vyre_backend_register failed");
    return p;
  }();
  return loaded;
}

vyre::Type storage_for_result(vyre::Type t) { return t; }

vyre::Program elementwise(vyre::Type in_a, std::optional<vyre::Type> in_b, vyre::Type out,
                          const std::function<vyre::Expr(vyre::Expr, vyre::Expr)>& make, std::size_t n) {
  using namespace vyre::dsl;
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto a = b.buffer("a", vyre::Access::Read, in_a);
  std::optional<vyre::Buf> bb;
  if (in_b) bb = b.buffer("b", vyre::Access::Read, *in_b);
  auto o = b.buffer("out", vyre::Access::Output, storage_for_result(out), static_cast<std::uint32_t>(n));
  auto i = b.let("i", invocation_id(0));
  b.store(o, i, make(a[i], bb ? (*bb)[i] : vyre::Expr{}));
  return b.build();
}

}  // namespace

const vyre_backend_info& plugin_info() { return plugin().info; }

vyre::host::Backend make_backend(const vyre::CreateOptions& options) {
  return vyre::host::Backend::create(plugin().info.fns, plugin().library, options, "reference_cpu");
}

const vyre::host::Backend& backend() {
  static const vyre::host::Backend shared = make_backend();
  return shared;
}

std::vector<vyre::host::ByteVector> run(const vyre::Program& program,
                                        const std::vector<vyre::host::ByteVector>& inputs,
                                        const vyre::DispatchConfig& config) {
  std::vector<vyre::host::Bytes> views(inputs.begin(), inputs.end());
  return backend().dispatch(backend().compile(program), views, config);
}

vyre_status run_status(const vyre::Program& program, const std::vector<vyre::host::ByteVector>& inputs,
                       const vyre::DispatchConfig& config, std::string* message) {
  try {
    run(program, inputs, config);
    return VYRE_OK;
  } catch (const vyre::Error& e) {
    if (message != nullptr) *message = e.what();
    return e.code();
  }
}

vyre::host::ByteVector bytes_of_bits(vyre::Type t, const std::vector<std::uint64_t>& bits) {
  std::uint32_t size = vyre::byte_size(t);
  vyre::host::ByteVector out(bits.size() * size);
  for (std::size_t i = 0; i < bits.size(); ++i) std::memcpy(out.data() + i * size, &bits[i], size);  // little-endian
  return out;
}

std::vector<std::uint64_t> bits_of_bytes(vyre::Type t, const vyre::host::ByteVector& bytes) {
  std::uint32_t size = vyre::byte_size(t);
  std::vector<std::uint64_t> out(bytes.size() / size, 0);
  for (std::size_t i = 0; i < out.size(); ++i) std::memcpy(&out[i], bytes.data() + i * size, size);
  return out;
}

std::vector<std::uint64_t> eval_binary(vyre::BinOp op, vyre::Type t, const std::vector<std::uint64_t>& a,
                                       const std::vector<std::uint64_t>& b) {
  vyre::Type rhs = vyre::is_shift(op) ? vyre::Type::U32 : t;
  vyre::Type result = vyre::bin_result_type(op, t);
  auto program = elementwise(t, rhs, result, [&](vyre::Expr x, vyre::Expr y) { return vyre::dsl::bin(op, x, y); },
                             a.size());
  auto out = run(program, {bytes_of_bits(t, a), bytes_of_bits(rhs, b)});
  return bits_of_bytes(result, out.at(0));
}

std::vector<std::uint64_t> eval_unary(vyre::UnOp op, vyre::Type t, const std::vector<std::uint64_t>& a) {
  vyre::Type result = vyre::un_result_type(op, t);
  auto program = elementwise(t, std::nullopt, result, [&](vyre::Expr x, vyre::Expr) { return vyre::dsl::un(op, x); },
                             a.size());
  auto out = run(program, {bytes_of_bits(t, a)});
  return bits_of_bytes(result, out.at(0));
}

std::vector<std::uint64_t> eval_cast(vyre::Type from, vyre::Type to, const std::vector<std::uint64_t>& a,
                                     bool bitcast) {
  auto program = elementwise(from, std::nullopt, to, [&](vyre::Expr x, vyre::Expr) {
    return bitcast ? vyre::dsl::bitcast(to, x) : vyre::dsl::cast(to, x);
  }, a.size());
  auto out = run(program, {bytes_of_bits(from, a)});
  return bits_of_bytes(to, out.at(0));
}

namespace {
template <class I>
std::uint64_t ordered_distance(I a, I b) {
  // Map sign-magnitude to a monotonic two's complement scale.
  using S = std::make_signed_t<I>;
  constexpr I sign = I{1} << (sizeof(I) * 8 - 1);
  auto key = [&](I x) -> __int128 { return (x & sign) ? -static_cast<__int128>(static_cast<S>(x & ~sign)) : static_cast<__int128>(x); };
  __int128 d = key(a) - key(b);
  return static_cast<std::uint64_t>(d < 0 ? -d : d);
}
}  // namespace

std::uint64_t ulp_distance_f32(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return (std::isnan(a) && std::isnan(b)) ? 0 : std::numeric_limits<std::uint64_t>::max();
  return ordered_distance(std::bit_cast<std::uint32_t>(a), std::bit_cast<std::uint32_t>(b));
}

std::uint64_t ulp_distance_f64(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return (std::isnan(a) && std::isnan(b)) ? 0 : std::numeric_limits<std::uint64_t>::max();
  return ordered_distance(std::bit_cast<std::uint64_t>(a), std::bit_cast<std::uint64_t>(b));
}

}  // namespace refcpu_test
