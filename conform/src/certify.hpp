// Private to conform: certifying one backend (differential, surfaces, exhaustive) or lowering it
// offline, producing the certificate.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "vyre/backend.hpp"
#include "vyre/certificate.hpp"
#include "vyre/conform/options.hpp"
#include "vyre/conform/report.hpp"
#include "vyre/ops.hpp"
#include "vyre/registry.hpp"

namespace vyre::conform::detail {

struct Candidate {
  const PluginInfo* plugin = nullptr;
  host::Backend instance;
};

struct LaneTotals {
  std::atomic<std::uint64_t> witness{0};
  std::atomic<std::uint64_t> random{0};
};

// Why `plugin` cannot run `op`'s tests: the op, or another op its programs use, is not declared.
// Empty when it can.
std::string unsupported_reason(const OpInfo& op, const PluginInfo& plugin);

// Differential certification of one op. With options.replay_case, only that case runs.
CertOpEntry certify_op(const OpInfo& op, const Candidate& candidate, const host::Backend& reference,
                       const Options& options, LaneTotals& totals);

// Every 32-bit input of a unary f32 op (or, with options.replay_case, input K only).
CertExhaustive certify_exhaustive(const OpInfo& op, const Candidate& candidate,
                                  const host::Backend& reference, const Options& options,
                                  Reporter& reporter);

// async / timed / resident / sequence / pipeline against plain dispatch, on a sample of programs
// whose ops passed.
std::vector<CertSurface> certify_surfaces(const Candidate& candidate, const Options& options,
                                          const std::vector<CertOpEntry>& entries);

// Lower every selected op through the plugin's AOT emit and assemble the PTX with ptxas.
// Throws vyre::Error when the offline path is unavailable (no ptxas, no AOT emit).
std::vector<CertOpEntry> lower_offline(const Registry& registry, const PluginInfo& plugin,
                                       const std::vector<std::string>& ops, const Options& options,
                                       Reporter& reporter);

// Print one op's failure (or nothing when it passed).
std::string failure_report(const std::string& backend, const CertOpEntry& entry);

// UTC now as "2025-06-01T12:00:00Z".
std::string utc_timestamp();

}  // namespace vyre::conform::detail
