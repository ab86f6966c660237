#include "aot_test_support.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "aot/aot_emit.hpp"
#include "vyre/builder.hpp"
#include "vyre/error.hpp"
#include "vyre/fingerprint.hpp"
#include "vyre/types.hpp"

namespace aot_test {

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(VYRE_AOT_WORK_DIR) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string quote(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

Process run(const std::string& command, const std::string& env) {
  static int counter = 0;
  const fs::path dir = fs::path(VYRE_AOT_WORK_DIR);
  fs::create_directories(dir);
  const fs::path out = dir / ("stdout." + std::to_string(++counter));
  const fs::path err = dir / ("stderr." + std::to_string(counter));
  const std::string line =
      "env -u VYRE_PLUGIN_PATH -u VYRE_BACKEND -u VYRE_TTT_STEPS -u VYRE_TTT_TARGET_LOSS "
      "-u VYRE_CUDA_DEVICE_ORDINAL -u VYRE_CUDA_FORCE_SPLIT_GRID_SYNC " +
      env + " " + command + " >" + quote(out.string()) + " 2>" + quote(err.string());
  const int status = std::system(line.c_str());
  Process p;
  p.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  p.out = read_text(out);
  p.err = read_text(err);
  fs::remove(out);
  fs::remove(err);
  return p;
}

namespace {

std::string find_in_path(const std::string& tool) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / tool;
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  }
  return "";
}

}  // namespace

std::string cmake_generator_args() {
  for (const auto& [tool, generator] :
       {std::pair<const char*, const char*>{"ninja", "Ninja"}, {"make", "Unix Makefiles"}}) {
    const std::string path = find_in_path(tool);
    if (!path.empty()) return " -G " + quote(generator) + " -DCMAKE_MAKE_PROGRAM=" + quote(path);
  }
  return "";
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::uint8_t> read_bytes(const fs::path& path) {
  const std::string text = read_text(path);
  return std::vector<std::uint8_t>(text.begin(), text.end());
}

void write_bytes(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::vector<fs::path> example_programs() {
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(fs::path(VYRE_SOURCE_DIR) / "examples"))
    if (entry.path().extension() == ".json") paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  return paths;
}

std::vector<vyre::AotFile> emit_in_process(const vyre::Program& program, const vyre::DispatchConfig& config,
                                                std::optional<std::string> target,
                                                const std::vector<std::uint8_t>& weights) {
  vyre::kit::AotRequest request;
  request.program = program;
  request.fingerprint = vyre::fingerprint(program);
  request.target = std::move(target);
  request.config = config;
  request.weights = std::as_bytes(std::span(weights));
  return vyre::cuda::aot::emit_aot_bundle(request, std::nullopt);
}

void write_files(const std::vector<vyre::AotFile>& files, const fs::path& dir) {
  for (const auto& file : files) write_bytes(dir / file.name, file.data);
}

const vyre::AotFile* find_file(const std::vector<vyre::AotFile>& files, const std::string& name) {
  for (const auto& file : files)
    if (file.name == name) return &file;
  return nullptr;
}

namespace {

// A random finite normal value of `type`, as its little-endian bytes.
void append_value(std::vector<std::uint8_t>& out, vyre::Type type, std::mt19937& rng) {
  std::uniform_real_distribution<float> real(-4.0f, 4.0f);
  std::uint64_t bits = 0;
  switch (type) {
    case vyre::Type::F32:
      bits = std::bit_cast<std::uint32_t>(real(rng));
      break;
    case vyre::Type::F64:
      bits = std::bit_cast<std::uint64_t>(static_cast<double>(real(rng)));
      break;
    case vyre::Type::F16:
      bits = (rng() & 0x8000u) | ((10u + rng() % 10u) << 10) | (rng() & 0x3FFu);
      break;
    case vyre::Type::BF16:
      bits = std::bit_cast<std::uint32_t>(real(rng)) >> 16;
      break;
    case vyre::Type::Bool:
      bits = rng() & 1u;
      break;
    default:
      bits = (static_cast<std::uint64_t>(rng()) << 32) | rng();
      break;
  }
  for (std::uint32_t i = 0; i < vyre::byte_size(type); ++i) out.push_back(static_cast<std::uint8_t>(bits >> (8 * i)));
}

}  // namespace

std::vector<std::pair<std::string, std::vector<std::uint8_t>>> example_inputs(const vyre::Program& program,
                                                                              std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> inputs;
  for (std::size_t index : program.input_indices()) {
    const vyre::BufferDecl& b = program.buffers[index];
    std::vector<std::uint8_t> bytes;
    for (std::uint32_t i = 0; i < b.count; ++i) append_value(bytes, b.element, rng);
    inputs.emplace_back(b.name, std::move(bytes));
  }
  return inputs;
}

vyre::Program metrics_program() {
  using namespace vyre::dsl;
  vyre::ProgramBuilder b;
  b.workgroup(1);
  vyre::Buf metrics = b.buffer("metrics", vyre::Access::ReadWrite, vyre::Type::U32, 8);
  vyre::Expr i = b.let("i", invocation_id(0));
  b.if_(eq(i, u32(0)), [&] {
    vyre::Expr step = b.let("step", metrics[u32(0)] + u32(1));
    b.store(metrics, u32(0), step);
    b.store(metrics, u32(1), bitcast(vyre::Type::U32, f32(1.0f) / cast(vyre::Type::F32, step)));
    b.store(metrics, u32(2), metrics[u32(2)] + u32(16));
  });
  return b.build();
}

}  // namespace aot_test
