// Command line of vyre-conform.
//
//   vyre-conform [--plugins DIR]... [--replace-backend ID]... [--backend ID]... [--reference ID]
//                [--ops GLOB]... [--cases N] [--seed S] [--exhaustive] [--offline [--target SM]]
//                [--out DIR] [--signing-key FILE] [--trusted-keys DIR] [--jobs N] [--case K]
//                [--no-progress]
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace vyre::conform {

struct Options {
  std::vector<std::string> plugin_dirs;
  std::vector<std::string> backends;      // empty: every dispatching backend that is not the oracle
  std::string reference = "reference_cpu";
  std::vector<std::string> op_globs;      // empty: every catalog op
  std::uint64_t random_lanes = 1024;      // --cases: random lanes per test
  std::uint64_t seed = 1;
  bool exhaustive = false;
  bool offline = false;
  std::string target = "sm_90";           // --offline target
  std::string out_dir = "certs";
  // The key certificates are signed with (created on first use); empty: VYRE_SIGNING_KEY, else
  // $XDG_CONFIG_HOME/vyre/keys/certificate-signing.pem (vyre/signing.hpp).
  std::string signing_key;
  // Where a newly created key's public key is added, so that routing here trusts what this user
  // certified; empty: VYRE_TRUSTED_KEYS, else $XDG_CONFIG_HOME/vyre/trusted-keys.
  std::string trusted_keys;
  std::vector<std::string> replace_backends;  // --replace-backend ID (RegistryOptions)
  unsigned jobs = 0;                      // 0: hardware threads
  // --case K: run only case K of the one selected op (with --exhaustive: only input K of its
  // exhaustive run); writes no certificate.
  std::optional<std::uint64_t> replay_case;
  // The exhaustive input range [exhaustive_first, exhaustive_first + exhaustive_count); the CLI
  // always runs all 2^32 inputs, tests narrow it.
  std::uint64_t exhaustive_first = 0;
  std::uint64_t exhaustive_count = std::uint64_t{1} << 32;
  bool progress = true;                   // a progress bar when stderr is a TTY
  bool help = false;
};

// A bad command line (exit status 2).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

Options parse_options(const std::vector<std::string>& args);
std::string usage_text();

// The catalog op ids matching any of the globs (all when empty), in catalog order. Throws
// UsageError when a glob matches nothing.
std::vector<std::string> select_ops(const std::vector<std::string>& globs);

// `word` as one shell word (quoted only when it needs to be).
std::string shell_quote(const std::string& word);

// The command line that reruns exactly one case of one op on one backend (with `exhaustive`, case
// K is the 32-bit input K of the exhaustive run).
std::string replay_command(const Options& options, const std::string& backend, const std::string& op,
                           std::uint64_t case_index, bool exhaustive = false);

}  // namespace vyre::conform
