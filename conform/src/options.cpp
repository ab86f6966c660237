#include "vyre/conform/options.hpp"

#include <fnmatch.h>

#include <charconv>
#include <filesystem>
#include <thread>

#include "vyre/ops.hpp"

namespace vyre::conform {
namespace {

std::uint64_t parse_number(const std::string& flag, const std::string& text) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const int base = text.rfind("0x", 0) == 0 ? 16 : 10;
  const char* begin = text.data() + (base == 16 ? 2 : 0);
  const auto [ptr, ec] = std::from_chars(begin, end, value, base);
  if (ec != std::errc() || ptr != end || begin == end)
    throw UsageError(flag + " needs a non-negative integer, got '" + text + "'");
  return value;
}

}  // namespace

std::string shell_quote(const std::string& word) {
  if (word.find_first_of(" \t'\"*?[]$\\;&|<>()") == std::string::npos && !word.empty()) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

Options parse_options(const std::vector<std::string>& args) {
  Options o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
      return args[++i];
    };
    if (a == "--plugins") o.plugin_dirs.push_back(value());
    else if (a == "--backend") o.backends.push_back(value());
    else if (a == "--reference") o.reference = value();
    else if (a == "--ops") o.op_globs.push_back(value());
    else if (a == "--cases") o.random_lanes = parse_number(a, value());
    else if (a == "--seed") o.seed = parse_number(a, value());
    else if (a == "--exhaustive") o.exhaustive = true;
    else if (a == "--offline") o.offline = true;
    else if (a == "--target") o.target = value();
    else if (a == "--out") o.out_dir = value();
    else if (a == "--signing-key") o.signing_key = value();
    else if (a == "--trusted-keys") o.trusted_keys = value();
    else if (a == "--replace-backend") o.replace_backends.push_back(value());
    else if (a == "--jobs") o.jobs = static_cast<unsigned>(parse_number(a, value()));
    else if (a == "--case") o.replay_case = parse_number(a, value());
    else if (a == "--no-progress") o.progress = false;
    else if (a == "--help" || a == "-h") o.help = true;
    else throw UsageError("unknown argument '" + a + "'");
  }
  if (o.jobs == 0) o.jobs = std::max(1u, std::thread::hardware_concurrency());
  if (o.offline && o.exhaustive) throw UsageError("--offline and --exhaustive exclude each other");
  if (o.replay_case && o.offline) throw UsageError("--case replays a differential case; drop --offline");
  if (o.replay_case && o.backends.size() != 1) throw UsageError("--case needs exactly one --backend");
  return o;
}

std::string usage_text() {
  return "usage: vyre-conform [--plugins DIR]... [--replace-backend ID]... [--backend ID]...\n"
         "                    [--reference ID] [--ops GLOB]... [--cases N] [--seed S] [--exhaustive]\n"
         "                    [--offline [--target SM]] [--out DIR] [--signing-key FILE]\n"
         "                    [--trusted-keys DIR] [--jobs N] [--case K] [--no-progress]\n"
         "\n"
         "Certifies backends against the reference (default reference_cpu): every catalog op's\n"
         "programs are fed the witness tables of SPEC §5 crossed pairwise plus N seeded random\n"
         "lanes (default 1024) and compared by the SPEC §5 policy; the dispatch surfaces the\n"
         "backend declares are checked against plain dispatch. A certificate per backend and\n"
         "device is written to --out (default certs/), signed (Ed25519) with --signing-key\n"
         "(default $VYRE_SIGNING_KEY, else $XDG_CONFIG_HOME/vyre/keys/certificate-signing.pem,\n"
         "created on first use, mode 600; its public key is added to --trusted-keys, default\n"
         "$VYRE_TRUSTED_KEYS, else $XDG_CONFIG_HOME/vyre/trusted-keys, which routing trusts).\n"
         "A --plugins backend replaces one of vyre's by id only with --replace-backend; a note is\n"
         "printed when the reference is not the oracle vyre ships (pinned).\n"
         "  --exhaustive  also run every unary f32 op over all 2^32 inputs\n"
         "  --offline     no device: lower every op through the plugin's AOT emit for --target\n"
         "                (default sm_90) and assemble it with ptxas (VYRE_PTXAS or PATH)\n"
         "  --case K      replay case K of the single op selected by --ops (printed on failures)\n"
         "Exit status: 0 nothing failed, 1 a failure, 2 a usage error.\n";
}

std::vector<std::string> select_ops(const std::vector<std::string>& globs) {
  std::vector<std::string> ids;
  std::vector<bool> used(globs.size(), false);
  for (const OpInfo& op : op_catalog()) {
    bool match = globs.empty();
    for (std::size_t g = 0; g < globs.size(); ++g) {
      if (fnmatch(globs[g].c_str(), op.id.c_str(), 0) != 0) continue;
      match = true;
      used[g] = true;
    }
    if (match) ids.push_back(op.id);
  }
  for (std::size_t g = 0; g < globs.size(); ++g)
    if (!used[g]) throw UsageError("--ops '" + globs[g] + "' matches no op id (list them with `vyre ops`)");
  return ids;
}

std::string replay_command(const Options& o, const std::string& backend, const std::string& op,
                           std::uint64_t case_index, bool exhaustive) {
  std::string cmd = "vyre-conform";
  for (const auto& dir : o.plugin_dirs) cmd += " --plugins " + shell_quote(std::filesystem::absolute(dir).string());
  cmd += " --backend " + shell_quote(backend);
  cmd += " --reference " + shell_quote(o.reference);
  cmd += " --ops " + shell_quote(op);
  cmd += " --seed " + std::to_string(o.seed);
  cmd += " --cases " + std::to_string(o.random_lanes);
  if (exhaustive) cmd += " --exhaustive";
  cmd += " --case " + std::to_string(case_index);
  return cmd;
}

}  // namespace vyre::conform
