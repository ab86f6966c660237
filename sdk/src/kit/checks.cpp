// Shared dispatch checks.
#include "checks.hpp"

#include <string>

#include "plugin_state.hpp"
#include "vyre/error.hpp"

namespace vyre::kit::detail {

std::string describe(const BufferDecl& buffer, std::size_t index) {
  return "'" + buffer.name + "' (buffer " + std::to_string(index) + ", " +
         std::string(type_name(buffer.element)) + ")";
}

std::uint64_t bound_elements(const BufferDecl& buffer, std::uint64_t byte_len,
                             std::string_view role) {
  const std::uint64_t size = byte_size(buffer.element);
  // Named only on failure: this runs for every buffer of every dispatch.
  auto who = [&] { return std::string(role) + " '" + buffer.name + "'"; };
  if (byte_len % size != 0)
    fail(VYRE_ERR_INVALID_ARGUMENT,
         who() + " has " + std::to_string(byte_len) + " bytes, not a multiple of the " +
             std::string(type_name(buffer.element)) + " element size " + std::to_string(size),
         "pass whole elements");
  const std::uint64_t elements = byte_len / size;
  if (buffer.count > 0 && elements != buffer.count)
    fail(VYRE_ERR_INVALID_ARGUMENT,
         who() + " has " + std::to_string(byte_len) + " bytes but is declared with " +
             std::to_string(buffer.count) + " " + std::string(type_name(buffer.element)) +
             " elements (" + std::to_string(buffer.count * size) + " bytes)",
         "pass exactly count * element size bytes, or declare the buffer with count 0 "
         "(runtime-sized)");
  if (elements > 0xFFFFFFFFull)
    fail(VYRE_ERR_LIMIT,
         who() + " binds " + std::to_string(elements) + " elements; buffers hold fewer than 2^32",
         "split the data across several buffers or dispatches");
  return elements;
}

void check_config_supported(const DispatchConfig& config) {
  if (config.time_limit_ns && (plugin_spec().capabilities & VYRE_CAP_DEADLINE) == 0)
    fail(VYRE_ERR_UNSUPPORTED,
         "backend '" + plugin_id() + "' cannot stop work at a deadline (no VYRE_CAP_DEADLINE), so "
         "it refuses a dispatch config with a time limit",
         "dispatch without VYRE_CONFIG_HAS_TIME_LIMIT (and wait with a timeout instead), or use a "
         "backend with the deadline capability");
  if (config.fixpoint_iterations <= 1) return;
  require_declared_ops({"dispatch.fixpoint"});
}

LaunchGeometry checked_geometry(const CompiledProgram& program, const DispatchConfig& config,
                                std::span<const std::uint64_t> buffer_elements) {
  check_config_supported(config);
  return resolve_geometry(program.program(), config, buffer_elements, program.traits());
}

}  // namespace vyre::kit::detail
