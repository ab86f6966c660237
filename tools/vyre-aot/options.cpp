#include "options.hpp"

#include <fmt/format.h>

namespace vyre::aot_tool {

const char* const kUsage = R"(usage: vyre-aot compile PROGRAM [options] --out DIR

Writes an AOT bundle for PROGRAM (JSON or wire bytes) through a backend plugin's AOT emitter:
manifest.json, kernel.ptx, kernel.cubin (when ptxas is available), weights.bin, inputs/NAME.bin and
launcher/ (a standalone C++17 runner needing only the CUDA driver). docs/AOT.md describes it all.

options:
  --target ID             the backend that emits the bundle (default: cuda)
  --sm N                  the CUDA target sm_N (default: the device's when one is usable, else 90)
  --elements N            dispatch element count N (SPEC §3)
  --grid X[,Y[,Z]]        explicit grid (workgroups per axis)
  --workgroup X[,Y[,Z]]   override the program's workgroup size
  --iterations K          fixpoint iterations per launch step (default 1)
  --weights FILE          bytes uploaded into the first input buffer at launch (must fit it)
  --in NAME=FILE          the bytes of input buffer NAME, copied into the bundle; for a runtime-sized
                          buffer the file's size fixes its count (repeatable)
  --count NAME=N          fix runtime-sized buffer NAME to N elements without bundling data
  --out DIR               the bundle directory (created; must be empty unless --force)
  --force                 write into a non-empty DIR (files of the same name are replaced)
  --plugins DIR           also load plugins from DIR (repeatable; searched first)
  --replace-backend ID    let a --plugins/VYRE_PLUGIN_PATH plugin replace vyre's own backend ID
                          (repeatable; logged); otherwise such a duplicate is rejected
  --no-default-plugins    skip <prefix>/lib/vyre/plugins and the build tree's plugins
  -v, --verbose           log what the registry does
  -h, --help              this text

Every size is fixed at compile time: a runtime-sized (count 0) buffer needs --in or --count, and the
grid must be non-empty. Exit status: 0 written, 1 failed, 2 usage error.
)";

namespace {

using tool::Args;

std::uint64_t parse_u64(std::string_view option, const std::string& text) {
  std::size_t used = 0;
  unsigned long long value = 0;
  try {
    value = std::stoull(text, &used, 10);
  } catch (...) {
    used = 0;
  }
  if (text.empty() || used != text.size() || text.front() == '-' || text.front() == '+')
    throw UsageError(fmt::format("{} needs a non-negative integer, not '{}'", option, text));
  return value;
}

std::uint32_t parse_u32(std::string_view option, const std::string& text) {
  const std::uint64_t value = parse_u64(option, text);
  if (value > UINT32_MAX) throw UsageError(fmt::format("{} value {} does not fit 32 bits", option, text));
  return static_cast<std::uint32_t>(value);
}

std::array<std::uint32_t, 3> parse_triple(std::string_view option, const std::string& text) {
  std::array<std::uint32_t, 3> out{1, 1, 1};
  std::size_t start = 0;
  for (std::size_t axis = 0;; ++axis) {
    if (axis >= 3) throw UsageError(fmt::format("{} takes at most 3 values, not '{}'", option, text));
    const std::size_t comma = text.find(',', start);
    out[axis] = parse_u32(option, text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

std::pair<std::string, std::string> parse_pair(std::string_view option, const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw UsageError(fmt::format("{} takes NAME=VALUE, not '{}'", option, text));
  return {text.substr(0, eq), text.substr(eq + 1)};
}

// The options that take a value, and where each goes.
struct ValueOption {
  std::string_view name;
  void (*apply)(CompileOptions& o, const std::string& value);
};

const ValueOption kValueOptions[] = {
    {"--target", [](CompileOptions& o, const std::string& v) { o.backend = v; }},
    {"--sm",
     [](CompileOptions& o, const std::string& v) { o.sm = parse_u32("--sm", v.starts_with("sm_") ? v.substr(3) : v); }},
    {"--elements",
     [](CompileOptions& o, const std::string& v) { o.config.dispatch_elements = parse_u64("--elements", v); }},
    {"--grid", [](CompileOptions& o, const std::string& v) { o.config.grid = parse_triple("--grid", v); }},
    {"--workgroup",
     [](CompileOptions& o, const std::string& v) { o.config.workgroup_override = parse_triple("--workgroup", v); }},
    {"--iterations",
     [](CompileOptions& o, const std::string& v) { o.config.fixpoint_iterations = parse_u32("--iterations", v); }},
    {"--weights", [](CompileOptions& o, const std::string& v) { o.weights = v; }},
    {"--out", [](CompileOptions& o, const std::string& v) { o.out = v; }},
    {"--plugins", [](CompileOptions& o, const std::string& v) { o.registry.plugin_dirs.emplace_back(v); }},
    {"--replace-backend", [](CompileOptions& o, const std::string& v) { o.registry.replace_backends.push_back(v); }},
    {"--in",
     [](CompileOptions& o, const std::string& v) {
       auto [name, file] = parse_pair("--in", v);
       o.inputs.emplace_back(name, file);
     }},
    {"--count",
     [](CompileOptions& o, const std::string& v) {
       auto [name, count] = parse_pair("--count", v);
       o.counts.emplace_back(name, parse_u64("--count", count));
     }},
};

// One option with a value at the current position; false when it is none of kValueOptions.
bool take_option(Args& a, CompileOptions& o) {
  for (const ValueOption& option : kValueOptions) {
    if (auto value = a.take_option(option.name)) {
      option.apply(o, *value);
      return true;
    }
  }
  return false;
}

bool take_flag(Args& a, CompileOptions& o) {
  if (a.take_flag("--force"))
    o.force = true;
  else if (a.take_flag("--no-default-plugins"))
    o.registry.default_plugins = false;
  else if (a.take_flag("-v") || a.take_flag("--verbose"))
    ++o.registry.verbosity;
  else if (a.take_flag("-vv"))
    o.registry.verbosity += 2;
  else
    return false;
  return true;
}

}  // namespace

CommandLine parse_command_line(const std::vector<std::string>& args) {
  CommandLine line;
  line.help = tool::wants_help(args);
  if (line.help) return line;
  if (args.empty()) throw UsageError("missing the command (compile)");
  if (args.front() != "compile")
    throw UsageError(fmt::format("unknown command '{}' (the command is compile)", args.front()));
  Args a(std::vector<std::string>(args.begin() + 1, args.end()));
  CompileOptions& o = line.compile;
  while (!a.empty()) {
    if (take_flag(a, o) || take_option(a, o)) continue;
    if (a.peek().starts_with("-")) throw UsageError(fmt::format("unknown option '{}'", a.peek()));
    if (!o.program.empty())
      throw UsageError(fmt::format("unexpected argument '{}' (the program is '{}')", a.peek(), o.program.string()));
    o.program = a.take("the program file");
  }
  if (o.program.empty()) throw UsageError("missing the program file");
  if (o.out.empty()) throw UsageError("missing --out DIR (the bundle directory)");
  return line;
}

}  // namespace vyre::aot_tool
