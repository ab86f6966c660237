// What a launch is asked to do: the command line and the environment variables the launcher reads.
// Everything here is checked before the device is touched.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "manifest.hpp"

namespace vyre_launch {

constexpr const char* kDeviceOrdinalEnv = "VYRE_CUDA_DEVICE_ORDINAL";
constexpr const char* kTttStepsEnv = "VYRE_TTT_STEPS";
constexpr const char* kTttTargetLossEnv = "VYRE_TTT_TARGET_LOSS";
constexpr const char* kForceSplitEnv = "VYRE_CUDA_FORCE_SPLIT_GRID_SYNC";
constexpr const char* kDriverLibraryEnv = "VYRE_CUDA_DRIVER_LIBRARY";
constexpr const char* kDefaultDriverLibrary = "libcuda.so.1";

struct CommandLine {
  std::string bundle_dir;
  std::vector<std::pair<std::string, std::string>> inputs;  // --in NAME=FILE, in order
  std::string out_dir;                                      // --out DIR; empty: BUNDLE/outputs
  bool help = false;
};

// Parse `args` (without the program name). `default_bundle` (may be empty) is used when no bundle
// directory is given. Throws LaunchError (kExitUsage) for a malformed line.
CommandLine parse_command_line(const std::vector<std::string>& args, const std::string& default_bundle);

std::string usage_text(const std::string& program, const std::string& default_bundle);

struct Environment {
  std::optional<int> device_ordinal;                   // VYRE_CUDA_DEVICE_ORDINAL (default: device 0)
  std::uint32_t ttt_steps = 1;                         // VYRE_TTT_STEPS: launches of the whole kernel sequence
  std::optional<float> ttt_target_loss;                // VYRE_TTT_TARGET_LOSS: stop once loss <= this
  bool force_split_grid_sync = false;                  // VYRE_CUDA_FORCE_SPLIT_GRID_SYNC: phases, not cooperative
  std::string driver_library = kDefaultDriverLibrary;  // VYRE_CUDA_DRIVER_LIBRARY: the driver to open
};

using EnvLookup = std::function<const char*(const char*)>;

// Read and check the variables through `lookup` (std::getenv for the process). Throws LaunchError
// for a malformed value: an ordinal that is not a non-negative integer, VYRE_TTT_STEPS=0 or not a
// positive integer, a target loss that is not a finite number.
Environment read_environment(const EnvLookup& lookup);
Environment read_process_environment();

// The environment against the manifest: a target loss needs a metrics buffer.
void check_environment(const Environment& env, const Manifest& manifest);

// The ordinal to use among `visible` devices; throws LaunchError when it names none of them.
int select_device_ordinal(const Environment& env, int visible);

}  // namespace vyre_launch
