// vyre validate: every diagnostic of a program file.
#include <fmt/core.h>

#include "cli.hpp"
#include "vyre/json.hpp"
#include "vyre/ops.hpp"
#include "vyre/validate.hpp"

namespace vyre::cli {

const std::string_view kValidateHelp = R"(usage: vyre validate FILE

Reads a program (JSON, or wire bytes recognised by their magic), validates it and prints every
problem with its check name, its path in the program and how to fix it. A valid program prints
its buffers and the op ids it uses (what a backend must support to run it).
Exit status: 0 valid, 1 invalid or unreadable, 2 usage error.
)";

int run_validate(const GlobalOptions&, Args& args) {
  const std::string file = args.take("program FILE");
  args.finish("vyre validate");
  const Program program = load_program_file(file);
  const std::vector<Diagnostic> diagnostics = validate(program);
  if (!diagnostics.empty()) {
    fmt::print("{}: {} problem(s)\n", file, diagnostics.size());
    for (const Diagnostic& d : diagnostics)
      fmt::print("  [{}] {}: {}\n", check_name(d.code), d.path.empty() ? "program" : d.path, d.message);
    return kExitFailure;
  }
  const std::vector<std::string> ops = ops_used(program);
  fmt::print("{}: valid ({} buffers, workgroup {}x{}x{}, {} ops)\n", file, program.buffers.size(),
             program.workgroup_size[0], program.workgroup_size[1], program.workgroup_size[2],
             ops.size());
  for (const BufferDecl& b : program.buffers)
    fmt::print("  buffer {} '{}': {} {}[{}]\n", b.binding, b.name, access_name(b.access),
               type_name(b.element), b.count == 0 ? std::string("runtime") : std::to_string(b.count));
  std::string list;
  for (const std::string& op : ops) list += (list.empty() ? "" : " ") + op;
  fmt::print("  ops: {}\n", list);
  return kExitOk;
}

}  // namespace vyre::cli
