// A deliberately broken backend for conform's tests (id broken_ref). It runs every program on the
// reference plugin and then breaks two ops the way real backends break:
//   - bin.sat_add.u32: a saturated result comes back 10 below the maximum;
//   - un.exp.f32: results greater than 1 come back 10 ULP too large.
// Built into the test-only directory build/test_plugins, never build/plugins.
#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "vyre/backend.hpp"
#include "vyre/ops.hpp"
#include "vyre/plugin_kit.hpp"

namespace {

enum class Breakage { None, SatAddU32, ExpF32 };

class BrokenProgram : public vyre::kit::CompiledProgram {
 public:
  BrokenProgram(vyre::Program program, std::string fingerprint, vyre::host::Program inner, Breakage breakage)
      : CompiledProgram(std::move(program), std::move(fingerprint)), inner(std::move(inner)), breakage(breakage) {}
  vyre::host::Program inner;
  Breakage breakage;
};

Breakage breakage_of(const vyre::Program& program) {
  const auto used = vyre::ops_used(program);
  if (std::find(used.begin(), used.end(), "bin.sat_add.u32") != used.end()) return Breakage::SatAddU32;
  if (std::find(used.begin(), used.end(), "un.exp.f32") != used.end()) return Breakage::ExpF32;
  return Breakage::None;
}

void break_word(Breakage breakage, vyre::Type element, std::byte* p) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, p, 4);
  if (breakage == Breakage::SatAddU32 && element == vyre::Type::U32 && bits == 0xFFFFFFFFu) bits -= 10;
  float value = 0;
  std::memcpy(&value, &bits, 4);
  if (breakage == Breakage::ExpF32 && element == vyre::Type::F32 && value > 1.0f && value < 1e30f) bits += 10;
  std::memcpy(p, &bits, 4);
}

class BrokenBackend : public vyre::kit::BackendImpl {
 public:
  explicit BrokenBackend(vyre::host::Backend reference) : reference_(std::move(reference)) {}

  void device_profile(vyre_device_profile& out) override { out = reference_.device_profile(); }

  std::shared_ptr<vyre::kit::CompiledProgram> compile(vyre::Program program, std::string fingerprint) override {
    auto inner = reference_.compile(program);
    const Breakage breakage = breakage_of(program);
    return std::make_shared<BrokenProgram>(std::move(program), std::move(fingerprint), std::move(inner), breakage);
  }

  void dispatch(const vyre::kit::HostDispatch& d) override {
    const auto& compiled = static_cast<const BrokenProgram&>(*d.program);
    auto outputs = reference_.dispatch(compiled.inner, d.inputs, d.config);
    const auto& indices = compiled.output_buffers();
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      const vyre::BufferDecl& decl = compiled.program().buffers[indices[i]];
      if (vyre::byte_size(decl.element) == 4 && compiled.breakage != Breakage::None)
        for (std::size_t at = 0; at + 4 <= outputs[i].size(); at += 4)
          break_word(compiled.breakage, decl.element, outputs[i].data() + at);
      const std::uint64_t begin = decl.output_byte_range ? decl.output_byte_range->begin : 0;
      std::memcpy(d.outputs[i].dst.data(), outputs[i].data() + (d.outputs[i].buffer_offset - begin),
                  d.outputs[i].dst.size());
    }
  }

 private:
  vyre::host::Backend reference_;
};

std::unique_ptr<vyre::kit::BackendImpl> create_broken(const vyre::CreateOptions&) {
  void* lib = ::dlopen(VYRE_BROKEN_REFERENCE_PATH, RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    vyre::fail(VYRE_ERR_NO_DEVICE, std::string("broken_ref cannot load the reference plugin: ") + ::dlerror(),
               "build vyre_reference_cpu first");
  std::shared_ptr<void> keep(lib, [](void* h) { ::dlclose(h); });
  auto reg = reinterpret_cast<vyre_backend_register_fn>(::dlsym(lib, VYRE_REGISTER_SYMBOL));
  vyre_host_info host{};
  host.struct_size = sizeof host;
  host.abi_major = VYRE_ABI_VERSION_MAJOR;
  host.abi_minor = VYRE_ABI_VERSION_MINOR;
  vyre_backend_info info{};
  info.struct_size = sizeof info;
  if (!reg || reg(&host, &info) != VYRE_OK)
    vyre::fail(VYRE_ERR_NO_DEVICE, "broken_ref cannot register the reference plugin", "rebuild it");
  return std::make_unique<BrokenBackend>(vyre::host::Backend::create(info.fns, keep, {}, "reference_cpu"));
}

const vyre::kit::PluginSpec& spec() {
  static const vyre::kit::PluginSpec s = [] {
    vyre::kit::PluginSpec p;
    p.id = "broken_ref";
    p.version = "0.0.1-broken";
    p.rank = 990;
    p.capabilities = VYRE_CAP_DISPATCH | VYRE_CAP_ASYNC | VYRE_CAP_TIMED | VYRE_CAP_F16 | VYRE_CAP_BF16 |
                     VYRE_CAP_F64 | VYRE_CAP_INT64 | VYRE_CAP_SUBGROUP | VYRE_CAP_GRID_SYNC | VYRE_CAP_ATOMICS;
    for (const auto& op : vyre::op_catalog()) p.op_ids.push_back(op.id);
    p.create = create_broken;
    return p;
  }();
  return s;
}

}  // namespace

extern "C" VYRE_PLUGIN_EXPORT vyre_status vyre_backend_register(const vyre_host_info* host, vyre_backend_info* info) {
  return vyre::kit::register_backend(spec(), host, info);
}
