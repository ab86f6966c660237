// Small pieces every case uses: starting a result, choosing the clock of a timed dispatch, turning
// time samples into the headline figure, and taking the telemetry snapshot.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "case_result.hpp"
#include "vyre/backend.hpp"
#include "vyre/registry.hpp"

namespace vyre::bench {

CaseResult start_case(std::string id, std::string title, const vyre::host::Backend& backend,
                      std::string unit, std::string better);
CaseResult start_case(std::string id, std::string title, std::string backend_id, std::string unit,
                      std::string better);

// A new instance of backend `id` on device `ordinal` (M1 and M2 make one per device).
vyre::host::Backend create_on_device(vyre::Registry& registry, const std::string& id, int ordinal);

// The device time of a timed dispatch when the backend measured it (events), else its wall time.
double timing_ns(const vyre::Timing& timing);
std::string timing_clock(const vyre::Timing& timing);

// Every field of `s` multiplied by `factor`.
Summary scaled(const Summary& s, double factor);

// Fill time_ns and value from per-sample times: value = time * unit_per_ns (a time figure).
void set_time_figure(CaseResult& result, std::span<const double> samples_ns, double unit_per_ns);
// Fill time_ns and value from per-sample times: value = bytes_moved / time in GB/s.
void set_bandwidth_figure(CaseResult& result, std::span<const double> samples_ns, std::uint64_t bytes);

// The summary as JSON (count, median, p10, p90, min, max, mean).
boost::json::object summary_json(const Summary& s);
// A secondary figure in result.extra: {unit, median, p10, ...} of samples_ns * unit_per_ns.
void add_time_extra(CaseResult& result, const std::string& name, std::span<const double> samples_ns,
                    double unit_per_ns, const std::string& unit);

// backend.metrics(), or nothing when the backend has none.
std::vector<vyre::host::Metric> metrics_of(const vyre::host::Backend& backend);
// backend.reset_metrics(), ignoring a backend without metrics.
void reset_metrics(const vyre::host::Backend& backend);

// One line for a check: "ok: <what>" or the first mismatch.
std::string checked(bool ok, const std::string& what);

}  // namespace vyre::bench
