// Per-program routing and the certificate extension point.
#include <algorithm>

#include "vyre/ops.hpp"
#include "vyre/registry.hpp"

namespace vyre {

namespace {

std::string join(const std::vector<std::string>& items, std::size_t limit) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < limit; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > limit) out += ", ... (" + std::to_string(items.size() - limit) + " more)";
  return out;
}

// The ops of `needed` missing from the sorted `have`.
std::vector<std::string> missing_ops(const std::vector<std::string>& needed,
                                     const std::vector<std::string>& have) {
  std::vector<std::string> missing;
  for (const std::string& op : needed)
    if (!std::binary_search(have.begin(), have.end(), op)) missing.push_back(op);
  return missing;
}

}  // namespace

void Registry::set_certified_ops(std::string_view id, std::vector<std::string> ops) {
  if (find(id) == nullptr) fns(id);  // throws NOT_FOUND listing the ids
  std::sort(ops.begin(), ops.end());
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
  log(VYRE_LOG_INFO, "backend '" + std::string(id) + "' routes by its certificate (" +
                         std::to_string(ops.size()) + " certified ops)");
  std::lock_guard lock(mutex_);
  certified_.insert_or_assign(std::string(id), std::move(ops));
}

void Registry::clear_certified_ops(std::string_view id) {
  std::lock_guard lock(mutex_);
  if (auto it = certified_.find(id); it != certified_.end()) certified_.erase(it);
}

bool Registry::has_certified_ops(std::string_view id) const {
  std::lock_guard lock(mutex_);
  return certified_.find(id) != certified_.end();
}

std::vector<std::string> Registry::routing_ops(std::string_view id) const {
  {
    std::lock_guard lock(mutex_);
    if (auto it = certified_.find(id); it != certified_.end()) return it->second;
  }
  const PluginInfo* plugin = find(id);
  if (plugin == nullptr) fns(id);  // throws NOT_FOUND listing the ids
  return plugin->op_ids;
}

Route Registry::route(const Program& program, const DispatchConfig* config) {
  const std::vector<std::string> ops = config ? ops_used(program, *config) : ops_used(program);
  if (auto forced = forced_backend()) {
    const std::vector<std::string> missing = missing_ops(ops, routing_ops(*forced));
    if (!missing.empty())
      fail(VYRE_ERR_UNSUPPORTED,
           "VYRE_BACKEND=" + *forced + " does not support " + std::to_string(missing.size()) +
               " op(s) the program uses: " + join(missing, 12),
           "unset VYRE_BACKEND to let the registry route the program, or pick a backend that "
           "declares these ops (`vyre ops --backend ID`)");
    log(VYRE_LOG_INFO, "routing the program to '" + *forced + "' (forced by VYRE_BACKEND)");
    return Route{backend(*forced), find(*forced), ops, "VYRE_BACKEND=" + *forced};
  }
  std::string why_not;
  for (const PluginInfo* plugin : candidates_in_order()) {
    // With certificates in force the instance comes first: its device picks the certificate.
    std::string failure;
    std::optional<host::Backend> backend;
    if (certificates_enabled()) {
      backend = try_backend(*plugin, failure);
      if (!backend) {
        log(VYRE_LOG_WARN, "skipping backend '" + plugin->id + "': " + failure);
        why_not += "\n  " + plugin->id + " cannot run here: " + failure;
        continue;
      }
    }
    const bool certified = has_certified_ops(plugin->id);
    const std::vector<std::string> missing = missing_ops(ops, routing_ops(plugin->id));
    if (!missing.empty()) {
      const std::string line = plugin->id + (certified ? " (certified ops)" : "") + " lacks " +
                               join(missing, 6);
      log(VYRE_LOG_DEBUG, "not routing to '" + plugin->id + "': lacks " + join(missing, 6));
      why_not += "\n  " + line;
      continue;
    }
    if (!backend) backend = try_backend(*plugin, failure);
    if (!backend) {
      log(VYRE_LOG_WARN, "skipping backend '" + plugin->id + "': " + failure);
      why_not += "\n  " + plugin->id + " cannot run here: " + failure;
      continue;
    }
    std::string reason = "best-ranked available backend covering the program's " +
                         std::to_string(ops.size()) + " ops" +
                         (certified ? " by its certificate" : "");
    if (plugin->is_reference_oracle()) {
      reason = "no other backend can run the program; using the reference oracle as the last "
               "resort";
      log(VYRE_LOG_WARN, "routing the program to '" + plugin->id + "': " + reason);
    } else {
      log(VYRE_LOG_INFO, "routing the program to '" + plugin->id + "': " + reason);
    }
    return Route{*backend, plugin, ops, reason};
  }
  fail(VYRE_ERR_UNSUPPORTED,
       plugins_.empty() ? std::string("no backend plugin is loaded to run the program")
                        : "no available backend can run the program:" + why_not,
       "load a backend that declares the program's ops (--plugins DIR or VYRE_PLUGIN_PATH), or "
       "change the program to use ops a backend supports (`vyre ops`)");
}

}  // namespace vyre
