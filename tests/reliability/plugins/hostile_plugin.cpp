// Test plugins that misbehave in one way each, for child-process verification. HOSTILE_KIND picks:
//   good            registers and creates (a kit backend that compiles nothing)
//   nodevice        registers; create fails cleanly with VYRE_ERR_NO_DEVICE
//   segv_register   vyre_backend_register writes through a wild pointer (SIGSEGV)
//   abort_register  vyre_backend_register calls abort() (SIGABRT)
//   hang_register   vyre_backend_register never returns; it also starts a grandchild that hangs.
//                   Both write their pid to $VYRE_HOSTILE_PID_DIR/<id>.{child,grandchild}
//   exit_register   vyre_backend_register calls _exit(3)
//   throw_register  vyre_backend_register lets a C++ exception cross the C ABI
//   crash_load      a static constructor of the library crashes (SIGSEGV at dlopen)
//   segv_create     registers; create crashes (SIGSEGV)
//   hang_create     registers; create never returns
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "vyre/plugin_kit.hpp"

#define HOSTILE_IS(kind) (std::strcmp(HOSTILE_KIND, kind) == 0)

namespace {

[[noreturn]] void crash() {
  // A wild (non-null) address, so that UBSan's null check does not turn the crash into an exit.
  volatile std::uintptr_t address = 16;  // volatile: the compiler cannot see the bad address
  *reinterpret_cast<volatile int*>(address) = 1;
  ::raise(SIGSEGV);  // in case the store did not fault
  std::abort();
}

[[noreturn]] void hang() {
  while (true) ::pause();
}

void record_pid(const char* role) {
  const char* dir = std::getenv("VYRE_HOSTILE_PID_DIR");
  if (dir == nullptr) return;
  const std::string path = std::string(dir) + "/" + HOSTILE_KIND + "." + role;
  if (std::FILE* f = std::fopen(path.c_str(), "w")) {
    std::fprintf(f, "%ld\n", static_cast<long>(::getpid()));
    std::fclose(f);
  }
}

[[noreturn]] void hang_with_grandchild() {
  record_pid("child");
  if (::fork() == 0) {
    record_pid("grandchild");
    hang();
  }
  hang();
}

class QuietBackend final : public vyre::kit::BackendImpl {
 public:
  void device_profile(vyre_device_profile& out) override {
    out.kind = VYRE_DEVICE_KIND_CPU;
    std::strcpy(out.name, "hostile test device");
    std::strcpy(out.target, "cpu");
    out.max_threads_per_workgroup = 1024;
  }
  std::shared_ptr<vyre::kit::CompiledProgram> compile(vyre::Program, std::string) override {
    vyre::fail(VYRE_ERR_UNSUPPORTED, "the hostile test backend compiles nothing", "use another backend");
  }
  void dispatch(const vyre::kit::HostDispatch&) override {
    vyre::fail(VYRE_ERR_UNSUPPORTED, "the hostile test backend runs nothing", "use another backend");
  }
};

std::unique_ptr<vyre::kit::BackendImpl> create_backend(const vyre::CreateOptions&) {
  if (HOSTILE_IS("segv_create")) crash();
  if (HOSTILE_IS("hang_create")) hang();
  if (HOSTILE_IS("nodevice"))
    vyre::fail(VYRE_ERR_NO_DEVICE, "the hostile test device is never present", "nothing to fix");
  return std::make_unique<QuietBackend>();
}

const vyre::kit::PluginSpec& spec() {
  static const vyre::kit::PluginSpec s = [] {
    vyre::kit::PluginSpec p;
    p.id = std::string("h_") + HOSTILE_KIND;
    p.version = "6.6.6";
    p.rank = 66;
    p.capabilities = VYRE_CAP_DISPATCH;
    p.op_ids = {"node.let"};
    p.create = &create_backend;
    return p;
  }();
  return s;
}

struct CrashOnLoad {
  CrashOnLoad() {
    if (HOSTILE_IS("crash_load")) crash();
  }
} crash_on_load;

}  // namespace

extern "C" VYRE_PLUGIN_EXPORT vyre_status vyre_backend_register(const vyre_host_info* host,
                                                                vyre_backend_info* info) {
  if (HOSTILE_IS("segv_register")) crash();
  if (HOSTILE_IS("abort_register")) std::abort();
  if (HOSTILE_IS("hang_register")) hang_with_grandchild();
  if (HOSTILE_IS("exit_register")) ::_exit(3);
  if (HOSTILE_IS("throw_register")) throw std::runtime_error("thrown across the C ABI");
  return vyre::kit::register_backend(spec(), host, info);
}
