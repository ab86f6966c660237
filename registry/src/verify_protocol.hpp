// The report a plugin-verifier child writes to its parent: one line per event, fields separated by
// tabs, on file descriptor kVerifyReportFd.
//
//   hello                                   the child runs in verifier mode
//   stage <load|register|create>            about to enter that stage
//   summary <id> <version> <rank> <caps> <abi_major> <abi_minor> <op_count>
//   rejected <reason>                       the registry's validation refused the plugin
//   create <ok (device)|failed: message>    the outcome of create (a failure is not a crash)
//   done                                    every stage finished
#pragma once

#include <string>
#include <string_view>

namespace vyre::registry_detail {

inline constexpr int kVerifyReportFd = 3;
inline constexpr const char* kVerifyChildEnv = "VYRE_PLUGIN_VERIFY_CHILD";
inline constexpr std::string_view kVerifyModeRegister = "register";
inline constexpr std::string_view kVerifyModeCreate = "create";

// A field of a report line: tabs, newlines and other control characters become spaces, and the
// text is clipped to `max` bytes.
inline std::string report_field(std::string_view text, std::size_t max = 2000) {
  std::string out(text.substr(0, max));
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return out;
}

// Entry of the child mode (verify_child.cpp): load `plugin` as the registry does, report each
// stage on kVerifyReportFd, and return the exit status. Never returns by exception.
int run_verify_child(const char* plugin, std::string_view mode) noexcept;

}  // namespace vyre::registry_detail
