#include "case_support.hpp"

#include <fmt/core.h>

namespace vyre::bench {

CaseResult start_case(std::string id, std::string title, std::string backend_id, std::string unit,
                      std::string better) {
  CaseResult r;
  r.id = std::move(id);
  r.title = std::move(title);
  r.backend = std::move(backend_id);
  r.unit = std::move(unit);
  r.better = std::move(better);
  r.clock = std::string("host_wall");
  return r;
}

CaseResult start_case(std::string id, std::string title, const vyre::host::Backend& backend,
                      std::string unit, std::string better) {
  return start_case(std::move(id), std::move(title), backend.label(), std::move(unit), std::move(better));
}

double timing_ns(const vyre::Timing& timing) {
  return static_cast<double>(timing.has_device_ns ? timing.device_ns : timing.wall_ns);
}

std::string timing_clock(const vyre::Timing& timing) {
  return timing.has_device_ns ? "device_events" : "host_wall";
}

Summary scaled(const Summary& s, double factor) {
  Summary out = s;
  out.median *= factor;
  out.p10 *= factor;
  out.p90 *= factor;
  out.min *= factor;
  out.max *= factor;
  out.mean *= factor;
  return out;
}

void set_time_figure(CaseResult& result, std::span<const double> samples_ns, double unit_per_ns) {
  result.time_ns = summarize(samples_ns);
  result.value = scaled(result.time_ns, unit_per_ns);
}

void set_bandwidth_figure(CaseResult& result, std::span<const double> samples_ns, std::uint64_t bytes) {
  result.time_ns = summarize(samples_ns);
  result.bytes_moved = bytes;
  // bytes per ns is GB/s.
  result.value = rate_of(result.time_ns, static_cast<double>(bytes));
}

boost::json::object summary_json(const Summary& s) {
  return boost::json::object{{"count", s.count}, {"median", s.median}, {"p10", s.p10}, {"p90", s.p90},
                             {"min", s.min},     {"max", s.max},       {"mean", s.mean}};
}

void add_time_extra(CaseResult& result, const std::string& name, std::span<const double> samples_ns,
                    double unit_per_ns, const std::string& unit) {
  boost::json::object figure = summary_json(scaled(summarize(samples_ns), unit_per_ns));
  figure["unit"] = unit;
  result.extra[name] = std::move(figure);
}

vyre::host::Backend create_on_device(vyre::Registry& registry, const std::string& id, int ordinal) {
  vyre::CreateOptions options;
  options.device_ordinal = ordinal;
  return registry.create(id, options);
}

std::vector<vyre::host::Metric> metrics_of(const vyre::host::Backend& backend) {
  try {
    return backend.metrics();
  } catch (const vyre::Error&) {
    return {};
  }
}

void reset_metrics(const vyre::host::Backend& backend) {
  try {
    backend.reset_metrics();
  } catch (const vyre::Error&) {
  }
}

std::string checked(bool ok, const std::string& what) {
  return fmt::format("{}: {}", ok ? "ok" : "FAILED", what);
}

}  // namespace vyre::bench
