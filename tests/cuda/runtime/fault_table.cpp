#include "fault_table.hpp"

#include <cstdlib>
#include <iostream>
#include <optional>
#include <set>
#include <string_view>

#include "gpu_support.hpp"

namespace vyre::cudatest {
namespace {

constexpr const char* kFaultEnv = "VYRE_CUDA_FAIL";
constexpr std::string_view kCallPrefix = "driver_calls.";

using Counts = CallCounts;

Counts call_counts(const host::Backend& observer) { return driver_calls(observer); }

// Failures that an operation finishes correctly despite, for every operation, and why.
bool absorbable(const FaultOp& op, const std::string& function, bool persistent) {
  // Graphs only make queuing cheaper: sequences, pipelines and repeated launches queue the same
  // work directly when the driver refuses one (counted in graph_fallbacks).
  static const std::set<std::string> graph_building{"cuGraphCreate",         "cuGraphAddKernelNode",
                                                    "cuGraphInstantiateWithFlags", "cuGraphExecKernelNodeSetParams",
                                                    "cuStreamBeginCapture",  "cuStreamEndCapture"};
  if (graph_building.count(function) != 0) return true;
  // An allocation that fails once is retried after the pool frees its idle blocks.
  if (!persistent && (function == "cuMemAlloc" || function == "cuMemHostAlloc")) return true;
  // Housekeeping: an upload's staging stays parked until a query of its fence succeeds.
  if (function == "cuEventQuery") return true;
  // Release paths re-bind the context quietly (they may run on any thread); on the thread that
  // made the call the context is current already.
  if (function == "cuCtxSetCurrent") return true;
  return op.absorbs().count(function) != 0;
}

struct Row {
  std::string function;
  std::string rule;
  bool persistent = false;
};

// Judges the armed run; "" when it is one of the two acceptable outcomes.
std::string judge(FaultOp& op, FaultContext& ctx, const Row& row, const std::optional<Error>& error, bool fired,
                  FaultTableReport& report) {
  if (fired) ++report.fired[row.function];
  if (error) {
    const std::string what = error->what();
    if (!fired) return "failed, but no fault was injected: " + what;
    const bool allowed = error->code() == VYRE_ERR_DEVICE || error->code() == VYRE_ERR_OUT_OF_MEMORY ||
                         (op.creates() && error->code() == VYRE_ERR_NO_DEVICE);
    if (!allowed) return "error code " + std::string(status_name(error->code())) + ": " + what;
    if (what.find(row.function) == std::string::npos) return "the error does not name " + row.function + ": " + what;
    if (what.find("Fix: ") == std::string::npos) return "the error has no Fix: " + what;
    const std::string written = op.untouched();
    if (!written.empty()) return "failed, yet " + written;
    ++report.errors;
    return "";
  }
  const std::string wrong = op.verify(ctx);
  if (!wrong.empty()) return "no error, but the results are wrong: " + wrong;
  if (!fired) {
    ++report.not_fired;
    return "";
  }
  if (!absorbable(op, row.function, row.persistent)) return "the failure vanished: no error, and no fallback absorbs it";
  ++report.absorbed;
  return "";
}

std::string outcome_text(const std::optional<Error>& error, bool fired) {
  if (error) return std::string(status_name(error->code())) + ": " + std::string(error->what()).substr(0, 160);
  return fired ? "absorbed" : "not fired";
}

std::string run_row(FaultOp& op, const Row& row, const host::Backend& observer, const FaultTableHooks& hooks,
                    FaultTableReport& report) {
  FaultContext ctx{{}, hooks.open};
  if (!op.creates()) ctx.backend = hooks.open();
  op.setup(ctx);
  op.prepare(ctx);
  const std::uint64_t injected_before = metric(observer, "faults_injected");
  std::optional<Error> error;
  std::string failure;
  setenv(kFaultEnv, row.rule.c_str(), 1);
  try {
    op.run(ctx);
  } catch (const Error& caught) {
    error = caught;
  } catch (const std::exception& caught) {
    failure = std::string("not a vyre::Error: ") + caught.what();
  }
  unsetenv(kFaultEnv);  // read again at the next driver call: disarmed from here on
  const bool fired = metric(observer, "faults_injected") > injected_before;
  if (failure.empty()) failure = judge(op, ctx, row, error, fired, report);
  std::cout << "  " << op.name() << " | " << row.rule << " | " << outcome_text(error, fired) << "\n";
  try {  // the next run on the same instance must work
    op.prepare(ctx);
    op.run(ctx);
    const std::string wrong = op.verify(ctx);
    if (!wrong.empty()) failure += "; the next run is wrong: " + wrong;
  } catch (const std::exception& next) {
    failure += std::string("; the next run failed: ") + next.what();
  }
  op.teardown();
  ctx.backend = {};
  const std::string leaked = hooks.leaks();
  if (!leaked.empty()) failure += "; left behind: " + leaked;
  return failure;
}

// The operation once, disarmed: its calls of each hookable function.
Counts dry_run(FaultOp& op, const host::Backend& observer, const FaultTableHooks& hooks, const Counts& reading,
               std::string* failure) {
  FaultContext ctx{{}, hooks.open};
  if (!op.creates()) ctx.backend = hooks.open();
  op.setup(ctx);
  op.prepare(ctx);
  const Counts before = call_counts(observer);
  op.run(ctx);
  const Counts after = call_counts(observer);
  *failure = op.verify(ctx);
  op.teardown();
  ctx.backend = {};
  return calls_between(before, after, reading);
}

std::vector<Row> rows_for(const Counts& calls) {
  std::vector<Row> rows;
  for (const auto& [function, count] : calls) {
    rows.push_back({function, function + ":1", false});
    if (count > 1) rows.push_back({function, function + ":" + std::to_string(count), false});
    rows.push_back({function, function + ":1+", true});
  }
  return rows;
}

}  // namespace

CallCounts driver_calls(const host::Backend& observer) {
  CallCounts counts;
  for (const auto& m : observer.metrics()) {
    const std::string_view name = m.name;
    if (name.starts_with(kCallPrefix)) counts[std::string(name.substr(kCallPrefix.size()))] = m.value;
  }
  return counts;
}

CallCounts calls_between(const CallCounts& before, const CallCounts& after, const CallCounts& reading) {
  CallCounts calls;
  for (const auto& [name, value] : after) {
    const auto found = before.find(name);
    const std::uint64_t made = value - (found != before.end() ? found->second : 0);
    const auto own = reading.find(name);
    const std::uint64_t overhead = own != reading.end() ? own->second : 0;
    if (made > overhead) calls[name] = made - overhead;
  }
  return calls;
}

std::string fault_plugin_path() { return std::string(VYRE_BINARY_DIR) + "/tests/cuda/fault_plugin/libvyre_cuda.so"; }

std::vector<std::string> hookable_functions(const host::Backend& observer) {
  std::vector<std::string> functions;
  for (const auto& [name, value] : call_counts(observer)) functions.push_back(name);
  return functions;
}

FaultTableReport run_fault_table(const std::vector<std::unique_ptr<FaultOp>>& ops, const host::Backend& observer,
                                 const FaultTableHooks& hooks) {
  unsetenv(kFaultEnv);
  FaultTableReport report;
  const Counts first = call_counts(observer);
  const Counts reading = calls_between(first, call_counts(observer), {});  // what one reading calls
  for (const auto& op : ops) {
    if (hooks.begin_op) hooks.begin_op(*op);
    std::string failure;
    Counts calls;
    try {
      calls = dry_run(*op, observer, hooks, reading, &failure);
    } catch (const std::exception& error) {
      failure = std::string("failed: ") + error.what();
    }
    if (!failure.empty()) {
      report.failures.push_back(op->name() + " (dry run): " + failure);
      continue;
    }
    std::cout << op->name() << ": calls";
    for (const auto& [function, count] : calls) std::cout << " " << function << " x" << count;
    std::cout << "\n";
    for (const Row& row : rows_for(calls)) {
      ++report.rows;
      const std::string row_failure = run_row(*op, row, observer, hooks, report);
      if (!row_failure.empty()) report.failures.push_back(op->name() + " x " + row.rule + ": " + row_failure);
    }
  }
  std::cout << std::flush;
  return report;
}

}  // namespace vyre::cudatest
