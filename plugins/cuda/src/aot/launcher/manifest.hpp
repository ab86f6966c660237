// The bundle manifest (schema vyre-aot-manifest/1, docs/AOT.md): its model, how it is read from
// JSON, and every check a runner makes on it before touching a device.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "json_lite.hpp"

namespace vyre_launch {

constexpr const char* kManifestSchema = "vyre-aot-manifest/1";
constexpr const char* kMetricsBufferName = "metrics";
constexpr std::uint32_t kMetricRecordWords = 8;  // one metrics record: 8 u32 words
constexpr std::uint64_t kMaxWorkgroupInvocations = 1024;

using Dims = std::array<std::uint32_t, 3>;

enum class Role { Read, Uniform, ReadWrite, Output, Workgroup };
enum class ParamKind { BufferPointer, ElementCount, DispatchN, TailGuard, GridBarrier };

const char* role_name(Role role);
const char* param_kind_name(ParamKind kind);
bool is_host_input(Role role);     // read, uniform, read_write: uploaded before the launch
bool is_host_output(Role role);    // read_write, output: written to OUT/NAME.bin after it
bool is_device_buffer(Role role);  // every role but workgroup: one device allocation each

struct Param {
  ParamKind kind = ParamKind::BufferPointer;
  std::uint32_t buffer = 0;  // BufferPointer/ElementCount: index into Manifest::buffers
  std::uint32_t bytes = 0;   // 8 for pointers, 4 for u32 values
};

struct Entry {
  std::string name;  // the PTX .entry
  std::vector<Param> params;
  std::uint64_t shared_bytes = 0;  // static shared memory of the entry
  bool cooperative = false;        // launch with cuLaunchCooperativeKernel (takes the grid barrier)
};

struct FileRef {
  std::string file;  // relative to the bundle directory, '/'-separated
  std::string sha256;
  std::uint64_t byte_size = 0;
};

struct ByteRange {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};

struct Buffer {
  std::string name;
  std::uint32_t binding = 0;
  Role role = Role::Read;
  std::string element;  // storage type: u32, f16, ...
  std::uint32_t element_bytes = 0;
  std::uint64_t count = 0;
  std::uint64_t byte_size = 0;
  std::optional<ByteRange> output_byte_range;
};

struct Weights {
  FileRef file;
  std::string buffer;  // the first input buffer
};

struct InputFile {
  std::string buffer;
  FileRef file;
};

struct Manifest {
  std::string schema;
  std::string program_fingerprint;
  std::string target;  // "sm_90"
  std::uint32_t target_sm = 0;
  std::string ptx_isa_version;
  Entry entry;                // entry_point, kernel_params, shared_bytes, cooperative
  std::vector<Entry> phases;  // grid_sync programs: one entry per phase, launched in order
  std::uint32_t grid_barrier_bytes = 0;
  Dims workgroup{};
  Dims grid{};
  std::uint64_t dispatch_elements = 0;
  bool tail_guard = false;
  std::uint32_t fixpoint_iterations = 1;
  std::vector<Buffer> buffers;
  FileRef ptx;
  std::optional<FileRef> cubin;
  std::optional<Weights> weights;
  std::vector<InputFile> inputs;
};

// Read the model from a parsed manifest. Throws LaunchError naming the field that is missing or
// has the wrong type. Unknown keys are ignored (later minor revisions may add some).
Manifest read_manifest(const json::Value& document, const std::string& what);
Manifest parse_manifest(const std::string& text, const std::string& what);

// Every device-independent check of SPEC §10: entry point, buffers, geometry (zero axes,
// overflow, limits of the IR), allocation sizes, kernel parameters, the metrics buffer, weights,
// inputs and file names. Throws LaunchError with the first problem.
void validate_manifest(const Manifest& manifest);

// Storage type sizes in bytes; 0 for a name that is not a storage type.
std::uint32_t element_bytes_of(const std::string& element);
// The product of the three axes; throws LaunchError (naming `what`) when it overflows u64.
std::uint64_t checked_product(const Dims& dims, const std::string& what);

// Index of the buffer named `name`, or -1.
int find_buffer(const Manifest& manifest, const std::string& name);
// Index of the `metrics` buffer, or -1.
int metrics_buffer(const Manifest& manifest);
// Index of the first host input buffer (where weights go), or -1.
int first_input_buffer(const Manifest& manifest);
// Bytes of all device allocations (checked; validate_manifest guarantees no overflow).
std::uint64_t device_bytes(const Manifest& manifest);
// Whether `path` is a safe bundle-relative file name (no absolute path, no "..", no "\").
bool is_safe_bundle_path(const std::string& path);

}  // namespace vyre_launch
