// How the host, the verifier supervisor and the verifier child talk (vyre/plugin_verify.hpp).
//
//   host ──spawn──▶ supervisor (the host's own executable, same argv and environment)
//                      └─fork─▶ verifier child: loads the plugin as the registry does
//
// Nothing in argv or the environment marks the supervisor: it recognises itself by an inherited
// control socket (at a random descriptor number) whose pending bytes start with kRequestMagic.
// The host writes the whole request before spawning:
//
//   vyre-plugin-verify/2 <nonce hex> <register|create> <report fd> <plugin path hex>\n
//
// The verifier child writes its report on <report fd> (a pipe to the host), one line per event,
// fields separated by tabs:
//
//   hello                                   the child runs
//   stage <load|register|create|unload>     about to enter that stage
//   summary <id> <version> <rank> <caps> <abi_major> <abi_minor> <op_count>
//   rejected <code> <reason>                the registry's validation refused the plugin
//   create <ok (device)|failed: message>    the outcome of create (a failure is not a crash)
//   done <nonce hex>                        every stage finished (the nonce proves who wrote it)
//
// The supervisor writes on the control socket, which the child never holds, once the child is
// gone and everything it started has been killed:
//
//   child exit <status> | child signal <number> | child lost
//   leftover <count>                        processes still running after the child ended
//   stopped                                 the host asked it to stop (timeout); it killed all
//
// The host asks the supervisor to stop by shutting down its end of the control socket (which is
// also what happens when the host dies).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace vyre::registry_detail {

inline constexpr std::string_view kRequestMagic = "vyre-plugin-verify/2 ";
inline constexpr std::string_view kVerifyModeRegister = "register";
inline constexpr std::string_view kVerifyModeCreate = "create";
inline constexpr std::size_t kMaxRequestBytes = 1u << 16;

struct VerifyRequest {
  std::string nonce;  // hex
  std::string mode;   // kVerifyModeRegister or kVerifyModeCreate
  int report_fd = -1;
  std::string plugin;
};

std::string encode_request(const VerifyRequest& request);
// Parses one request line (without its newline); false when it is malformed.
bool decode_request(std::string_view line, VerifyRequest& out);

// A field of a report line: tabs, newlines and other control characters become spaces, and the
// text is clipped to `max` bytes.
inline std::string report_field(std::string_view text, std::size_t max = 2000) {
  std::string out(text.substr(0, max));
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return out;
}

// Runs before main() in every program that links the registry (verify_supervisor.cpp): when this
// process is a verifier supervisor it verifies and exits; otherwise it returns at once.
void run_supervisor_if_requested() noexcept;

// The verifier child (verify_child.cpp): load `request.plugin` as the registry does, report each
// stage on request.report_fd, and return the exit status. Never returns by exception.
int run_verify_child(const VerifyRequest& request) noexcept;

}  // namespace vyre::registry_detail
