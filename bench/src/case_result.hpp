// What one case reports: the headline figure with its spread, the time it derives from, the bytes
// moved, the correctness check, further figures, and the backend's telemetry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "stats.hpp"
#include "vyre/backend.hpp"

namespace vyre::bench {

struct CaseResult {
  std::string id;          // "P1", "P5-cold", ...
  std::string title;
  std::string backend;     // the backend id that ran it
  std::string unit;        // unit of `value`: "GB/s", "us", "ms", "s", ...
  std::string better;      // "higher" or "lower"
  Summary value;           // the headline figure
  Summary time_ns;         // the per-sample time behind it
  std::string clock;       // "device_events" (the backend's timed dispatch) or "host_wall"
  std::uint64_t bytes_moved = 0;  // per sample, bytes read plus bytes written; 0: not a bandwidth case
  std::size_t warmup = 0;
  bool verified = false;
  std::string verification;       // what was checked, or what went wrong
  boost::json::object extra;      // further figures (secondary variants, raw timings, settings)
  std::vector<vyre::host::Metric> metrics;  // backend.metrics() after the timed samples
  std::string error;              // set when the case could not run
};

}  // namespace vyre::bench
