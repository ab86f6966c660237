// The vyre AOT launcher: runs one bundle (manifest.json, kernel.ptx/.cubin, weights, inputs) on a
// CUDA device through the driver alone. The same sources build `vyre-launch` in the vyre-cpp tree
// and the launcher/ of every bundle (docs/AOT.md).
#include <exception>
#include <new>
#include <iostream>
#include <string>
#include <vector>

#include "bundle.hpp"
#include "device_run.hpp"
#include "errors.hpp"
#include "settings.hpp"

// A bundle's own launcher/CMakeLists.txt points this at the bundle, so the built launcher runs
// its bundle with no argument.
#ifndef VYRE_LAUNCH_DEFAULT_BUNDLE
#define VYRE_LAUNCH_DEFAULT_BUNDLE ""
#endif

namespace {

std::string program_name(const char* argv0) {
  const std::string path = argv0 != nullptr ? argv0 : "vyre-launch";
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

int run(const std::string& program, const std::vector<std::string>& args) {
  const vyre_launch::CommandLine line = vyre_launch::parse_command_line(args, VYRE_LAUNCH_DEFAULT_BUNDLE);
  if (line.help) {
    std::cout << vyre_launch::usage_text(program, VYRE_LAUNCH_DEFAULT_BUNDLE);
    return vyre_launch::kExitOk;
  }
  const vyre_launch::Environment env = vyre_launch::read_process_environment();
  const vyre_launch::Bundle bundle = vyre_launch::load_bundle(line.bundle_dir, line.inputs);
  vyre_launch::check_environment(env, bundle.manifest);
  vyre_launch::check_outputs(bundle, line.out_dir);
  vyre_launch::run_on_device(bundle, env, line.out_dir, std::cout);
  return vyre_launch::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string program = program_name(argc > 0 ? argv[0] : nullptr);
  try {
    return run(program, std::vector<std::string>(argv + (argc > 0 ? 1 : 0), argv + argc));
  } catch (const vyre_launch::LaunchError& error) {
    std::cerr << program << ": error: " << error.what() << "\n";
    if (error.exit_code() == vyre_launch::kExitUsage) std::cerr << "run `" << program << " --help` for usage\n";
    return error.exit_code();
  } catch (const std::bad_alloc&) {
    std::cerr << program << ": error: out of host memory while loading or running the bundle. Fix: free memory, "
                 "or run the bundle on a machine with more memory than its buffers need.\n";
    return vyre_launch::kExitFailure;
  } catch (const std::exception& error) {
    std::cerr << program << ": error: " << error.what() << " Fix: report this launcher failure with the bundle.\n";
    return vyre_launch::kExitFailure;
  }
}
