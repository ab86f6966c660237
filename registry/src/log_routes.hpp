// Routing plugin log messages (the vyre_log_fn of vyre_host_info) to a registry's sink.
//
// The `user` pointer a plugin keeps must stay valid while its library is loaded, which may be
// after the Registry is gone, so routes live for the whole process (one small object per load).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "vyre/registry_log.hpp"

namespace vyre::registry_detail {

struct LogRoute;

// A new route to `sink` whose messages are prefixed with "[source] ".
LogRoute* new_log_route(std::string source, const std::shared_ptr<LogSink>& sink);
void set_route_source(LogRoute* route, std::string source);

// The vyre_log_fn given to plugins; `user` is a LogRoute*.
void plugin_log(void* user, std::int32_t level, const char* message);

}  // namespace vyre::registry_detail
