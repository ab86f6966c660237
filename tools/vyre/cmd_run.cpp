// vyre run: run a program file on a backend and show or save its outputs.
#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <optional>

#include "buffer_files.hpp"
#include "cli.hpp"
#include "values.hpp"
#include "vyre/group.hpp"
#include "vyre/json.hpp"
#include "vyre/validate.hpp"

namespace vyre::cli {

const std::string_view kRunHelp = R"(usage: vyre [global options] run FILE [options]

Runs the program in FILE (JSON or wire bytes) once and prints each output (read_write and output
buffers, trimmed to their output_byte_range) as typed values and as hex.

options:
  --backend ID            run on this backend (must succeed); otherwise the registry routes the
                          program to the best-ranked available backend covering its ops
  --input NAME=FILE       the bytes of input buffer NAME from a file
  --input NAME=hex:BYTES  ... as hex bytes, e.g. hex:01000000_02000000 (little-endian words)
  --input NAME=values:V,V ... as comma-separated values of the buffer's element type
                          (integers, 0x.., floats, nan, inf, true/false; not f16/bf16)
  --zeros                 fill fixed-size inputs that have no --input with zeros
  --random SEED           fill fixed-size inputs that have no --input with pseudo-random values
                          reproducible from SEED (integers: any bits; floats: in [-1, 1))
  --elements N            dispatch element count N (SPEC §3)
  --grid X[,Y[,Z]]        explicit grid (workgroups per axis)
  --workgroup X[,Y[,Z]]   override the program's workgroup size
  --iterations K          fixpoint iterations: run the program K times on the same buffers
  --timeout DURATION      stop the run after DURATION (e.g. 500ms, 30s, 2m, 1h; a bare number is
                          seconds; 0: no limit); default 10m on backends that can stop work at a
                          deadline (VYRE_CAP_DEADLINE), none on others. An explicit --timeout on a
                          backend that cannot honour it is refused (unsupported)
  --out DIR               write each output to DIR/NAME.bin instead of printing it
  --max-values N          print at most N values per output (default 64; 0: all)
  --devices I,J,...       run as a device group over these device ordinals of the backend
                          (--backend, default cuda): the grid is split along x, one contiguous
                          range of workgroups per device, with the results of one device
                          (docs/MULTI_GPU.md). grid_sync programs and --iterations > 1 are refused
  --place NAME=HOW        with --devices, how buffer NAME is placed: replicate (read/uniform
                          inputs, the default for them), split[:K] (inputs and read_write: each
                          device gets its shard's elements, K per invocation; read_write ones are
                          gathered back), gather[:K] (outputs: each device's shard's elements),
                          sum (integer outputs: added element by element, e.g. atomic counts).
                          Every output and read_write buffer needs one
  --join ID_FILE          with --devices, this process is one rank of a device group that spans
                          processes (one process per device, as mpirun or torchrun start them):
                          rank 0 writes the group's id to ID_FILE (which must not exist; use a
                          fresh path per run on a file system every rank sees), the others read
                          it. Each process runs its rank's range of workgroups on device
                          --devices[local rank] and every rank gets the whole outputs; rank 0
                          prints or writes them. Needs NCCL (docs/MULTI_GPU.md)
  --rank R, --ranks N     with --join: this process's rank and the group's size; default from the
                          launcher's environment: OMPI_COMM_WORLD_RANK/_SIZE (mpirun),
                          RANK/WORLD_SIZE (torchrun), PMI_RANK/PMI_SIZE. The local rank (which
                          device) comes from OMPI_COMM_WORLD_LOCAL_RANK or LOCAL_RANK, else the
                          rank

Every read, uniform and read_write buffer is an input and needs an --input; a missing one is a
usage error naming it. Fixed-size inputs are NOT zero-filled implicitly (a forgotten input would
silently compute on zeros); pass --zeros or --random SEED to ask for that.
Exit status: 0 ran, 1 the program is invalid or the backend failed, 2 usage error, 3 the run
passed its time limit and was stopped (no output is printed or written).
)";

namespace {

struct RunOptions {
  std::string file;
  std::optional<std::string> backend;
  std::map<std::string, std::string> inputs;  // name -> spec
  bool zeros = false;
  std::optional<std::uint64_t> random_seed;
  DispatchConfig config;
  std::optional<std::filesystem::path> out_dir;
  std::size_t max_values = 64;
  std::optional<std::uint64_t> timeout_ns;  // --timeout; 0: none
  std::vector<int> devices;                 // --devices: a device group over these ordinals
  host::Placements placements;              // --place
  std::optional<std::string> join;          // --join ID_FILE: one rank of a group over processes
  std::optional<std::uint32_t> rank, ranks; // --rank, --ranks (else from the launcher's environment)
};

// The default --timeout: long enough for any run a person waits for, short enough that a hostile
// program (nested 2^32 loops) does not hold the machine for hours.
constexpr std::uint64_t kDefaultTimeoutNs = 600'000'000'000ull;
constexpr int kExitTimeout = 3;

// "500ms", "30s", "2m", "1h", "1.5s", or a bare number of seconds.
std::uint64_t parse_duration(const std::string& text) {
  static constexpr std::pair<std::string_view, double> kUnits[] = {
      {"ns", 1.0}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}};
  std::string_view number = text;
  double scale = 1e9;
  for (const auto& [suffix, ns] : kUnits) {
    if (text.size() > suffix.size() && std::string_view(text).ends_with(suffix) &&
        std::isdigit(static_cast<unsigned char>(text[text.size() - suffix.size() - 1]))) {
      number = std::string_view(text).substr(0, text.size() - suffix.size());
      scale = ns;
      break;
    }
  }
  const std::string digits(number);
  std::size_t used = 0;
  double value = -1;
  try {
    value = std::stod(digits, &used);
  } catch (...) {
    used = 0;
  }
  if (digits.empty() || used != digits.size() || !(value >= 0) || !std::isdigit(static_cast<unsigned char>(digits[0])))
    throw UsageError(fmt::format("--timeout needs a duration such as 500ms, 30s, 2m or 1h, not '{}'", text));
  const double ns = value * scale;
  if (ns >= 1.8e19) throw UsageError(fmt::format("--timeout {} is too long", text));
  return static_cast<std::uint64_t>(ns);
}

std::uint64_t parse_count(std::string_view option, const std::string& text) {
  std::size_t used = 0;
  unsigned long long value = 0;
  try {
    value = std::stoull(text, &used, 0);
  } catch (...) {
    used = 0;
  }
  if (used != text.size() || text.empty() || text.front() == '-')
    throw UsageError(fmt::format("{} needs a non-negative integer, not '{}'", option, text));
  return value;
}

std::uint32_t parse_u32(std::string_view option, const std::string& text) {
  const std::uint64_t value = parse_count(option, text);
  if (value > 0xFFFFFFFFull) throw UsageError(fmt::format("{} value {} is too large", option, text));
  return static_cast<std::uint32_t>(value);
}

std::array<std::uint32_t, 3> parse_triple(std::string_view option, const std::string& text) {
  std::array<std::uint32_t, 3> out{1, 1, 1};
  std::size_t axis = 0;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    if (axis >= 3) throw UsageError(fmt::format("{} takes at most 3 values", option));
    out[axis++] = parse_u32(option, text.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

void add_input(RunOptions& options, const std::string& spec) {
  const std::size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UsageError(fmt::format("--input '{}' is not NAME=FILE, NAME=hex:... or NAME=values:...", spec));
  const std::string name = spec.substr(0, eq);
  if (!options.inputs.emplace(name, spec.substr(eq + 1)).second)
    throw UsageError(fmt::format("input '{}' is given twice", name));
}

std::vector<int> parse_devices(const std::string& text) {
  std::vector<int> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::uint64_t ordinal = parse_count("--devices", text.substr(start, comma - start));
    if (ordinal > 1u << 20) throw UsageError(fmt::format("--devices: {} is not a device ordinal", ordinal));
    if (std::find(out.begin(), out.end(), static_cast<int>(ordinal)) != out.end())
      throw UsageError(fmt::format("--devices names device {} twice", ordinal));
    out.push_back(static_cast<int>(ordinal));
    start = comma + 1;
  }
  return out;
}

host::Placement parse_placement(const std::string& how) {
  const std::size_t colon = how.find(':');
  const std::string kind = how.substr(0, colon);
  const std::uint64_t k = colon == std::string::npos ? 1 : parse_count("--place", how.substr(colon + 1));
  if (kind == "replicate" && colon == std::string::npos) return host::Placement::replicate();
  if (kind == "split") return host::Placement::split(k);
  if (kind == "gather") return host::Placement::gather(k);
  if (kind == "sum" && colon == std::string::npos) return host::Placement::sum();
  throw UsageError(fmt::format("--place: '{}' is not replicate, split[:K], gather[:K] or sum", how));
}

void add_placement(RunOptions& options, const std::string& spec) {
  const std::size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0) throw UsageError(fmt::format("--place wants NAME=HOW, got '{}'", spec));
  if (!options.placements.emplace(spec.substr(0, eq), parse_placement(spec.substr(eq + 1))).second)
    throw UsageError(fmt::format("buffer '{}' is placed twice", spec.substr(0, eq)));
}

RunOptions parse_options(Args& args) {
  RunOptions options;
  while (!args.empty()) {
    if (auto v = args.take_option("--backend")) options.backend = *v;
    else if (auto v = args.take_option("--input")) add_input(options, *v);
    else if (args.take_flag("--zeros")) options.zeros = true;
    else if (auto v = args.take_option("--random")) options.random_seed = parse_count("--random", *v);
    else if (auto v = args.take_option("--elements")) options.config.dispatch_elements = parse_count("--elements", *v);
    else if (auto v = args.take_option("--grid")) options.config.grid = parse_triple("--grid", *v);
    else if (auto v = args.take_option("--workgroup")) options.config.workgroup_override = parse_triple("--workgroup", *v);
    else if (auto v = args.take_option("--iterations")) options.config.fixpoint_iterations = parse_u32("--iterations", *v);
    else if (auto v = args.take_option("--timeout")) options.timeout_ns = parse_duration(*v);
    else if (auto v = args.take_option("--out")) options.out_dir = *v;
    else if (auto v = args.take_option("--max-values")) options.max_values = parse_count("--max-values", *v);
    else if (auto v = args.take_option("--devices")) options.devices = parse_devices(*v);
    else if (auto v = args.take_option("--place")) add_placement(options, *v);
    else if (auto v = args.take_option("--join")) options.join = *v;
    else if (auto v = args.take_option("--rank")) options.rank = parse_u32("--rank", *v);
    else if (auto v = args.take_option("--ranks")) options.ranks = parse_u32("--ranks", *v);
    else if (args.peek().starts_with("-")) throw UsageError(fmt::format("unknown option '{}' for `vyre run`", args.peek()));
    else if (options.file.empty()) options.file = args.take("FILE");
    else throw UsageError(fmt::format("unexpected argument '{}' (one program FILE per run)", args.peek()));
  }
  if (options.file.empty()) throw UsageError("missing program FILE");
  if (options.config.fixpoint_iterations == 0) throw UsageError("--iterations must be at least 1");
  if (options.devices.empty() && !options.placements.empty()) throw UsageError("--place needs --devices");
  if (options.devices.empty() && options.join) throw UsageError("--join needs --devices (the devices of this host, one per local rank)");
  if (!options.join && (options.rank || options.ranks)) throw UsageError("--rank and --ranks need --join");
  return options;
}

std::vector<std::byte> read_file(const std::string& path, const BufferDecl& buffer) {
  const std::vector<std::uint8_t> bytes =
      tool::read_buffer_file(path, buffer, fmt::format("input file for buffer '{}'", buffer.name));
  std::vector<std::byte> out(bytes.size());
  if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

std::vector<std::byte> input_bytes(const BufferDecl& buffer, const std::string& spec) {
  if (spec.starts_with("hex:")) return parse_hex(std::string_view(spec).substr(4));
  if (spec.starts_with("values:")) return parse_values(buffer.element, std::string_view(spec).substr(7));
  return read_file(spec, buffer);
}

std::string describe(const BufferDecl& b) {
  return fmt::format("{} {}[{}]", access_name(b.access), type_name(b.element),
                     b.count == 0 ? std::string("runtime") : std::to_string(b.count));
}

// The input buffers' bytes in declaration order; usage errors name missing or unknown inputs.
std::vector<std::vector<std::byte>> gather_inputs(const Program& program, const RunOptions& options) {
  std::vector<std::vector<std::byte>> inputs;
  std::map<std::string, std::string> unused = options.inputs;
  std::string names;
  for (std::size_t index : program.input_indices()) {
    const BufferDecl& buffer = program.buffers[index];
    if (!names.empty()) names += ", ";
    names += buffer.name;
    auto it = unused.find(buffer.name);
    if (it != unused.end()) {
      inputs.push_back(input_bytes(buffer, it->second));
      unused.erase(it);
    } else if (options.zeros && buffer.count > 0) {
      inputs.emplace_back(std::size_t{buffer.count} * byte_size(buffer.element));
    } else if (options.random_seed && buffer.count > 0) {
      // Each buffer draws its own stream: the seed mixed with the binding.
      inputs.push_back(random_values(buffer.element, buffer.count,
                                     *options.random_seed * 1000003u + buffer.binding));
    } else {
      throw UsageError(fmt::format(
          "missing input '{}' ({}); pass --input {}=FILE, {}=hex:... or {}=values:...{}", buffer.name,
          describe(buffer), buffer.name, buffer.name, buffer.name,
          buffer.count > 0 ? " (or --zeros / --random SEED)" : ""));
    }
  }
  if (!unused.empty())
    throw UsageError(fmt::format("the program has no input named '{}' (its inputs: {})",
                                 unused.begin()->first, names.empty() ? "none" : names));
  return inputs;
}

void print_output(const BufferDecl& buffer, const host::ByteVector& bytes, std::size_t max_values) {
  const std::size_t size = byte_size(buffer.element);
  fmt::print("output '{}' ({}, {} bytes):\n", buffer.name, describe(buffer), bytes.size());
  const std::uint64_t begin = buffer.output_byte_range ? buffer.output_byte_range->begin : 0;
  const std::size_t count = bytes.size() / size;
  const std::size_t shown = max_values == 0 ? count : std::min(count, max_values);
  if (begin % size == 0 && bytes.size() % size == 0) {
    std::string values;
    for (std::size_t i = 0; i < shown; ++i) {
      if (i > 0) values += ' ';
      values += format_value(buffer.element, std::span(bytes).subspan(i * size, size));
    }
    fmt::print("  values: {}{}\n", values,
               shown < count ? fmt::format(" ... ({} more; --out DIR writes all)", count - shown) : "");
  }
  const std::size_t hex_bytes = max_values == 0 ? bytes.size() : std::min(bytes.size(), shown * size);
  fmt::print("  hex: {}{}\n", format_hex(std::span(bytes).first(hex_bytes), size),
             hex_bytes < bytes.size() ? " ..." : "");
}

void write_output(const std::filesystem::path& dir, const BufferDecl& buffer,
                  const host::ByteVector& bytes) {
  const std::filesystem::path path = dir / (buffer.name + ".bin");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out)
    fail(VYRE_ERR_IO, "cannot write output '" + buffer.name + "' to " + path.string(),
         "check that the --out directory is writable");
  fmt::print("wrote {} ({} bytes)\n", path.string(), bytes.size());
}

// The dispatch configuration with the run's time limit: --timeout, else the default limit on a
// backend that enforces deadlines (VYRE_CAP_DEADLINE), else none.
DispatchConfig config_with_timeout(const RunOptions& options, const PluginInfo* plugin) {
  DispatchConfig config = options.config;
  if (options.timeout_ns) {
    if (*options.timeout_ns != 0) config.time_limit_ns = *options.timeout_ns;
  } else if (plugin != nullptr && plugin->has(VYRE_CAP_DEADLINE)) {
    config.time_limit_ns = kDefaultTimeoutNs;
  }
  return config;
}

// One backend: --backend, or the registry's route.
std::vector<host::ByteVector> run_single(Registry& registry, const Program& program, std::span<const host::Bytes> inputs,
                                         const RunOptions& options) {
  host::Backend backend;
  const PluginInfo* plugin = nullptr;
  if (options.backend) {
    backend = registry.backend(*options.backend);
    plugin = registry.find(*options.backend);
    fmt::print("backend: {} (chosen with --backend)\n", *options.backend);
  } else {
    Route route = registry.route(program, &options.config);
    backend = route.backend;
    plugin = route.plugin;
    fmt::print("backend: {} ({})\n", route.plugin->id, route.reason);
  }
  return backend.dispatch(backend.compile(program), inputs, config_with_timeout(options, plugin));
}

// --devices: a group of instances of one backend, one per ordinal.
std::vector<host::ByteVector> run_group(Registry& registry, const Program& program, std::span<const host::Bytes> inputs,
                                        const RunOptions& options) {
  const std::string id = options.backend.value_or("cuda");
  std::vector<host::Backend> members;
  std::string ordinals;
  for (int ordinal : options.devices) {
    CreateOptions create;
    create.device_ordinal = ordinal;
    members.push_back(registry.create(id, create));
    if (!ordinals.empty()) ordinals += ',';
    ordinals += std::to_string(ordinal);
  }
  fmt::print("backend: {} (device group over devices {})\n", id, ordinals);
  return host::Group(std::move(members)).dispatch(program, inputs, options.placements,
                                                 config_with_timeout(options, registry.find(id)));
}

// A number from the first of `names` set in the environment.
std::optional<std::uint32_t> env_number(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const char* text = std::getenv(name);
    if (text == nullptr || *text == '\0') continue;
    return parse_u32(name, text);
  }
  return std::nullopt;
}

struct JoinedRun {
  std::vector<host::ByteVector> outputs;
  std::uint32_t rank = 0;
};

// --join: this process's rank of a group over processes, on device --devices[local rank].
JoinedRun run_joined(Registry& registry, const Program& program, std::span<const host::Bytes> inputs,
                     const RunOptions& options) {
  const std::optional<std::uint32_t> rank = options.rank ? options.rank : env_number({"OMPI_COMM_WORLD_RANK", "RANK", "PMI_RANK"});
  const std::optional<std::uint32_t> ranks =
      options.ranks ? options.ranks : env_number({"OMPI_COMM_WORLD_SIZE", "WORLD_SIZE", "PMI_SIZE"});
  if (!rank || !ranks)
    throw UsageError("--join: no rank or group size: pass --rank and --ranks, or start the processes with mpirun or torchrun");
  if (*ranks == 0 || *rank >= *ranks) throw UsageError(fmt::format("--join: rank {} of {} ranks", *rank, *ranks));
  const std::uint32_t local =
      options.rank ? *rank : env_number({"OMPI_COMM_WORLD_LOCAL_RANK", "LOCAL_RANK"}).value_or(*rank);
  if (local >= options.devices.size())
    throw UsageError(fmt::format("--join: local rank {} has no device in --devices (it lists {})", local, options.devices.size()));
  const std::string id = options.backend.value_or("cuda");
  CreateOptions create;
  create.device_ordinal = options.devices[local];
  host::Backend member = registry.create(id, create);
  fmt::print("backend: {} (rank {} of {} on device {}, group id file {})\n", id, *rank, *ranks, options.devices[local], *options.join);
  const host::Group group = host::Group::join(std::move(member), *options.join, *ranks, *rank);
  return {group.dispatch(program, inputs, options.placements, config_with_timeout(options, registry.find(id))), *rank};
}

}  // namespace

int run_run(const GlobalOptions& global, Args& args) {
  const RunOptions options = parse_options(args);
  const Program program = load_program_file(options.file);
  validate_or_throw(program);
  const std::vector<std::vector<std::byte>> inputs = gather_inputs(program, options);

  const std::unique_ptr<Registry> registry = make_registry(global);
  const std::vector<host::Bytes> spans(inputs.begin(), inputs.end());
  std::vector<host::ByteVector> outputs;
  try {
    if (options.join) {
      JoinedRun joined = run_joined(*registry, program, spans, options);
      if (joined.rank != 0) return kExitOk;  // every rank has the outputs; rank 0 shows them
      outputs = std::move(joined.outputs);
    } else {
      outputs = options.devices.empty() ? run_single(*registry, program, spans, options)
                                        : run_group(*registry, program, spans, options);
    }
  } catch (const Error& e) {
    if (e.code() != VYRE_ERR_TIMEOUT) throw;
    fmt::print(stderr, "vyre: error (timeout): {}\n", e.what());
    return kExitTimeout;
  }

  if (options.out_dir) std::filesystem::create_directories(*options.out_dir);
  const std::vector<std::size_t> indices = program.output_indices();
  for (std::size_t i = 0; i < indices.size(); ++i) {
    const BufferDecl& buffer = program.buffers[indices[i]];
    if (options.out_dir)
      write_output(*options.out_dir, buffer, outputs[i]);
    else
      print_output(buffer, outputs[i], options.max_values);
  }
  return kExitOk;
}

}  // namespace vyre::cli
