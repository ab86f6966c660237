// Why a plugin file was not loaded: one stable code per cause (RejectedPlugin::code), beside the
// one-line reason. Hosts and tests match codes, never the prose. Defined once, below.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

// X(code, meaning)
#define VYRE_PLUGIN_REJECTIONS(X)                                                                  \
  X(load_failed, "the file could not be loaded as a shared library (dlopen's reason follows)")     \
  X(no_entry_point, "the library does not export vyre_backend_register")                          \
  X(register_failed, "vyre_backend_register returned an error (the plugin's reason follows)")    \
  X(exception, "vyre_backend_register let a C++ exception escape")                                \
  X(abi_major, "the plugin was built for another ABI major version")                              \
  X(struct_size, "a struct the plugin filled is smaller than ABI 1.0 allows")                     \
  X(null_slot, "the function table, or a slot its struct_size covers, is NULL")                   \
  X(bad_id, "the id is not 1 to 64 characters of [a-z0-9_]")                                      \
  X(bad_op_list, "the op id list is malformed (NULL entries, or a count no catalog has)")         \
  X(unknown_op, "the plugin declares op ids this host's catalog does not have")                   \
  X(invalid_plugin, "verification: the plugin failed in a way no other code names")               \
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
