// Function-table slots: ahead-of-time bundle emission.
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "call_helpers.hpp"
#include "entry_points.hpp"
#include "errors.hpp"
#include "instance.hpp"
#include "plugin_state.hpp"
#include "vyre/abi_convert.hpp"
#include "vyre/abi_structs.hpp"
#include "vyre/fingerprint.hpp"
#include "vyre/ops.hpp"
#include "vyre/validate.hpp"
#include "vyre/wire.hpp"

namespace vyre::kit::detail {

namespace {

struct OwnedAot {
  vyre_aot_output output{};
  std::vector<AotFile> files;
  std::vector<vyre_aot_file> entries;
};

// Outputs handed out and not yet released (aot_release ignores anything else).
struct AotRegistry {
  std::mutex mutex;
  std::unordered_map<const vyre_aot_output*, std::unique_ptr<OwnedAot>> live;
};

AotRegistry* g_aot_outputs = nullptr;  // freed at unload, like the error registry

AotRegistry& aot_outputs() {
  static AotRegistry* registry = g_aot_outputs = new AotRegistry;
  return *registry;
}

__attribute__((destructor)) void free_aot_registry() {
  delete g_aot_outputs;
  g_aot_outputs = nullptr;
}

void check_file_name(const std::string& name) {
  const bool bad = name.empty() || name.front() == '/' || name == ".." ||
                   name.starts_with("../") || name.find("/../") != std::string::npos ||
                   name.ends_with("/..");
  if (!bad) return;
  fail(VYRE_ERR_INTERNAL, "aot_emit produced a file named '" + name + "'",
       "fix the plugin to name bundle files with relative '/'-separated paths without '..'");
}

AotRequest make_request(const vyre_aot_args& a) {
  if (a.wire == nullptr && a.wire_len > 0)
    fail(VYRE_ERR_INVALID_ARGUMENT, "vyre_aot_args.wire is NULL", "pass the program's wire bytes");
  if (a.weights == nullptr && a.weights_byte_len > 0)
    fail(VYRE_ERR_INVALID_ARGUMENT, "vyre_aot_args.weights is NULL with a non-zero length",
         "pass the weights, or a weights_byte_len of 0");
  AotRequest request;
  request.program = decode_wire(std::span<const std::uint8_t>(a.wire, a.wire_len));
  validate_or_throw(request.program);
  request.config = abi::from_abi(a.config);
  request.config.time_limit_ns.reset();  // a bundle has no call to time (backend_abi.h)
  require_declared_ops(ops_used(request.program, request.config));
  request.fingerprint = fingerprint(request.program);
  if (a.target != nullptr) request.target = std::string(a.target);
  request.weights = Bytes(static_cast<const std::byte*>(a.weights), a.weights_byte_len);
  return request;
}

vyre_aot_output* publish(std::vector<AotFile> files) {
  auto owned = std::make_unique<OwnedAot>();
  owned->files = std::move(files);
  for (const AotFile& file : owned->files) {
    check_file_name(file.name);
    owned->entries.push_back(
        vyre_aot_file{sizeof(vyre_aot_file), file.name.c_str(), file.data.data(), file.data.size()});
  }
  owned->output.struct_size = sizeof(vyre_aot_output);
  owned->output.files = owned->entries.data();
  owned->output.file_count = owned->entries.size();
  vyre_aot_output* out = &owned->output;
  AotRegistry& registry = aot_outputs();
  std::lock_guard lock(registry.mutex);
  registry.live.emplace(out, std::move(owned));
  return out;
}

}  // namespace

vyre_status aot_emit(vyre_backend* backend, const vyre_aot_args* args, vyre_aot_output** out,
                     vyre_error** error) {
  return guard(error, [&] {
    require_out_pointer(out, "aot_emit");
    *out = nullptr;
    std::shared_ptr<Instance> instance;
    if (backend != nullptr) instance = find_instance(backend);
    const vyre_aot_args a = abi::read_struct(args, "vyre_aot_args");
    const PluginSpec& spec = plugin_spec();
    if (!spec.aot_emit)
      fail(VYRE_ERR_UNSUPPORTED, "backend '" + spec.id + "' cannot emit AOT bundles",
           "use a backend with the AOT capability (vyre backends lists them)");
    const AotRequest request = make_request(a);
    *out = publish(spec.aot_emit(instance ? &instance->backend() : nullptr, request));
  });
}

void aot_release(vyre_aot_output* output) {
  if (output == nullptr) return;
  std::unique_ptr<OwnedAot> owned;
  AotRegistry& registry = aot_outputs();
  std::lock_guard lock(registry.mutex);
  auto it = registry.live.find(output);
  if (it == registry.live.end()) return;
  owned = std::move(it->second);
  registry.live.erase(it);
}

}  // namespace vyre::kit::detail
