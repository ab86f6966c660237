// Where the registry (and the plugins it loads) report what they do. Quiet by default in library
// use; the CLI installs a stderr sink with -v.
#pragma once

#include <functional>
#include <string_view>

#include "vyre/backend_abi.h"

namespace vyre {

// level: VYRE_LOG_DEBUG, VYRE_LOG_INFO, VYRE_LOG_WARN or VYRE_LOG_ERROR. May be called from any
// thread (plugins log from their own threads).
using LogSink = std::function<void(int level, std::string_view message)>;

// "debug", "info", "warn", "error".
std::string_view log_level_name(int level);

// Writes "vyre: <level>: <message>" lines to stderr for messages at `min_level` or above.
LogSink stderr_log_sink(int min_level);

}  // namespace vyre
