// The `vyre` command line, run as a child process against the test plugins.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <boost/json.hpp>

#include "vyre/backend_abi.h"
#include "vyre/builder.hpp"
#include "vyre/json.hpp"

namespace fs = std::filesystem;
using namespace vyre;

namespace {

struct Result {
  int exit_code = -1;
  std::string out;
  std::string err;
  bool out_has(std::string_view text) const { return out.find(text) != std::string::npos; }
  bool err_has(std::string_view text) const { return err.find(text) != std::string::npos; }
};

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const fs::path& work_dir() {
  static const fs::path dir = [] {
    fs::path d = VYRE_CLI_WORK_DIR;
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

// Run `vyre ARGS` with a clean environment for the variables the registry reads.
// `shell_prefix` runs first in the same shell (e.g. a ulimit).
Result vyre_cli(const std::string& args, const std::string& env = "", const std::string& shell_prefix = "") {
  const fs::path out = work_dir() / "stdout.txt";
  const fs::path err = work_dir() / "stderr.txt";
  const std::string command = shell_prefix + "env -u VYRE_PLUGIN_PATH -u VYRE_BACKEND " + env + " '" VYRE_CLI "' " +
                              args + " >'" + out.string() + "' 2>'" + err.string() + "'";
  const int status = std::system(command.c_str());
  Result r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

const std::string kTestPlugins = "--no-default-plugins --plugins " VYRE_TEST_PLUGIN_DIR " ";

// out[i] = a[i] <op> b[i], out has 4 elements.
std::string program_file(const std::string& name, BinOp op, bool fixed_inputs = false) {
  using namespace vyre::dsl;
  ProgramBuilder b;
  b.workgroup(64);
  Buf a = b.buffer("a", Access::Read, Type::U32, fixed_inputs ? 4 : 0);
  Buf c = b.buffer("b", Access::Read, Type::U32, fixed_inputs ? 4 : 0);
  Buf out = b.buffer("out", Access::Output, Type::U32, 4);
  Expr i = b.let("i", invocation_id(0));
  b.if_(lt(i, out.len()), [&] { b.store(out, i, bin(op, a[i], c[i])); });
  const fs::path path = work_dir() / name;
  save_program_file(b.build(), path);
  return path.string();
}

std::string invalid_program_file() {
  using namespace vyre::dsl;
  ProgramBuilder b;
  b.workgroup(0);                                  // problem 1: a zero workgroup axis
  Buf x = b.buffer("x", Access::Read, Type::U32);
  b.store(x, u32(0), u32(1));                      // problem 2: store to a read buffer
  const fs::path path = work_dir() / "invalid.json";
  save_program_file(b.build(), path);
  return path.string();
}

const std::string kInputs = " --input a=values:1,2,3,4 --input b=hex:07000000_07000000_07000000_07000000";

}  // namespace

TEST_CASE("help and usage errors") {
  Result r = vyre_cli("--help");
  CHECK(r.exit_code == 0);
  CHECK(r.out_has("backends"));
  CHECK(r.out_has("convert"));
  CHECK(vyre_cli("").exit_code == 2);
  r = vyre_cli("frobnicate");
  CHECK(r.exit_code == 2);
  CHECK(r.err_has("unknown command 'frobnicate'"));
  for (const char* command : {"backends", "ops", "validate", "run", "convert"}) {
    r = vyre_cli(std::string(command) + " --help");
    CHECK_MESSAGE(r.exit_code == 0, command);
    CHECK_MESSAGE(r.out_has("usage: vyre"), command);
  }
  CHECK(vyre_cli("help run").out_has("--input NAME=FILE"));
  CHECK(vyre_cli("backends extra").exit_code == 2);
  CHECK(vyre_cli("--plugins").exit_code == 2);
}

TEST_CASE("vyre backends lists loaded and rejected plugins with reasons") {
  const Result r = vyre_cli(kTestPlugins + "backends");
  CHECK(r.exit_code == 0);
  CHECK(r.out_has("backends (5 loaded"));
  CHECK(r.out_has("t_copy 0.0.1-test  rank 10"));
  CHECK(r.out_has("capabilities: dispatch, async, resident, reference_oracle"));
  CHECK(r.out_has("create: ok (test device t_copy)"));
  CHECK(r.out_has("create: unavailable: the test device t_nodev is switched off"));
  CHECK(r.out_has("rejected (9)"));
  CHECK(r.out_has("libvyre_t_dup.so: [duplicate_id] duplicate id 't_copy'"));
  CHECK(r.out_has("libvyre_t_abi2.so: [abi_major] built for ABI 2.0"));

  // --available: only the ids that create here, in selection order.
  const Result available = vyre_cli(kTestPlugins + "backends --available");
  CHECK(available.exit_code == 0);
  CHECK(available.out_has("t_copy\n"));
  CHECK_FALSE(available.out_has("t_nodev"));
  CHECK_FALSE(available.out_has("rank"));
}

TEST_CASE("vyre backends --json: plugins, capabilities, availability and rejections with codes") {
  const Result r = vyre_cli(kTestPlugins + "backends --json");
  REQUIRE(r.exit_code == 0);
  const boost::json::object root = boost::json::parse(r.out).as_object();
  CHECK(root.at("schema") == "vyre-backends/1");
  CHECK(root.at("abi").at("major") == VYRE_ABI_VERSION_MAJOR);
  CHECK(root.at("abi").at("minor") == VYRE_ABI_VERSION_MINOR);
  CHECK(root.at("search_dirs").as_array().size() == 1);

  std::vector<std::string> ids;
  std::map<std::string, boost::json::object> by_id;
  for (const boost::json::value& b : root.at("backends").as_array()) {
    ids.emplace_back(b.at("id").as_string());
    by_id[ids.back()] = b.as_object();
  }
  CHECK(ids == std::vector<std::string>{"t_nodev", "t_copy", "t_wide", "t_throws", "t_oracle"});
  const boost::json::object& copy = by_id["t_copy"];
  CHECK(copy.at("rank") == 10);
  CHECK(copy.at("available") == true);
  CHECK(copy.at("device") == "test device t_copy");
  CHECK(copy.at("reference_oracle") == "no");
  CHECK(copy.at("capabilities") == boost::json::array{"dispatch", "async", "resident"});
  CHECK(copy.at("op_count").as_int64() > 0);
  // A plugin without the device-group extension lists the one device its instance runs on.
  REQUIRE(copy.at("devices").as_array().size() == 1);
  CHECK(copy.at("devices").at(0).at("name") == "test device t_copy");
  CHECK(copy.at("devices").at(0).at("ordinal") == 0);
  const boost::json::object& nodev = by_id["t_nodev"];
  CHECK(nodev.at("available") == false);
  CHECK(nodev.at("unavailable").at("code") == "no_device");
  CHECK_FALSE(nodev.contains("device"));
  CHECK(by_id["t_oracle"].at("reference_oracle") == "claimed");  // only vyre's own oracle is pinned

  std::map<std::string, std::string> codes;
  for (const boost::json::value& rejected : root.at("rejected").as_array())
    codes[fs::path(std::string(rejected.at("file").as_string())).filename().string()] =
        std::string(rejected.at("code").as_string());
  const std::map<std::string, std::string> expected = {
      {"libvyre_t_dup.so", "duplicate_id"},     {"libvyre_t_badid.so", "bad_id"},
      {"libvyre_t_unknownop.so", "unknown_op"}, {"libvyre_t_nullslot.so", "null_slot"},
      {"libvyre_t_nosym.so", "no_entry_point"}, {"libvyre_t_abi2.so", "abi_major"},
      {"libvyre_t_small.so", "struct_size"},    {"libvyre_t_regfail.so", "register_failed"},
      {"libvyre_t_garbage.so", "load_failed"}};
  CHECK(codes == expected);
}

TEST_CASE("vyre backends with the build tree's plugins shows cuda, and why it cannot run where it cannot") {
  const fs::path cuda = fs::path(VYRE_PLUGIN_BUILD_DIR) / "libvyre_cuda.so";
  if (!fs::exists(cuda)) {
    MESSAGE("libvyre_cuda.so is not built in " VYRE_PLUGIN_BUILD_DIR "; nothing to check");
    return;
  }
  const Result r = vyre_cli("backends");
  CHECK(r.exit_code == 0);
  CHECK(r.out_has("  cuda "));
  // Where the GPU is usable (--available lists cuda) the line says so; elsewhere it gives the
  // reason with its Fix.
  const bool cuda_here = vyre_cli("backends --available").out_has("cuda\n");
  if (cuda_here) {
    CHECK(r.out_has("create: ok (NVIDIA"));
  } else {
    CHECK(r.out_has("create: unavailable:"));
    CHECK(r.out_has("Fix:"));
  }
}

#ifdef FAKE_CUDA_LIBRARY
TEST_CASE("vyre backends lists every device of the cuda plugin (three on the fake driver)") {
  const std::string env = "-u VYRE_CUDA_DEVICE_ORDINAL VYRE_CUDA_DRIVER_LIBRARY='" FAKE_CUDA_LIBRARY
                          "' FAKE_CUDA_DEVICES=3 XDG_CACHE_HOME='" + (work_dir() / "cache").string() + "'";
  const Result text = vyre_cli("backends", env);
  REQUIRE(text.exit_code == 0);
  CHECK(text.out_has("create: ok (Fake CUDA Device 0)"));
  CHECK(text.out_has("    device 0: Fake CUDA Device 0, 1.0 GiB, compute 9.0 (sm_90)\n"));
  CHECK(text.out_has("    device 2: Fake CUDA Device 2, 1.0 GiB, compute 9.0 (sm_90)\n"));
  CHECK_FALSE(text.out_has("device 3:"));

  const Result json = vyre_cli("backends --json", env);
  REQUIRE(json.exit_code == 0);
  const boost::json::value root = boost::json::parse(json.out);
  const boost::json::object* cuda = nullptr;
  for (const boost::json::value& b : root.at("backends").as_array())
    if (b.at("id") == "cuda") cuda = &b.as_object();
  REQUIRE(cuda != nullptr);
  const boost::json::array& devices = cuda->at("devices").as_array();
  REQUIRE(devices.size() == 3);
  CHECK(devices.at(1).at("ordinal") == 1);
  CHECK(devices.at(1).at("name") == "Fake CUDA Device 1");
  CHECK(devices.at(1).at("kind") == "gpu");
  CHECK(devices.at(1).at("memory_bytes") == (1ull << 30));
  CHECK(devices.at(1).at("compute_capability") == "9.0");
  CHECK(devices.at(1).at("target") == "sm_90");
}

namespace {

// out[i] = a[i] + 1 over 1000 u32 in workgroups of 64: the device-group runs' program.
Program increment_program() {
  using namespace vyre::dsl;
  ProgramBuilder b;
  b.workgroup(64);
  Buf a = b.buffer("a", Access::Read, Type::U32, 1000);
  Buf out = b.buffer("out", Access::Output, Type::U32, 1000);
  Expr i = b.let("i", invocation_id(0));
  b.if_(lt(i, u32(1000)), [&] { b.store(out, i, a[i] + u32(1)); });
  return b.build();
}

}  // namespace

TEST_CASE("vyre run --devices runs a device group of the cuda plugin (fake driver) and checks its options") {
  // The fake driver runs no kernels here: this checks the wiring, options and error codes; the
  // results are checked in tests/cuda/runtime/test_cuda_fake_group.cpp and test_cuda_gpu_group.cpp.
  const std::string env = "-u VYRE_CUDA_DEVICE_ORDINAL VYRE_CUDA_DRIVER_LIBRARY='" FAKE_CUDA_LIBRARY
                          "' FAKE_CUDA_DEVICES=3 XDG_CACHE_HOME='" + (work_dir() / "cache").string() + "'";
  const fs::path path = work_dir() / "group_program.json";
  save_program_file(increment_program(), path);
  const std::string run = "run " + path.string() + " --zeros --max-values 4 ";

  const Result ok = vyre_cli(run + "--devices 0,2,1 --place a=split --place out=gather", env);
  CHECK(ok.exit_code == 0);
  CHECK(ok.out_has("backend: cuda (device group over devices 0,2,1)"));
  CHECK(ok.out_has("output 'out'"));
  const Result unplaced = vyre_cli(run + "--devices 0,1", env);
  CHECK(unplaced.exit_code == 1);
  CHECK(unplaced.err_has("vyre: error (invalid_argument): "));
  const Result missing = vyre_cli(run + "--devices 0,3 --place out=gather", env);
  CHECK(missing.exit_code == 1);
  CHECK(missing.err_has("vyre: error (no_device): "));
  CHECK(missing.err_has("Fix:"));
  CHECK(vyre_cli(run + "--devices 0,0 --place out=gather", env).exit_code == 2);
  CHECK(vyre_cli(run + "--devices 0,x --place out=gather", env).exit_code == 2);
  CHECK(vyre_cli(run + "--place out=gather", env).exit_code == 2);  // --place needs --devices
  CHECK(vyre_cli(run + "--devices 0 --place out=scatter", env).exit_code == 2);
  CHECK(vyre_cli(run + "--devices 0 --place out=gather --place out=sum", env).exit_code == 2);
}

#ifdef FAKE_NCCL_LIBRARY
TEST_CASE("vyre run --join runs one rank of a group over processes (fake driver, fake NCCL) and checks its options") {
  // One rank: the fake NCCL's groups live in one process, so two processes cannot meet here (the
  // multi-process example runs on GPUs: examples/multi_process). This checks the wiring: the id
  // file, the rank and size from options or the launcher's environment, the device by local rank.
  const std::string env = "-u VYRE_CUDA_DEVICE_ORDINAL -u OMPI_COMM_WORLD_RANK -u OMPI_COMM_WORLD_SIZE -u RANK -u WORLD_SIZE "
                          "-u PMI_RANK -u PMI_SIZE -u OMPI_COMM_WORLD_LOCAL_RANK -u LOCAL_RANK VYRE_CUDA_DRIVER_LIBRARY='" FAKE_CUDA_LIBRARY
                          "' VYRE_NCCL_LIBRARY='" FAKE_NCCL_LIBRARY "' FAKE_CUDA_DEVICES=2 XDG_CACHE_HOME='" +
                          (work_dir() / "cache").string() + "'";
  const fs::path path = work_dir() / "join_program.json";
  save_program_file(increment_program(), path);
  const fs::path id = work_dir() / "join.id";
  fs::remove(id);
  const std::string run = "run " + path.string() + " --zeros --max-values 4 --place a=split --place out=gather ";

  const Result ok = vyre_cli(run + "--devices 0,1 --join " + id.string() + " --rank 0 --ranks 1", env);
  CHECK(ok.exit_code == 0);
  CHECK(ok.out_has("backend: cuda (rank 0 of 1 on device 0, group id file"));
  CHECK(ok.out_has("output 'out'"));
  CHECK_FALSE(fs::exists(id));  // rank 0 removed it once every rank joined
  // mpirun's environment: rank, size and local rank (device --devices[1]).
  const Result mpi = vyre_cli(run + "--devices 0,1 --join " + id.string(),
                              env + " OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=1 OMPI_COMM_WORLD_LOCAL_RANK=1");
  CHECK(mpi.exit_code == 0);
  CHECK(mpi.out_has("rank 0 of 1 on device 1"));
  // torchrun's.
  CHECK(vyre_cli(run + "--devices 0 --join " + id.string(), env + " RANK=0 WORLD_SIZE=1").exit_code == 0);
  // Usage errors (2): no rank known, rank out of range, no device for the local rank, --join
  // without --devices, --rank without --join.
  const Result unknown = vyre_cli(run + "--devices 0 --join " + id.string(), env);
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err_has("mpirun or torchrun"));
  CHECK(vyre_cli(run + "--devices 0 --join " + id.string() + " --rank 1 --ranks 1", env).exit_code == 2);
  CHECK(vyre_cli(run + "--devices 0 --join " + id.string() + " --rank 1 --ranks 2", env).exit_code == 2);
  CHECK(vyre_cli(run + "--join " + id.string() + " --rank 0 --ranks 1", env).exit_code == 2);
  CHECK(vyre_cli(run + "--devices 0 --rank 0 --ranks 1", env).exit_code == 2);
  // A stale id file: invalid_argument with its Fix.
  { std::ofstream stale(id); stale << "old"; }
  const Result stale = vyre_cli(run + "--devices 0 --join " + id.string() + " --rank 0 --ranks 1", env);
  CHECK(stale.exit_code == 1);
  CHECK(stale.err_has("already exists"));
  CHECK(stale.err_has("Fix:"));
  fs::remove(id);
}
#endif
#endif

TEST_CASE("vyre ops") {
  Result r = vyre_cli("ops");
  CHECK(r.exit_code == 0);
  CHECK(r.out_has("bin.add.u32"));
  CHECK(r.out_has("un.sin.f32"));
  CHECK(r.out_has("catalog hash"));
  r = vyre_cli(kTestPlugins + "ops --backend t_copy");
  CHECK(r.exit_code == 0);
  CHECK(r.out_has("bin.xor.u32"));
  CHECK_FALSE(r.out_has("bin.add.u32"));
  CHECK(r.out_has("t_copy: 10 ops"));
  r = vyre_cli(kTestPlugins + "ops --backend nope");
  CHECK(r.exit_code == 1);
  CHECK(r.err_has("available: t_nodev, t_copy, t_wide, t_throws, t_oracle"));
}

TEST_CASE("vyre validate prints every diagnostic") {
  Result r = vyre_cli("validate " + program_file("xor.json", BinOp::Xor));
  CHECK(r.exit_code == 0);
  CHECK(r.out_has("valid (3 buffers"));
  CHECK(r.out_has("bin.xor.u32"));
  r = vyre_cli("validate " + invalid_program_file());
  CHECK(r.exit_code == 1);
  CHECK(r.out_has("2 problem(s)"));
  CHECK(r.out_has("Fix: "));
  r = vyre_cli("validate " + (work_dir() / "missing.json").string());
  CHECK(r.exit_code == 1);
  CHECK(r.err_has("missing.json"));
  CHECK(vyre_cli("validate").exit_code == 2);
}

TEST_CASE("vyre run routes, prints typed values and hex, and checks its inputs") {
  const std::string xor_file = program_file("xor.json", BinOp::Xor);
  SUBCASE("routed to the best backend covering the ops") {
    const Result r = vyre_cli(kTestPlugins + "run " + xor_file + kInputs);
    CHECK_MESSAGE(r.exit_code == 0, r.err);
    CHECK(r.out_has("backend: t_copy"));
    CHECK(r.out_has("output 'out' (output u32[4], 16 bytes)"));
    CHECK(r.out_has("values: 6 5 4 3"));
    CHECK(r.out_has("hex: 06000000 05000000 04000000 03000000"));
  }
  SUBCASE("an add program goes to the backend that has add; -v says why") {
    const Result r = vyre_cli(kTestPlugins + "-v run " + program_file("add.json", BinOp::Add) + kInputs);
    CHECK(r.exit_code == 0);
    CHECK(r.out_has("backend: t_wide"));
    CHECK(r.out_has("values: 8 9 10 11"));
    CHECK(r.err_has("routing the program to 't_wide'"));
  }
  SUBCASE("--backend must succeed or fail loudly") {
    CHECK(vyre_cli(kTestPlugins + "run " + xor_file + kInputs + " --backend t_wide").out_has("backend: t_wide"));
    const Result r = vyre_cli(kTestPlugins + "run " + xor_file + kInputs + " --backend t_nodev");
    CHECK(r.exit_code == 1);
    CHECK(r.err_has("switched off"));
  }
  SUBCASE("VYRE_BACKEND too") {
    const Result r = vyre_cli(kTestPlugins + "run " + xor_file + kInputs, "VYRE_BACKEND=t_oracle");
    CHECK(r.exit_code == 0);
    CHECK(r.out_has("backend: t_oracle"));
  }
  SUBCASE("a missing input is a usage error naming it") {
    const Result r = vyre_cli(kTestPlugins + "run " + xor_file + " --input a=values:1,2,3,4");
    CHECK(r.exit_code == 2);
    CHECK(r.err_has("missing input 'b'"));
  }
  SUBCASE("an unknown input name is a usage error listing the inputs") {
    const Result r = vyre_cli(kTestPlugins + "run " + xor_file + kInputs + " --input c=hex:00");
    CHECK(r.exit_code == 2);
    CHECK(r.err_has("no input named 'c' (its inputs: a, b)"));
  }
  SUBCASE("inputs from files; outputs to --out DIR") {
    const fs::path a_file = work_dir() / "a.bin";
    std::ofstream(a_file, std::ios::binary).write("\x01\0\0\0\x02\0\0\0\x03\0\0\0\x04\0\0\0", 16);
    const fs::path out_dir = work_dir() / "outputs";
    const Result r = vyre_cli(kTestPlugins + "run " + xor_file + " --input a=" + a_file.string() +
                              " --input b=values:7,7,7,7 --out " + out_dir.string());
    CHECK(r.exit_code == 0);
    CHECK(r.out_has("wrote"));
    CHECK(slurp(out_dir / "out.bin") == std::string("\x06\0\0\0\x05\0\0\0\x04\0\0\0\x03\0\0\0", 16));
  }
  SUBCASE("fixed-size inputs: zeros only on request; wrong sizes fail in the backend's checks") {
    const std::string fixed = program_file("fixed.json", BinOp::Xor, true);
    CHECK(vyre_cli(kTestPlugins + "run " + fixed + " --input a=values:1,2,3,4").exit_code == 2);
    Result r = vyre_cli(kTestPlugins + "run " + fixed + " --input a=values:1,2,3,4 --zeros");
    CHECK(r.exit_code == 0);
    CHECK(r.out_has("values: 1 2 3 4"));
    r = vyre_cli(kTestPlugins + "run " + fixed + " --input a=values:1,2,3 --zeros");
    CHECK(r.exit_code == 1);
    CHECK(r.err_has("declared with 4"));
  }
  SUBCASE("config options reach the dispatch") {
    const Result r = vyre_cli(kTestPlugins + "run " + xor_file + kInputs + " --elements 2 --workgroup 1");
    CHECK(r.exit_code == 0);
    CHECK(r.out_has("values: 6 5 0 0"));
    CHECK(vyre_cli(kTestPlugins + "run " + xor_file + kInputs + " --grid x").exit_code == 2);
    CHECK(vyre_cli(kTestPlugins + "run " + xor_file + kInputs + " --iterations 0").exit_code == 2);
  }
  SUBCASE("an invalid program fails before any backend runs") {
    const Result r = vyre_cli(kTestPlugins + "run " + invalid_program_file() + " --input x=hex:");
    CHECK(r.exit_code == 1);
    CHECK(r.err_has("invalid_program"));
  }
  SUBCASE("bad values") {
    const Result r = vyre_cli(kTestPlugins + "run " + xor_file + " --input a=values:1,x --input b=hex:0");
    CHECK(r.exit_code == 2);
  }
  SUBCASE("input files that are devices, FIFOs or directories are refused unread (red team 2026-11-24)") {
    const fs::path fifo = work_dir() / "input.fifo";
    fs::remove(fifo);
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const std::pair<std::string, std::string> cases[] = {
        {"/dev/zero", "is a character device, not a regular file"},
        {fifo.string(), "is a FIFO, not a regular file"},
        {work_dir().string(), "is a directory, not a regular file"}};
    for (const auto& [path, problem] : cases) {
      CAPTURE(path);
      const Result r = vyre_cli(kTestPlugins + "run " + xor_file + " --input a=" + path + " --input b=values:1");
      CHECK(r.exit_code == 1);
      CHECK(r.err_has("vyre: error (io): input file for buffer 'a' '" + path + "' " + problem));
      CHECK(r.err_has("Fix:"));
    }
  }
}

TEST_CASE("running out of host memory is reported with its code and a fix") {
#if defined(__SANITIZE_ADDRESS__)
  MESSAGE("skipped under AddressSanitizer, which needs more address space than the limit this test sets");
#else
  // A 4 GiB output under a 2 GB address-space limit: the host's allocation fails.
  using namespace vyre::dsl;
  ProgramBuilder b;
  b.workgroup(64);
  Buf out = b.buffer("out", Access::Output, Type::U32, 1u << 30);
  b.store(out, u32(0), u32(1));
  const fs::path path = work_dir() / "huge_output.json";
  save_program_file(b.build(), path);
  const Result r = vyre_cli("run " + path.string() + " --elements 1 --max-values 1", "", "ulimit -v 2000000; ");
  CHECK(r.exit_code == 1);
  CHECK(r.err_has("vyre: error (out_of_memory): "));
  CHECK(r.err_has("Fix:"));
#endif
}

TEST_CASE("vyre run --timeout stops a run that loops for ever, with exit status 3") {
  // Nested 2^32 loops: hours of work on reference_cpu without a limit.
  using namespace vyre::dsl;
  ProgramBuilder b;
  b.workgroup(1);
  Buf out = b.buffer("out", Access::Output, Type::U32, 1);
  b.let("acc", u32(0));
  b.loop("j", u32(0), u32(0xFFFFFFFFu), [&](Expr j) {
    b.loop("k", u32(0), u32(0xFFFFFFFFu), [&](Expr k) { b.assign("acc", var("acc") + (j ^ k)); });
  });
  b.store(out, u32(0), var("acc"));
  const fs::path path = work_dir() / "forever.json";
  save_program_file(b.build(), path);
  const auto start = std::chrono::steady_clock::now();
  const Result r = vyre_cli("run " + path.string() + " --backend reference_cpu --timeout 300ms");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));  // generous for CI
  CHECK(r.exit_code == 3);
  CHECK(r.err_has("vyre: error (timeout): "));
  CHECK(r.err_has("Fix:"));
  CHECK_FALSE(r.out_has("output 'out'"));
  CHECK(vyre_cli("run " + path.string() + " --backend reference_cpu --timeout 3x").exit_code == 2);
  CHECK(vyre_cli("run " + path.string() + " --backend reference_cpu --timeout -1s").exit_code == 2);
  // A limit the run fits in changes nothing.
  const Result ok = vyre_cli("run " + program_file("timed.json", BinOp::Xor) + kInputs +
                             " --backend reference_cpu --timeout 1m");
  CHECK(ok.exit_code == 0);
  CHECK(ok.out_has("values: 6 5 4 3"));
}

TEST_CASE("vyre convert round-trips JSON and wire") {
  const std::string json = program_file("convert.json", BinOp::Xor);
  const fs::path wire = work_dir() / "convert.vyre";
  const fs::path back = work_dir() / "back.json";
  Result r = vyre_cli("convert " + json + " " + wire.string());
  CHECK(r.exit_code == 0);
  CHECK(r.out_has("(wire,"));
  CHECK(slurp(wire).substr(0, 4) == "VYRE");
  r = vyre_cli("convert " + wire.string() + " " + back.string());
  CHECK(r.exit_code == 0);
  CHECK(r.out_has("(json,"));
  CHECK(load_program_file(back) == load_program_file(json));
  CHECK(vyre_cli("validate " + wire.string()).exit_code == 0);
  CHECK(vyre_cli("convert " + (work_dir() / "nope.json").string() + " " + back.string()).exit_code == 1);
  CHECK(vyre_cli("convert " + json).exit_code == 2);
}
