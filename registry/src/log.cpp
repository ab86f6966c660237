// Log sinks and the routes from plugins to them.
#include <cstdio>
#include <deque>
#include <mutex>
#include <string>

#include "log_routes.hpp"
#include "vyre/printable.hpp"
#include "vyre/registry_log.hpp"

namespace vyre {

namespace {

// Longest plugin log line kept (a plugin may log megabytes in one call), and longest line printed.
constexpr std::size_t kMaxPluginLogBytes = 4096;
constexpr std::size_t kMaxSinkLineBytes = 64 * 1024;
constexpr std::size_t kMaxSourceBytes = 255;  // a plugin file name, then its id

}  // namespace

std::string_view log_level_name(int level) {
  switch (level) {
    case VYRE_LOG_DEBUG: return "debug";
    case VYRE_LOG_INFO: return "info";
    case VYRE_LOG_WARN: return "warn";
    case VYRE_LOG_ERROR: return "error";
    default: return "log";
  }
}

LogSink stderr_log_sink(int min_level) {
  return [min_level](int level, std::string_view message) {
    if (level < min_level) return;
    std::string line = "vyre: ";
    line += log_level_name(level);
    line += ": ";
    line += printable(message, kMaxSinkLineBytes);  // one line, whatever the message holds
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), stderr);
  };
}

}  // namespace vyre

namespace vyre::registry_detail {

struct LogRoute {
  std::mutex mutex;
  std::string source;
  std::weak_ptr<LogSink> sink;
};

namespace {

struct Routes {
  std::mutex mutex;
  std::deque<LogRoute> routes;  // never shrinks: plugins keep pointers into it
};

Routes& routes() {
  static Routes* all = new Routes;  // immortal, reachable (not a leak)
  return *all;
}

}  // namespace

LogRoute* new_log_route(std::string source, const std::shared_ptr<LogSink>& sink) {
  Routes& all = routes();
  std::lock_guard lock(all.mutex);
  LogRoute& route = all.routes.emplace_back();
  route.source = printable(source, kMaxSourceBytes);
  route.sink = sink;
  return &route;
}

void set_route_source(LogRoute* route, std::string source) {
  std::string shown = printable(source, kMaxSourceBytes);
  std::lock_guard lock(route->mutex);
  route->source = std::move(shown);
}

void plugin_log(void* user, std::int32_t level, const char* message) {
  if (user == nullptr || message == nullptr) return;
  auto* route = static_cast<LogRoute*>(user);
  std::shared_ptr<LogSink> sink;
  std::string line;
  {
    std::lock_guard lock(route->mutex);
    sink = route->sink.lock();
    if (!sink || !*sink) return;
    line = "[" + route->source + "] " + printable(message, kMaxPluginLogBytes);
  }
  try {
    (*sink)(level, line);
  } catch (...) {
    // A sink that throws must not unwind into the plugin.
  }
}

}  // namespace vyre::registry_detail
