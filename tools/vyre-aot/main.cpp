// vyre-aot: writes AOT bundles (SPEC §10, docs/AOT.md) through a backend plugin's AOT emitter.
#include <fmt/core.h>

#include <cstdio>
#include <string>
#include <vector>

#include "compile.hpp"
#include "options.hpp"
#include "vyre/error.hpp"

int main(int argc, char** argv) {
  using namespace vyre::aot_tool;
  const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  try {
    const CommandLine line = parse_command_line(args);
    if (line.help) {
      fmt::print("{}", kUsage);
      return kExitOk;
    }
    run_compile(line.compile);
    return kExitOk;
  } catch (const UsageError& error) {
    fmt::print(stderr, "vyre-aot: usage error: {}\nrun `vyre-aot --help` for usage\n", error.what());
    return kExitUsage;
  } catch (...) {  // every other failure with its stable code and a Fix (bad_alloc, iostream, ...)
    const vyre::Error error = vyre::current_exception_as_error();
    fmt::print(stderr, "vyre-aot: error [{}]: {}\n", vyre::status_name(error.code()), error.what());
    return kExitFailure;
  }
}
