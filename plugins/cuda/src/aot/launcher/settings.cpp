#include "settings.hpp"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>

#include "errors.hpp"

namespace vyre_launch {
namespace {

// A non-negative decimal integer up to `max`, or nothing.
std::optional<std::uint64_t> parse_decimal(const std::string& text, std::uint64_t max) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
    if (value > max) return std::nullopt;
  }
  return value;
}

std::pair<std::string, std::string> split_input(const std::string& spec) {
  const std::size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    fail_usage(cat("--in takes NAME=FILE, not \"", spec, "\""), "write e.g. --in x=x.bin");
  return {spec.substr(0, eq), spec.substr(eq + 1)};
}

// The value of option `name` at args[i] ("--name VALUE" or "--name=VALUE"), advancing i.
std::optional<std::string> option_value(const std::vector<std::string>& args, std::size_t& i, const std::string& name) {
  const std::string& a = args[i];
  if (a == name) {
    if (i + 1 >= args.size()) fail_usage(cat(name, " needs a value"), cat("write ", name, " VALUE"));
    return args[++i];
  }
  if (a.size() > name.size() && a.compare(0, name.size(), name) == 0 && a[name.size()] == '=')
    return a.substr(name.size() + 1);
  return std::nullopt;
}

std::uint32_t parse_steps(const char* raw) {
  const std::string text = raw;
  const auto value = parse_decimal(text, UINT32_MAX);
  if (!value)
    fail(cat(kTttStepsEnv, "=\"", text, "\" is not a positive integer"),
         cat("set ", kTttStepsEnv, " to the number of launches (1 or more), or unset it for one"));
  if (*value == 0)
    fail(cat(kTttStepsEnv, "=0 would launch nothing"),
         cat("set ", kTttStepsEnv, " to 1 or more, or unset it for one launch"));
  return static_cast<std::uint32_t>(*value);
}

float parse_target_loss(const char* raw) {
  const std::string text = raw;
  char* end = nullptr;
  errno = 0;
  const float value = text.empty() ? 0.0f : std::strtof(text.c_str(), &end);
  const bool parsed = !text.empty() && end == text.c_str() + text.size() && errno == 0;
  if (!parsed || !std::isfinite(value))
    fail(cat(kTttTargetLossEnv, "=\"", text, "\" is not a finite number"),
         cat("set ", kTttTargetLossEnv, " to a finite loss threshold such as 0.05, or unset it"));
  return value;
}

int parse_ordinal(const char* raw) {
  const std::string text = raw;
  const auto value = parse_decimal(text, INT_MAX);
  if (!value)
    fail(cat(kDeviceOrdinalEnv, "=\"", text, "\" is not a device ordinal (a non-negative integer)"),
         cat("set ", kDeviceOrdinalEnv, " to a visible device's ordinal (0, 1, ...) or unset it for device 0"));
  return static_cast<int>(*value);
}

bool parse_flag(const char* raw) {
  std::string text = raw;
  for (char& c : text) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return text == "1" || text == "true" || text == "yes" || text == "on";
}

}  // namespace

CommandLine parse_command_line(const std::vector<std::string>& args, const std::string& default_bundle) {
  CommandLine line;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      line.help = true;
    } else if (auto in = option_value(args, i, "--in")) {
      line.inputs.push_back(split_input(*in));
    } else if (auto out = option_value(args, i, "--out")) {
      line.out_dir = *out;
    } else if (!a.empty() && a[0] == '-') {
      fail_usage(cat("unknown option \"", a, "\""), "see --help");
    } else if (line.bundle_dir.empty()) {
      line.bundle_dir = a;
    } else {
      fail_usage(cat("unexpected argument \"", a, "\" (the bundle is \"", line.bundle_dir, "\")"),
                 "pass one bundle directory");
    }
  }
  if (line.bundle_dir.empty()) line.bundle_dir = default_bundle;
  if (line.bundle_dir.empty() && !line.help)
    fail_usage("no bundle directory given", "pass the bundle directory (the one holding manifest.json)");
  return line;
}

std::string usage_text(const std::string& program, const std::string& default_bundle) {
  const std::string bundle = default_bundle.empty() ? "BUNDLE" : "[BUNDLE]";
  return cat("usage: ", program, " ", bundle, R"( [--in NAME=FILE]... [--out DIR]

Runs a vyre AOT bundle (the directory holding manifest.json) on a CUDA device through the driver
(libcuda.so.1).)",
             default_bundle.empty() ? "" : cat(" BUNDLE defaults to ", default_bundle, "."), R"(
The first input buffer of a bundle with weights is filled from weights.bin; every other input
buffer gets its bytes from --in NAME=FILE, else from the bundle's own input file; a missing input
is an error. Each read_write and output buffer is written to DIR/NAME.bin (default
BUNDLE/outputs), trimmed to its output_byte_range, as a fresh file renamed into place. No file or
directory inside the bundle or the output directory may be a symbolic link.

environment:
  VYRE_CUDA_DEVICE_ORDINAL=K         run on visible device K (default 0)
  VYRE_TTT_STEPS=N                   launch the kernel sequence N times (default 1)
  VYRE_TTT_TARGET_LOSS=X             stop once the metrics record's loss is <= X (needs `metrics`)
  VYRE_CUDA_FORCE_SPLIT_GRID_SYNC=1  run grid_sync programs phase by phase, not cooperatively
  VYRE_CUDA_DRIVER_LIBRARY=PATH      open this driver library instead of libcuda.so.1

exit status: 0 ran, 1 failed, 2 usage error, 3 no CUDA driver or device
)");
}

Environment read_environment(const EnvLookup& lookup) {
  Environment env;
  if (const char* ordinal = lookup(kDeviceOrdinalEnv)) env.device_ordinal = parse_ordinal(ordinal);
  if (const char* steps = lookup(kTttStepsEnv)) env.ttt_steps = parse_steps(steps);
  if (const char* loss = lookup(kTttTargetLossEnv)) env.ttt_target_loss = parse_target_loss(loss);
  if (const char* split = lookup(kForceSplitEnv)) env.force_split_grid_sync = parse_flag(split);
  if (const char* library = lookup(kDriverLibraryEnv); library != nullptr && *library != '\0')
    env.driver_library = library;
  return env;
}

Environment read_process_environment() {
  return read_environment([](const char* name) -> const char* { return std::getenv(name); });
}

void check_environment(const Environment& env, const Manifest& manifest) {
  if (env.ttt_target_loss && metrics_buffer(manifest) < 0)
    fail(cat(kTttTargetLossEnv, " is set but the bundle has no `metrics` buffer to read the loss from"),
         cat("unset ", kTttTargetLossEnv, ", or rebuild the bundle from a program with a u32 `metrics` buffer"));
}

int select_device_ordinal(const Environment& env, int visible) {
  if (visible <= 0)
    fail_no_device(
        cat("the CUDA driver reports ", visible, " visible devices"),
        "run on a machine with an NVIDIA GPU, and check CUDA_VISIBLE_DEVICES and the container's GPU access");
  const int ordinal = env.device_ordinal.value_or(0);
  if (ordinal >= visible)
    fail(cat(kDeviceOrdinalEnv, "=", ordinal, " names no visible device (", visible, " visible: 0..", visible - 1, ")"),
         cat("set ", kDeviceOrdinalEnv, " to a visible device ordinal, or unset it for device 0"));
  return ordinal;
}

}  // namespace vyre_launch
