// Why a plugin file was not loaded: one stable code per cause (RejectedPlugin::code), beside the
// one-line reason. Hosts and tests match codes, never the prose. Defined once, below.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

// X(code, meaning)
#define VYRE_PLUGIN_REJECTIONS(X)                                                                  \
  X(invalid_plugin, "the loader refused what the plugin registered")                              \
  X(duplicate_id, "another plugin file already registered this id")                               \
  X(crashed, "verification: the plugin killed its process (a signal)")                             \
  X(timed_out, "verification: no verdict within the timeout; everything it started was killed")   \
  X(exited, "verification: the plugin ended its process before the verifier finished")             \
  X(forged_report, "verification: the report claims success but the verifier did not write it")   \
  X(left_processes, "verification: it left processes running after it finished (they were killed)") \
  X(verify_failed, "verification could not run (the verifier could not be started)")              \
  X(changed_while_loading, "the file changed between hashing and loading")

namespace vyre {

enum class PluginRejection : std::uint8_t {
#define VYRE_REJECTION_ENUM(code, meaning) code,
  VYRE_PLUGIN_REJECTIONS(VYRE_REJECTION_ENUM)
#undef VYRE_REJECTION_ENUM
};

// "duplicate_id", ...: the stable name (also what `vyre backends` prints).
std::string_view plugin_rejection_name(PluginRejection code);
std::string_view plugin_rejection_meaning(PluginRejection code);
std::optional<PluginRejection> parse_plugin_rejection(std::string_view name);

}  // namespace vyre
