// Function-table slots: errors, instances, device profile, programs, metrics.
#include <cstring>
#include <string>

#include "call_helpers.hpp"
#include "entry_points.hpp"
#include "errors.hpp"
#include "instance.hpp"
#include "plugin_state.hpp"
#include "vyre/abi_structs.hpp"
#include "vyre/fingerprint.hpp"
#include "vyre/ops.hpp"
#include "vyre/validate.hpp"
#include "vyre/wire.hpp"

namespace vyre::kit::detail {

namespace {

constexpr std::uint32_t kKnownCreateFlags = VYRE_CREATE_REVERSE_WORKGROUPS;

CreateOptions to_create_options(const vyre_create_options* options) {
  CreateOptions out;
  if (options == nullptr) return out;
  const vyre_create_options o = abi::read_struct(options, "vyre_create_options");
  if ((o.flags & ~kKnownCreateFlags) != 0)
    fail(VYRE_ERR_INVALID_ARGUMENT,
         "vyre_create_options.flags has unknown bits 0x" + std::to_string(o.flags & ~kKnownCreateFlags),
         "set only VYRE_CREATE_* flags of backend_abi.h");
  if (o.device_ordinal < -1)
    fail(VYRE_ERR_INVALID_ARGUMENT,
         "vyre_create_options.device_ordinal is " + std::to_string(o.device_ordinal),
         "pass -1 for the default device or a device index >= 0");
  if (o.device_ordinal >= 0) out.device_ordinal = o.device_ordinal;
  out.reverse_workgroups = (o.flags & VYRE_CREATE_REVERSE_WORKGROUPS) != 0;
  out.worker_threads = o.worker_threads;
  out.memory_budget_bytes = o.memory_budget_bytes;
  return out;
}


// Write the first `count` metrics into the caller's array (strided by its first element).
void write_metrics(const std::vector<Counter>& metrics, vyre_metric* out, std::size_t capacity) {
  const std::size_t n = std::min(capacity, metrics.size());
  if (n == 0) return;
  abi::check_out_struct(out, "metrics_snapshot: out[0]");
  const std::size_t stride = abi::struct_size_of(out);
  const std::size_t written = std::min(stride, sizeof(vyre_metric));
  auto* base = reinterpret_cast<unsigned char*>(out);
  for (std::size_t i = 0; i < n; ++i) {
    vyre_metric m{written, metrics[i].name, metrics[i].value};
    std::memcpy(base + i * stride, &m, written);
  }
}

}  // namespace

void error_release(vyre_error* error) { release_error(error); }

vyre_status create(const vyre_create_options* options, vyre_backend** out, vyre_error** error) {
  return guard(error, [&] {
    require_out_pointer(out, "create");
    *out = nullptr;
    const CreateOptions create_options = to_create_options(options);
    const PluginSpec& spec = plugin_spec();
    if (!spec.create)
      fail(VYRE_ERR_UNSUPPORTED, "backend '" + spec.id + "' cannot create instances",
           "use another backend");
    std::unique_ptr<BackendImpl> backend = spec.create(create_options);
    if (!backend)
      fail(VYRE_ERR_INTERNAL, "backend '" + spec.id + "' create returned no instance",
           "fix the plugin's create to return an instance or throw vyre::Error");
    *out = to_handle<vyre_backend>(add_instance(std::make_shared<Instance>(std::move(backend))));
  });
}

void destroy(vyre_backend* backend) {
  try {
    take_instance(backend).reset();
  } catch (...) {
    kit::log(VYRE_LOG_ERROR, "backend '" + plugin_id() + "': destroy failed while releasing handles");
  }
}

vyre_status device_profile(vyre_backend* backend, vyre_device_profile* out, vyre_error** error) {
  return guard(error, [&] {
    std::shared_ptr<Instance> instance = find_instance(backend);
    abi::check_out_struct(out, "vyre_device_profile");
    vyre_device_profile full{};
    full.struct_size = sizeof full;
    instance->backend().device_profile(full);
    abi::write_out_struct(full, out);
  });
}

vyre_status program_compile(vyre_backend* backend, const uint8_t* wire, size_t wire_len,
                            vyre_program** out, vyre_error** error) {
  return guard(error, [&] {
    std::shared_ptr<Instance> instance = find_instance(backend);
    require_out_pointer(out, "program_compile");
    *out = nullptr;
    if (wire == nullptr && wire_len > 0)
      fail(VYRE_ERR_INVALID_ARGUMENT, "program_compile: wire is NULL", "pass the program's wire bytes");
    Program program = decode_wire(std::span<const std::uint8_t>(wire, wire_len));
    validate_or_throw(program);
    require_declared_ops(ops_used(program));
    std::string print = fingerprint(program);
    std::shared_ptr<CompiledProgram> compiled =
        instance->backend().compile(std::move(program), std::move(print));
    if (!compiled)
      fail(VYRE_ERR_INTERNAL, "backend '" + plugin_id() + "' compile returned no program",
           "fix the plugin's compile to return a program or throw vyre::Error");
    *out = to_handle<vyre_program>(instance->programs.insert(std::move(compiled)));
  });
}

vyre_status program_release(vyre_backend* backend, vyre_program* program, vyre_error** error) {
  return guard(error, [&] {
    std::shared_ptr<Instance> instance = find_instance(backend);
    instance->programs.take(from_handle(program));
  });
}

vyre_status metrics_snapshot(vyre_backend* backend, vyre_metric* out, size_t capacity,
                             size_t* count, vyre_error** error) {
  return guard(error, [&] {
    std::shared_ptr<Instance> instance = find_instance(backend);
    require_out_pointer(count, "metrics_snapshot");
    if (out == nullptr && capacity > 0)
      fail(VYRE_ERR_INVALID_ARGUMENT, "metrics_snapshot: out is NULL with capacity > 0",
           "pass an array of `capacity` vyre_metric, or capacity 0 to ask for the count");
    std::vector<Counter> metrics = instance->backend().metrics();
    metrics.push_back({"pipeline_output_cache_hits", instance->cache_hits.load()});
    metrics.push_back({"pipeline_output_cache_misses", instance->cache_misses.load()});
    write_metrics(metrics, out, capacity);
    *count = metrics.size();
  });
}

vyre_status metrics_reset(vyre_backend* backend, vyre_error** error) {
  return guard(error, [&] {
    std::shared_ptr<Instance> instance = find_instance(backend);
    instance->backend().metrics_reset();
    instance->cache_hits = 0;
    instance->cache_misses = 0;
  });
}

}  // namespace vyre::kit::detail
