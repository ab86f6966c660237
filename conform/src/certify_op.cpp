// Differential certification of one op: every test of the op, every case, against the reference.
#include <algorithm>
#include <sstream>

#include "certify.hpp"
#include "vyre/error.hpp"
#include "vyre/conform/compare.hpp"
#include "vyre/conform/differential.hpp"
#include "vyre/conform/op_programs.hpp"

namespace vyre::conform::detail {
namespace {

CertFailure to_failure(const TestResult& r, std::uint64_t case_offset, std::uint64_t first_case,
                       const std::string& test_name) {
  CertFailure f;
  f.test = test_name;
  if (r.first) {
    const Mismatch& m = *r.first;
    f.case_index = case_offset + m.case_index;
    f.output = m.output;
    f.element = m.element;
    f.inputs = m.inputs;
    f.expected = format_value(m.storage, m.expected);
    f.actual = format_value(m.storage, m.actual);
    f.ulp = m.ulp;
    f.message = std::to_string(r.mismatches) + " of " + std::to_string(r.compared) +
                " compared elements differ";
    return f;
  }
  f.case_index = case_offset + first_case;
  f.message = r.error.value_or("");
  if (r.cases > 1)
    f.message += " (the batch of cases " + std::to_string(case_offset + first_case) + " to " +
                 std::to_string(case_offset + first_case + r.cases - 1) + " failed as a whole)";
  return f;
}

}  // namespace

std::string unsupported_reason(const OpInfo& op, const PluginInfo& plugin) {
  if (!plugin.supports(op.id)) return "'" + plugin.id + "' does not declare it";
  for (const OpTest& test : op_tests(op)) {
    const BuiltTest built = test.build(1);
    for (const std::string& used : ops_used(built.program, built.config))
      if (!plugin.supports(used))
        return "its test program '" + test.name + "' also uses " + used + ", which '" + plugin.id +
               "' does not declare";
  }
  return {};
}

// A plugin declares the ops it can lower; an instance may still refuse, at compile and with
// VYRE_ERR_UNSUPPORTED, an op its device lacks a feature for. The op is then unsupported on this
// device (the certificate says why), not failed.
std::string device_refusal(const OpInfo& op, const host::Backend& instance) {
  for (const OpTest& test : op_tests(op)) {
    try {
      instance.compile(test.build(1).program);
    } catch (const Error& e) {
      if (e.code() == VYRE_ERR_UNSUPPORTED) return "the instance's device refuses it: " + std::string(e.what());
    } catch (const std::exception&) {
      // Anything else is the differential run's to report.
    }
  }
  return {};
}

CertOpEntry certify_op(const OpInfo& op, const Candidate& candidate, const host::Backend& reference,
                       const Options& options, LaneTotals& totals) {
  CertOpEntry entry;
  entry.op = op.id;
  entry.reason = unsupported_reason(op, *candidate.plugin);
  if (entry.reason.empty()) entry.reason = device_refusal(op, candidate.instance);
  if (!entry.reason.empty()) return entry;
  entry.status = CertStatus::Pass;
  const auto tests = op_tests(op);
  std::uint64_t offset = 0;
  bool replayed = false;
  for (std::size_t ti = 0; ti < tests.size(); ++ti) {
    const OpTest& test = tests[ti];
    const auto lanes = LaneSource::witnesses_then_random(test, options.seed, stream_id(op.id, ti),
                                                         options.random_lanes);
    const std::uint32_t cases = lanes.cases_for(test);
    std::uint64_t first = 0;
    std::uint32_t count = cases;
    if (options.replay_case) {
      const std::uint64_t k = *options.replay_case;
      if (k < offset || k >= offset + cases) {
        offset += cases;
        continue;
      }
      first = k - offset;
      count = 1;
      replayed = true;
    }
    const TestResult r = run_differential(candidate.instance, reference, test, lanes, first, count);
    entry.cases += r.cases;
    entry.max_ulp = std::max(entry.max_ulp, r.max_ulp);
    totals.witness += r.witness_lanes;
    totals.random += r.random_lanes;
    if (!r.passed() && !entry.first_failure) {
      entry.status = CertStatus::Fail;
      entry.first_failure = to_failure(r, offset, first, test.name);
      entry.first_failure->replay =
          replay_command(options, candidate.plugin->id, op.id, entry.first_failure->case_index);
    }
    offset += cases;
  }
  if (options.replay_case && !replayed)
    throw UsageError("--case " + std::to_string(*options.replay_case) + " is past the last case of " +
                     op.id + " (it has " + std::to_string(offset) + " cases with --cases " +
                     std::to_string(options.random_lanes) + ")");
  return entry;
}

std::string failure_report(const std::string& backend, const CertOpEntry& entry) {
  std::ostringstream out;
  auto one = [&](const char* what, const CertFailure& f) {
    out << "FAIL " << entry.op << what << " on " << backend << "\n";
    out << "  test:     " << f.test << ", case " << f.case_index;
    if (!f.output.empty()) out << ", " << f.output << "[" << f.element << "]";
    out << "\n";
    for (const auto& in : f.inputs) out << "  input:    " << in << "\n";
    if (!f.expected.empty()) out << "  expected: " << f.expected << "\n";
    if (!f.actual.empty()) out << "  actual:   " << f.actual << "\n";
    if (f.ulp) {
      out << "  ulp:      ";
      if (*f.ulp == UINT64_MAX) out << "n/a (NaN against a number)";
      else out << *f.ulp;
      const OpInfo* op = find_op(entry.op);
      out << " (allowed " << (op ? op->tolerance.max_ulp : 0) << ")\n";
    }
    if (!f.message.empty()) out << "  note:     " << f.message << "\n";
    if (!f.replay.empty()) out << "  replay:   " << f.replay << "\n";
  };
  if (entry.status == CertStatus::Fail && entry.first_failure) one("", *entry.first_failure);
  if (entry.status == CertStatus::LoweringFailed) out << "FAIL " << entry.op << " (lowering) on " << backend << ": " << entry.reason << "\n";
  if (entry.exhaustive && entry.exhaustive->first_failure)
    one(" (exhaustive)", *entry.exhaustive->first_failure);
  return out.str();
}

}  // namespace vyre::conform::detail
