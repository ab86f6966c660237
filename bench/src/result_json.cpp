#include "result_json.hpp"

#include <fmt/core.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <stdexcept>

#include "case_support.hpp"
#include "parallel.hpp"
#include "vyre/json_text.hpp"

namespace vyre::bench {
namespace {

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

}  // namespace

boost::json::object case_json(const CaseResult& r) {
  boost::json::object o{{"id", r.id}, {"title", r.title}, {"backend", r.backend}};
  if (!r.error.empty()) {
    o["error"] = r.error;
    return o;
  }
  boost::json::object value = summary_json(r.value);
  value["unit"] = r.unit;
  o["value"] = std::move(value);
  o["better"] = r.better;
  o["time_ns"] = summary_json(r.time_ns);
  o["clock"] = r.clock;
  o["bytes_moved"] = r.bytes_moved;
  o["warmup"] = r.warmup;
  o["verified"] = r.verified;
  o["verification"] = r.verification;
  o["extra"] = r.extra;
  boost::json::object metrics;
  for (const auto& m : r.metrics) metrics[m.name] = m.value;
  o["metrics"] = std::move(metrics);
  return o;
}

boost::json::object device_json(const vyre_device_profile& p) {
  return boost::json::object{
      {"name", p.name},
      {"target", p.target},
      {"compute_capability", fmt::format("{}.{}", p.compute_major, p.compute_minor)},
      {"driver_version", p.driver_version},
      {"multiprocessors", p.multiprocessors},
      {"total_memory_bytes", p.total_memory_bytes},
      {"l2_cache_bytes", p.l2_cache_bytes},
      {"memory_bandwidth_gbps_estimate", p.memory_bandwidth_gbps},
  };
}

boost::json::object run_json(const Options& options, const std::optional<vyre_device_profile>& device,
                             const std::vector<CaseResult>& results) {
  boost::json::array cases;
  for (const auto& r : results) cases.push_back(case_json(r));
  return boost::json::object{
      {"schema", "vyre-bench/1"},
      {"date", utc_now()},
      {"backend", options.backend},
      {"device", device ? boost::json::value(device_json(*device)) : boost::json::value(nullptr)},
      {"host_threads", host_threads()},
      {"size_scale", options.size_scale},
      {"count_scale", options.count_scale},
      {"reps_override", options.reps ? boost::json::value(*options.reps) : boost::json::value(nullptr)},
      {"seed", options.seed},
      {"cases", std::move(cases)},
  };
}

void write_json_file(const std::filesystem::path& path, const boost::json::value& value) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path);
  if (!out) throw std::runtime_error(fmt::format("cannot write {}", path.string()));
  write_indented_json(out, value);
  out << "\n";
}

}  // namespace vyre::bench
