// The registry: discovery, per-plugin validation, selection, routing, certificates, lifetimes.
#include <doctest/doctest.h>

#include <algorithm>

#include <fmt/core.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <thread>

#include "test_support.hpp"
#include "vyre/builder.hpp"
#include "vyre/certificate.hpp"
#include "vyre/certificate_trust.hpp"
#include "vyre/signing.hpp"
#include "vyre/fingerprint.hpp"
#include "vyre/ops.hpp"

using namespace vyre;
using vyre::testing::LogRecorder;
using vyre::testing::ScopedEnv;
using vyre::testing::binary_program;
using vyre::testing::code_of;
using vyre::testing::test_registry;

namespace {

std::string reason_for(const Registry& registry, std::string_view file) {
  for (const RejectedPlugin& r : registry.rejected())
    if (r.path.filename() == file) return r.reason;
  return "(not rejected)";
}

std::optional<PluginRejection> code_for(const Registry& registry, std::string_view file) {
  for (const RejectedPlugin& r : registry.rejected())
    if (r.path.filename() == file) return r.code;
  return std::nullopt;
}

std::string message_of(auto&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::vector<std::uint32_t> run_xor(host::Backend& backend, const std::vector<std::uint32_t>& a,
                                   const std::vector<std::uint32_t>& b) {
  host::Program program = backend.compile(binary_program(BinOp::Xor, static_cast<std::uint32_t>(a.size())));
  const host::Bytes inputs[] = {host::as_bytes(a), host::as_bytes(b)};
  return vyre::testing::words(backend.dispatch(program, inputs).at(0));
}

}  // namespace

TEST_CASE("good plugins load in rank order; each bad one is rejected with its own reason") {
  LogRecorder log;
  auto registry = test_registry(&log);
  CHECK(registry->ids() == std::vector<std::string>{"t_nodev", "t_copy", "t_wide", "t_throws", "t_oracle"});
  CHECK(registry->rejected().size() == 9);
  const std::map<std::string, PluginRejection> expected = {
      {"libvyre_t_dup.so", PluginRejection::duplicate_id},
      {"libvyre_t_badid.so", PluginRejection::bad_id},
      {"libvyre_t_unknownop.so", PluginRejection::unknown_op},
      {"libvyre_t_nullslot.so", PluginRejection::null_slot},
      {"libvyre_t_nosym.so", PluginRejection::no_entry_point},
      {"libvyre_t_abi2.so", PluginRejection::abi_major},
      {"libvyre_t_small.so", PluginRejection::struct_size},
      {"libvyre_t_regfail.so", PluginRejection::register_failed},
      {"libvyre_t_garbage.so", PluginRejection::load_failed},
  };
  for (const auto& [file, code] : expected) {
    INFO(file << ": " << reason_for(*registry, file));
    CHECK(code_for(*registry, file) == code);
  }
  // The reason names what the code cannot: the slot, the op, the file (dlerror).
  CHECK(reason_for(*registry, "libvyre_t_nullslot.so").find("sequence_run") != std::string::npos);
  CHECK(reason_for(*registry, "libvyre_t_unknownop.so").find("bin.frobnicate.u32") != std::string::npos);
  CHECK(reason_for(*registry, "libvyre_t_garbage.so").find("libvyre_t_garbage.so") != std::string::npos);

  for (const RejectedPlugin& r : registry->rejected()) {
    CHECK(r.reason.find('\n') == std::string::npos);
    CHECK(log.contains("rejected plugin " + r.path.string()));
  }
  const PluginInfo* copy = registry->find("t_copy");
  REQUIRE(copy != nullptr);
  CHECK(copy->rank == 10);
  CHECK(copy->version == "0.0.1-test");
  CHECK(copy->supports("bin.xor.u32"));
  CHECK_FALSE(copy->supports("bin.add.u32"));
  CHECK(std::is_sorted(copy->op_ids.begin(), copy->op_ids.end()));
  CHECK(copy->path.filename() == "libvyre_t_copy.so");
  CHECK(registry->find("t_oracle")->is_reference_oracle());
}

TEST_CASE("a directory under two spellings is searched and listed once") {
  RegistryOptions options;
  options.plugin_dirs = {VYRE_TEST_PLUGIN_DIR, std::string(VYRE_TEST_PLUGIN_DIR) + "/."};
  options.use_environment = false;
  options.use_default_dirs = false;
  Registry registry(options);
  CHECK(registry.plugins().size() == 5);
  CHECK(registry.rejected().size() == 9);
  REQUIRE(registry.search_dirs().size() == 1);
  CHECK(registry.search_dirs()[0] == std::filesystem::path(VYRE_TEST_PLUGIN_DIR));
}

TEST_CASE("VYRE_PLUGIN_PATH is searched, missing directories are skipped with a warning") {
  ScopedEnv path("VYRE_PLUGIN_PATH", "/nonexistent/vyre-plugins::" VYRE_TEST_PLUGIN_DIR);
  LogRecorder log;
  RegistryOptions options;
  options.use_default_dirs = false;
  options.log = log.sink();
  Registry registry(options);
  CHECK(registry.find("t_copy") != nullptr);
  CHECK(log.contains("/nonexistent/vyre-plugins does not exist"));
}

TEST_CASE("selection goes by rank, skips backends whose create fails, and takes the oracle last") {
  LogRecorder log;
  auto registry = test_registry(&log);
  Route route = registry->select();
  CHECK(route.plugin->id == "t_copy");
  CHECK(route.backend.label() == "t_copy");
  CHECK(log.contains("skipping backend 't_nodev'"));
  CHECK(log.contains("switched off"));
  CHECK_FALSE(log.contains("reference oracle"));
}

TEST_CASE("VYRE_BACKEND forces the backend or fails loudly") {
  SUBCASE("a loaded id") {
    ScopedEnv env("VYRE_BACKEND", "t_wide");
    auto registry = test_registry(nullptr, true);
    CHECK(registry->select().plugin->id == "t_wide");
    CHECK(registry->route(binary_program(BinOp::Xor, 4)).plugin->id == "t_wide");
  }
  SUBCASE("an unknown id lists the available ones") {
    ScopedEnv env("VYRE_BACKEND", "nope");
    auto registry = test_registry(nullptr, true);
    CHECK(code_of([&] { registry->select(); }) == VYRE_ERR_NOT_FOUND);
    const std::string message = message_of([&] { registry->select(); });
    CHECK(message.find("no backend 'nope'") != std::string::npos);
    CHECK(message.find("t_copy, t_wide") != std::string::npos);
  }
  SUBCASE("a backend that cannot be created is not replaced by another") {
    ScopedEnv env("VYRE_BACKEND", "t_nodev");
    auto registry = test_registry(nullptr, true);
    CHECK(code_of([&] { registry->select(); }) == VYRE_ERR_NO_DEVICE);
  }
  SUBCASE("a backend lacking the program's ops is an error, not a reroute") {
    ScopedEnv env("VYRE_BACKEND", "t_copy");
    auto registry = test_registry(nullptr, true);
    const std::string message = message_of([&] { registry->route(binary_program(BinOp::Add, 4)); });
    CHECK(message.find("VYRE_BACKEND=t_copy does not support") != std::string::npos);
    CHECK(message.find("bin.add.u32") != std::string::npos);
  }
}

TEST_CASE("the registry lock is not held while a plugin creates; one create per backend") {
  const std::filesystem::path gate =
      std::filesystem::temp_directory_path() / fmt::format("vyre_create_gate_{}", ::getpid());
  std::filesystem::remove(gate);
  const std::string gate_spec = "t_wide:" + gate.string();
  ScopedEnv env("VYRE_TEST_CREATE_GATE", gate_spec.c_str());
  LogRecorder log;
  auto registry = test_registry(&log);
  auto first = std::async(std::launch::async, [&] { return registry->backend("t_wide"); });
  auto second = std::async(std::launch::async, [&] { return registry->backend("t_wide"); });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!log.contains("creating an instance of t_wide") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  REQUIRE(log.contains("creating an instance of t_wide"));
  // t_wide's create waits for the gate: everything else goes on meanwhile.
  CHECK(registry->backend("t_copy").label() == "t_copy");
  CHECK(registry->select().plugin->id == "t_copy");
  CHECK(registry->route(binary_program(BinOp::Xor, 4)).plugin->id == "t_copy");
  CHECK_FALSE(registry->probe("t_copy").has_value());
  CHECK(first.wait_for(std::chrono::milliseconds(0)) == std::future_status::timeout);
  { std::ofstream open_gate(gate); }
  const host::Backend a = first.get();
  const host::Backend b = second.get();
  std::filesystem::remove(gate);
  CHECK(a.native() == b.native());  // the one default instance, created once
  CHECK(registry->backend("t_wide").native() == a.native());
}

TEST_CASE("explicit ids must succeed or fail loudly; probe reports why create fails") {
  auto registry = test_registry();
  host::Backend wide = registry->create("t_wide");
  CHECK(wide.label() == "t_wide");
  const std::string missing = message_of([&] { registry->create("t_missing"); });
  CHECK(missing.find("available: t_nodev, t_copy, t_wide, t_throws, t_oracle") != std::string::npos);
  CHECK(missing.find("Fix: ") != std::string::npos);
  CHECK(code_of([&] { registry->create("t_nodev"); }) == VYRE_ERR_NO_DEVICE);
  CHECK_FALSE(registry->probe("t_copy").has_value());
  REQUIRE(registry->probe("t_nodev").has_value());
  CHECK(registry->probe("t_nodev")->find("switched off") != std::string::npos);
}

TEST_CASE("routing picks the best-ranked available backend covering the program's ops") {
  LogRecorder log;
  auto registry = test_registry(&log);
  SUBCASE("xor: the best rank that has it, not the oracle") {
    Route route = registry->route(binary_program(BinOp::Xor, 8));
    CHECK(route.plugin->id == "t_copy");
    CHECK(std::find(route.ops.begin(), route.ops.end(), "bin.xor.u32") != route.ops.end());
    CHECK(run_xor(route.backend, {1, 2, 3}, {3, 3, 3}) == std::vector<std::uint32_t>{2, 1, 0});
  }
  SUBCASE("add: only t_wide (and the oracle) declare it") {
    CHECK(registry->route(binary_program(BinOp::Add, 8)).plugin->id == "t_wide");
  }
  SUBCASE("sub: t_nodev cannot run here, so the oracle as the last resort") {
    Route route = registry->route(binary_program(BinOp::Sub, 8));
    CHECK(route.plugin->id == "t_oracle");
    CHECK(route.reason.find("last resort") != std::string::npos);
    CHECK(log.contains("skipping backend 't_nodev'"));
    CHECK(log.contains("reference oracle as the last resort"));
  }
  SUBCASE("mul: nobody has it; the error says what each backend lacks") {
    const std::string message = message_of([&] { registry->route(binary_program(BinOp::Mul, 8)); });
    CHECK(message.find("no available backend can run the program") != std::string::npos);
    CHECK(message.find("t_copy lacks bin.mul.u32") != std::string::npos);
    CHECK(code_of([&] { registry->route(binary_program(BinOp::Mul, 8)); }) == VYRE_ERR_UNSUPPORTED);
  }
  SUBCASE("the config's ops count too") {
    DispatchConfig config;
    config.fixpoint_iterations = 3;
    Route route = registry->route(binary_program(BinOp::Xor, 8), &config);
    CHECK(route.plugin->id == "t_copy");
    CHECK(std::find(route.ops.begin(), route.ops.end(), "dispatch.fixpoint") != route.ops.end());
    // t_wide has add but not dispatch.fixpoint: only the oracle covers both.
    CHECK(registry->route(binary_program(BinOp::Add, 8), &config).plugin->id == "t_oracle");
    CHECK(registry->route(binary_program(BinOp::Add, 8)).plugin->id == "t_wide");
  }
  SUBCASE("instances are shared between routes") {
    Route a = registry->route(binary_program(BinOp::Xor, 8));
    Route b = registry->route(binary_program(BinOp::Xor, 16));
    CHECK(a.backend.native() == b.backend.native());
  }
}

TEST_CASE("certified ops replace declared ops for routing") {
  auto registry = test_registry();
  std::vector<std::string> certified = registry->find("t_copy")->op_ids;
  certified.erase(std::find(certified.begin(), certified.end(), "bin.xor.u32"));
  registry->set_certified_ops("t_copy", certified);
  CHECK(registry->has_certified_ops("t_copy"));
  CHECK(registry->route(binary_program(BinOp::Xor, 4)).plugin->id == "t_wide");
  registry->clear_certified_ops("t_copy");
  CHECK(registry->route(binary_program(BinOp::Xor, 4)).plugin->id == "t_copy");
  CHECK(code_of([&] { registry->set_certified_ops("t_missing", {}); }) == VYRE_ERR_NOT_FOUND);
}

namespace {

// A differential certificate for `plugin` on the device of `backend`, passing `passing` ops.
Certificate certificate_for(const PluginInfo& plugin, host::Backend& backend,
                            const std::vector<std::string>& passing) {
  Certificate c;
  c.tool_version = "vyre-conform test";
  c.abi_version = "1.0";
  c.backend_id = plugin.id;
  c.backend_version = plugin.version;
  c.plugin_path = plugin.path.string();
  c.plugin_sha256 = sha256_file_hex(plugin.path);
  c.device = device_from_profile(backend.device_profile());
  c.reference_backend = "t_oracle";
  c.catalog_hash = catalog_hash();
  c.timestamp = "2026-11-21T00:00:00Z";
  for (const std::string& op : plugin.op_ids) {
    CertOpEntry entry;
    entry.op = op;
    const bool pass = std::find(passing.begin(), passing.end(), op) != passing.end();
    entry.status = pass ? CertStatus::Pass : CertStatus::Unsupported;
    entry.cases = pass ? 10 : 0;
    if (!pass) entry.reason = "not run";
    c.ops.push_back(entry);
  }
  c.summary = summarize(c.ops);
  return c;
}

}  // namespace

TEST_CASE("with certificates in force, routing goes only by accepted certificates") {
  const std::filesystem::path root =
      std::filesystem::temp_directory_path() / fmt::format("vyre-certs-{}", ::getpid());
  std::filesystem::remove_all(root);
  const std::filesystem::path dir = root / "certs";
  const std::filesystem::path trusted = root / "trusted";
  const SigningKey key = SigningKey::generate();
  write_public_key(key.public_key(), trusted / "conform.pem");
  Certificate xor_certificate;
  {
    auto plain = test_registry();
    host::Backend copy = plain->backend("t_copy");
    xor_certificate = certificate_for(*plain->find("t_copy"), copy, ops_used(binary_program(BinOp::Xor, 8)));
    sign_certificate(xor_certificate, key);
    write_certificate(xor_certificate, dir);
  }
  LogRecorder log;
  auto registry = test_registry(&log, false, dir, trusted);
  REQUIRE(registry->certificates_enabled());
  // t_copy's certificate covers xor: it routes there, by its certificate.
  Route xor_route = registry->route(binary_program(BinOp::Xor, 8));
  CHECK(xor_route.plugin->id == "t_copy");
  CHECK(xor_route.reason.find("by its certificate") != std::string::npos);
  CHECK(registry->routing_ops("t_copy") == ops_used(binary_program(BinOp::Xor, 8)));
  // t_wide declares add but has no certificate: it routes nothing; the oracle takes add.
  CHECK(registry->route(binary_program(BinOp::Add, 8)).plugin->id == "t_oracle");
  CHECK(log.contains("backend 't_wide' has no accepted certificate"));

  // Each way a certificate can be wrong leaves t_copy without certified ops, logged with its code.
  auto routed_by = [&](const Certificate& c, const std::string& code) {
    std::filesystem::remove_all(dir);
    write_certificate(c, dir);
    LogRecorder log2;
    auto other = test_registry(&log2, false, dir, trusted);
    const std::string id = other->route(binary_program(BinOp::Xor, 8)).plugin->id;
    INFO(log2.all());
    CHECK(log2.contains("ignored for 't_copy' [" + code + "]"));
    return id;
  };
  SUBCASE("a certificate of another plugin file (its SHA-256, re-signed by the trusted key)") {
    Certificate c = xor_certificate;
    c.plugin_sha256 = std::string(64, '0');
    sign_certificate(c, key);
    CHECK(routed_by(c, "other_plugin") == "t_oracle");
  }
  SUBCASE("the loaded file's SHA-256 written into another plugin's certificate (not re-signed)") {
    Certificate c = xor_certificate;
    c.plugin_sha256 = std::string(64, '0');
    sign_certificate(c, key);
    c.plugin_sha256 = xor_certificate.plugin_sha256;
    CHECK(routed_by(c, "bad_signature") == "t_oracle");
  }
  SUBCASE("signed by a key that is not trusted") {
    Certificate c = xor_certificate;
    sign_certificate(c, SigningKey::generate());
    CHECK(routed_by(c, "untrusted_key") == "t_oracle");
  }
  SUBCASE("not signed") {
    Certificate c = xor_certificate;
    c.signature.reset();
    CHECK(routed_by(c, "not_signed") == "t_oracle");
  }
  std::filesystem::remove_all(root);
}

TEST_CASE("plugin log messages reach the registry's sink with the plugin id") {
  LogRecorder log;
  auto registry = test_registry(&log);
  registry->create("t_copy");
  CHECK(log.contains("[t_copy] creating an instance of t_copy"));
}

TEST_CASE("a library stays loaded while anything made from it lives") {
  host::Backend backend;
  host::Program program;
  {
    auto registry = test_registry();
    backend = registry->create("t_copy");
    program = backend.compile(binary_program(BinOp::Xor, 2));
  }
  const std::vector<std::uint32_t> a = {5, 6}, b = {1, 1};
  const host::Bytes inputs[] = {host::as_bytes(a), host::as_bytes(b)};
  CHECK(vyre::testing::words(backend.dispatch(program, inputs).at(0)) ==
        std::vector<std::uint32_t>{4, 7});
}

TEST_CASE("exceptions thrown inside a plugin come back as errors with their codes") {
  auto registry = test_registry();
  host::Backend backend = registry->create("t_throws");
  SUBCASE("std::runtime_error -> internal, with its what()") {
    Program p = binary_program(BinOp::Xor, 4);
    p.workgroup_size = {7, 1, 1};
    const std::string message = message_of([&] { backend.compile(p); });
    CHECK(code_of([&] { backend.compile(p); }) == VYRE_ERR_INTERNAL);
    CHECK(message.find("boom in compile") != std::string::npos);
    CHECK(message.find("t_throws") != std::string::npos);
    CHECK(message.find("Fix: ") != std::string::npos);
  }
  SUBCASE("std::bad_alloc -> out of memory") {
    host::Program program = backend.compile(binary_program(BinOp::Xor, 1));
    const std::vector<std::uint32_t> a = {1}, b = {2};
    const host::Bytes inputs[] = {host::as_bytes(a), host::as_bytes(b)};
    CHECK(code_of([&] { backend.dispatch(program, inputs); }) == VYRE_ERR_OUT_OF_MEMORY);
  }
  SUBCASE("a non-standard exception -> internal") {
    CHECK(code_of([&] { backend.device_profile(); }) == VYRE_ERR_INTERNAL);
    CHECK(message_of([&] { backend.device_profile(); }).find("non-standard exception") !=
          std::string::npos);
  }
  SUBCASE("vyre::Error keeps its code and message") {
    CHECK(code_of([&] { backend.metrics(); }) == VYRE_ERR_DEVICE);
    CHECK(message_of([&] { backend.metrics(); }).find("metrics exploded") != std::string::npos);
  }
}

TEST_CASE("capability names") {
  CHECK(capability_names(VYRE_CAP_DISPATCH | VYRE_CAP_REFERENCE_ORACLE) ==
        std::vector<std::string_view>{"dispatch", "reference_oracle"});
  CHECK(capability_names(0).empty());
}
