// Test plugins that misbehave without crashing, for the host's output and exit guards
// (docs/RELIABILITY.md, red team 2026-11-24). UNRULY_KIND picks:
//   noisy           registers and runs nothing, but every string it hands the host is hostile: log
//                   lines with terminal escapes, a carriage return, a forged newline and one of
//                   8 MiB; a version and a device name with escapes; an error message with them
//   bad_id          registers an id made of terminal escapes (rejected; the reason shows it)
//   exit0_register  vyre_backend_register calls exit(0)
//   quick_exit_register  vyre_backend_register calls quick_exit(0)
//   exit0_create    registers; create calls exit(0)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "vyre/plugin_kit.hpp"

#define UNRULY_IS(kind) (std::strcmp(UNRULY_KIND, kind) == 0)

namespace {

// ESC [ 2 J clears the screen; ESC ] 0 ; ... BEL sets the terminal title; 0x9b is an 8-bit CSI.
constexpr const char* kEscapes = "\x1b[2J\x1b]0;pwned\x07\r\xc2\x9b" "31m\xe2\x80\xae";

class NoisyBackend final : public vyre::kit::BackendImpl {
 public:
  void device_profile(vyre_device_profile& out) override {
    out.kind = VYRE_DEVICE_KIND_CPU;
    std::snprintf(out.name, sizeof out.name, "dev%s", kEscapes);
    std::strcpy(out.target, "cpu");
    out.max_threads_per_workgroup = 1024;
  }
  std::shared_ptr<vyre::kit::CompiledProgram> compile(vyre::Program, std::string) override {
    vyre::fail(VYRE_ERR_UNSUPPORTED, std::string("nothing compiles here") + kEscapes, "use another backend");
  }
  void dispatch(const vyre::kit::HostDispatch&) override {
    vyre::fail(VYRE_ERR_UNSUPPORTED, "the unruly test backend runs nothing", "use another backend");
  }
};

std::unique_ptr<vyre::kit::BackendImpl> create_backend(const vyre::CreateOptions&) {
  if (UNRULY_IS("exit0_create")) std::exit(0);
  return std::make_unique<NoisyBackend>();
}

const vyre::kit::PluginSpec& spec() {
  static const vyre::kit::PluginSpec s = [] {
    vyre::kit::PluginSpec p;
    p.id = std::string("u_") + UNRULY_KIND;
    p.version = UNRULY_IS("noisy") ? std::string("1.0") + kEscapes : std::string("1.0");
    p.rank = 1;
    p.capabilities = VYRE_CAP_DISPATCH;
    p.op_ids = {"node.let"};
    p.create = &create_backend;
    return p;
  }();
  return s;
}

void log_noise(const vyre_host_info* host) {
  if (host == nullptr || host->log == nullptr) return;
  host->log(host->log_user, VYRE_LOG_WARN, (std::string("escapes ") + kEscapes).c_str());
  host->log(host->log_user, VYRE_LOG_WARN, "one line\nvyre: error: a forged second line");
  const std::string huge(std::size_t{8} << 20, 'A');
  host->log(host->log_user, VYRE_LOG_WARN, huge.c_str());
}

}  // namespace

extern "C" VYRE_PLUGIN_EXPORT vyre_status vyre_backend_register(const vyre_host_info* host,
                                                                vyre_backend_info* info) {
  if (UNRULY_IS("exit0_register")) std::exit(0);
  if (UNRULY_IS("quick_exit_register")) std::quick_exit(0);
  if (UNRULY_IS("noisy")) log_noise(host);
  const vyre_status status = vyre::kit::register_backend(spec(), host, info);
  if (UNRULY_IS("bad_id")) info->id = "u_\x1b[31mred\x1b[0m";
  return status;
}
