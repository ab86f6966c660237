#include "vyre/conform/runner.hpp"

#include <unistd.h>

#include <atomic>
#include <mutex>
#include <chrono>
#include <ctime>
#include <thread>

#include "certify.hpp"
#include "vyre/certificate_trust.hpp"
#include "vyre/registry_log.hpp"
#include "vyre/signing.hpp"
#include "vyre/error.hpp"
#include "vyre/fingerprint.hpp"

#ifndef VYRE_CONFORM_VERSION
#define VYRE_CONFORM_VERSION "0.0.0"
#endif

namespace vyre::conform {
namespace {

using detail::Candidate;

struct Run {
  const Options& options;
  std::ostream& out;
  std::ostream& err;
  Reporter reporter;
  bool failed = false;
  std::optional<SigningKey> key;  // loaded (or created) when the first certificate is written
};

// A key made here is trusted here: its public key joins the trusted-keys directory, so that
// routing on this account uses what this account certified.
void trust_own_key(Run& run, const SigningKey& key) {
  const std::filesystem::path dir =
      run.options.trusted_keys.empty() ? default_trusted_keys_dir() : std::filesystem::path(run.options.trusted_keys);
  const PublicKey pub = key.public_key();
  const std::filesystem::path file = dir / ("certificate-signing-" + pub.id().substr(0, 16) + ".pem");
  write_public_key(pub, file);
  run.out << "trusted its public key for routing on this account: " << file.string() << "\n";
}

const SigningKey& signing_key(Run& run) {
  if (run.key) return *run.key;
  const std::filesystem::path file =
      run.options.signing_key.empty() ? default_signing_key_file() : std::filesystem::path(run.options.signing_key);
  bool created = false;
  run.key = SigningKey::load_or_create(file, &created);
  if (created) {
    run.out << "created the signing key " << file.string() << " (mode 600; public key "
            << public_key_file_for(file).string() << ")\n";
    trust_own_key(run, *run.key);
  }
  return *run.key;
}

std::string device_text(const CertDevice& d) {
  if (d == CertDevice{}) return "cpu";
  if (d.kind == "offline") return "no device (offline, " + d.target + ")";
  return d.name + " (compute " + d.compute_capability + ", driver " + std::to_string(d.driver_version) + ")";
}

bool is_exhaustive_op(const OpInfo& op) { return op.family == OpFamily::Un && op.type == Type::F32; }

Certificate base_certificate(const PluginInfo& plugin, const Options& o) {
  Certificate c;
  c.tool_version = "vyre-conform " VYRE_CONFORM_VERSION;
  c.abi_version = std::to_string(VYRE_ABI_VERSION_MAJOR) + "." + std::to_string(VYRE_ABI_VERSION_MINOR);
  c.backend_id = plugin.id;
  c.backend_version = plugin.version;
  c.plugin_path = plugin.path.string();
  c.plugin_sha256 = plugin.sha256;  // of the file the registry loaded
  c.seed = o.seed;
  c.random_lanes = o.random_lanes;
  c.catalog_hash = catalog_hash();
  c.timestamp = detail::utc_timestamp();
  return c;
}

void finish_certificate(Run& run, Certificate& c) {
  c.summary = summarize(c.ops);
  for (const auto& op : c.ops)
    if (op.status == CertStatus::Fail || op.status == CertStatus::LoweringFailed) run.failed = true;
  for (const auto& s : c.surfaces)
    if (s.status == CertStatus::Fail) run.failed = true;
  run.out << "\n" << c.backend_id << " on " << device_text(c.device) << ":\n" << summary_table(c);
  for (const auto& s : c.surfaces)
    run.out << "surface " << s.surface << ": " << cert_status_name(s.status)
            << (s.detail.empty() ? "" : " (" + s.detail + ")") << "\n";
  if (run.options.replay_case) return;  // a replay certifies nothing
  sign_certificate(c, signing_key(run));
  const auto path = write_certificate(c, run.options.out_dir);
  run.out << "certificate: " << path.string() << " (signed by key " << c.signature->key_id.substr(0, 16) << "...)\n";
}

// Certify ops in parallel; entries stay in catalog order whatever the scheduling.
std::vector<CertOpEntry> certify_ops(Run& run, const Candidate& candidate, const host::Backend& reference,
                                     const std::vector<std::string>& ops, detail::LaneTotals& totals) {
  std::vector<CertOpEntry> entries(ops.size());
  std::atomic<std::size_t> next{0};
  std::exception_ptr usage;
  std::mutex usage_mutex;
  run.reporter.start(candidate.plugin->id, ops.size());
  auto worker = [&] {
    for (std::size_t i = next++; i < ops.size(); i = next++) {
      const OpInfo& op = *find_op(ops[i]);
      try {
        entries[i] = detail::certify_op(op, candidate, reference, run.options, totals);
      } catch (const UsageError&) {
        std::lock_guard lock(usage_mutex);
        usage = std::current_exception();
      } catch (const std::exception& e) {
        entries[i].op = op.id;
        entries[i].status = CertStatus::Fail;
        entries[i].first_failure = CertFailure{"", 0, "", 0, {}, "", "", std::nullopt, e.what(), ""};
      }
      if (entries[i].status == CertStatus::Fail)
        run.reporter.print(detail::failure_report(candidate.plugin->id, entries[i]));
      run.reporter.advance();
    }
  };
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < std::max(1u, run.options.jobs); ++w) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  run.reporter.finish();
  if (usage) std::rethrow_exception(usage);
  return entries;
}

void run_exhaustive(Run& run, const Candidate& candidate, const host::Backend& reference,
                    std::vector<CertOpEntry>& entries) {
  for (auto& entry : entries) {
    const OpInfo& op = *find_op(entry.op);
    if (!is_exhaustive_op(op) || entry.status == CertStatus::Unsupported) continue;
    entry.exhaustive = detail::certify_exhaustive(op, candidate, reference, run.options, run.reporter);
    if (entry.exhaustive->status != CertStatus::Fail) continue;
    entry.status = CertStatus::Fail;
    if (!entry.first_failure) entry.first_failure = entry.exhaustive->first_failure;
    CertOpEntry shown = entry;
    shown.status = CertStatus::Unsupported;  // print only the exhaustive part
    run.reporter.print(detail::failure_report(candidate.plugin->id, shown));
  }
}

void certify_backend(Run& run, Registry& registry, const PluginInfo& plugin, const host::Backend& reference,
                     const std::vector<std::string>& ops) {
  Candidate candidate{&plugin, registry.create(plugin.id)};
  Certificate c = base_certificate(plugin, run.options);
  c.device = device_from_profile(candidate.instance.device_profile());
  c.reference_backend = run.options.reference;
  run.out << "certifying " << plugin.id << " " << plugin.version << " (" << plugin.path.string() << ") on "
          << device_text(c.device) << " against " << run.options.reference << ": " << ops.size()
          << " ops, seed " << run.options.seed << ", " << run.options.random_lanes << " random lanes per test\n";
  detail::LaneTotals totals;
  if (!(run.options.exhaustive && run.options.replay_case)) c.ops = certify_ops(run, candidate, reference, ops, totals);
  if (run.options.exhaustive) {
    if (c.ops.empty())
      for (const auto& id : ops) c.ops.push_back(CertOpEntry{id, CertStatus::Pass, 0, 0, "", {}, {}});
    run_exhaustive(run, candidate, reference, c.ops);
  }
  c.witness_cases = totals.witness;
  c.random_cases = totals.random;
  if (!run.options.replay_case) c.surfaces = detail::certify_surfaces(candidate, run.options, c.ops);
  finish_certificate(run, c);
}

void lower_backend(Run& run, Registry& registry, const PluginInfo& plugin, const std::vector<std::string>& ops) {
  Certificate c = base_certificate(plugin, run.options);
  c.mode = "offline";
  c.device = CertDevice{"offline", "none", "", 0, run.options.target};
  run.out << "lowering " << plugin.id << " " << plugin.version << " (" << plugin.path.string() << ") for "
          << run.options.target << " with ptxas: " << ops.size() << " ops\n";
  c.ops = detail::lower_offline(registry, plugin, ops, run.options, run.reporter);
  for (const auto& e : c.ops)
    if (e.status == CertStatus::LoweringFailed) run.out << detail::failure_report(plugin.id, e);
  finish_certificate(run, c);
}

std::vector<const PluginInfo*> chosen_backends(const Registry& registry, const Options& o) {
  std::vector<const PluginInfo*> chosen;
  for (const auto& id : o.backends) {
    const PluginInfo* p = registry.find(id);
    if (!p) {
      std::string known;
      for (const auto& k : registry.ids()) known += (known.empty() ? "" : ", ") + k;
      throw UsageError("--backend '" + id + "' is not a loaded plugin (loaded: " + (known.empty() ? "none" : known) + ")");
    }
    chosen.push_back(p);
  }
  if (!o.backends.empty()) return chosen;
  for (const auto& p : registry.plugins()) {
    if (p.is_reference_oracle()) continue;
    if (o.offline ? p.has(VYRE_CAP_AOT) : p.has(VYRE_CAP_DISPATCH)) chosen.push_back(&p);
  }
  return chosen;
}

void run_backends(Run& run) {
  const Options& o = run.options;
  const auto ops = select_ops(o.op_globs);
  if (o.replay_case && ops.size() != 1)
    throw UsageError("--case needs --ops to select exactly one op (it selects " + std::to_string(ops.size()) + ")");
  RegistryOptions ro;
  for (const auto& d : o.plugin_dirs) ro.plugin_dirs.emplace_back(d);
  ro.replace_backends = o.replace_backends;
  // Warnings (rejected plugins with their codes, replacements, an unpinned oracle claim), from
  // any thread: plugins log while they run.
  ro.log = [&run, mutex = std::make_shared<std::mutex>()](int level, std::string_view message) {
    if (level < VYRE_LOG_WARN) return;
    std::lock_guard lock(*mutex);
    run.err << "vyre-conform: " << message << "\n";
  };
  Registry registry(std::move(ro));
  const auto backends = chosen_backends(registry, o);
  if (backends.empty()) {
    run.out << "vyre-conform: no backend to certify (loaded: " << registry.plugins().size()
            << " plugins; the reference oracle is never certified implicitly)\n";
    return;
  }
  host::Backend reference;
  if (!o.offline) {
    reference = registry.create(o.reference);
    const PluginInfo* ref = registry.find(o.reference);
    if (ref != nullptr && !ref->is_reference_oracle())
      run.out << "note: the reference '" << o.reference << "' (" << ref->path.string()
              << ") is not the oracle vyre ships; the certificates record it as their reference\n";
  }
  for (const PluginInfo* p : backends) {
    try {
      if (o.offline) lower_backend(run, registry, *p, ops);
      else certify_backend(run, registry, *p, reference, ops);
    } catch (const UsageError&) {
      throw;
    } catch (const Error& e) {
      const bool explicit_choice = !o.backends.empty();
      run.err << "vyre-conform: " << (explicit_choice ? "cannot certify " : "skipped ") << p->id << ": " << e.what() << "\n";
      if (explicit_choice || o.offline) run.failed = true;
    }
  }
}

}  // namespace

namespace detail {
std::string utc_timestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}
}  // namespace detail

int run(const Options& options, std::ostream& out, std::ostream& err) {
  Run run{options, out, err, Reporter(out, err, options.progress && ::isatty(STDERR_FILENO)), false, std::nullopt};
  try {
    run_backends(run);
  } catch (const UsageError& e) {
    err << "vyre-conform: " << e.what() << "\n" << usage_text();
    return 2;
  } catch (...) {  // with its stable code and a Fix (vyre::Error, bad_alloc, iostream, ...)
    const Error e = current_exception_as_error();
    err << "vyre-conform: error (" << status_name(e.code()) << "): " << e.what() << "\n";
    return 1;
  }
  return run.failed ? 1 : 0;
}

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Options options;
  try {
    options = parse_options(args);
  } catch (const UsageError& e) {
    err << "vyre-conform: " << e.what() << "\n" << usage_text();
    return 2;
  }
  if (options.help) {
    out << usage_text();
    return 0;
  }
  return run(options, out, err);
}

}  // namespace vyre::conform
