// The JSON document vyre-bench writes (--json): the run's settings, the device, and every case.
// bench/report.py reads it (schema "vyre-bench/1").
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include <boost/json.hpp>

#include "case_result.hpp"
#include "options.hpp"
#include "vyre/backend.hpp"

namespace vyre::bench {

boost::json::object case_json(const CaseResult& result);
boost::json::object device_json(const vyre_device_profile& profile);

// `device`: the main backend's profile when it could be created.
boost::json::object run_json(const Options& options, const std::optional<vyre_device_profile>& device,
                             const std::vector<CaseResult>& results);

// Pretty-printed, to `path` (parent directories created).
void write_json_file(const std::filesystem::path& path, const boost::json::value& value);

}  // namespace vyre::bench
