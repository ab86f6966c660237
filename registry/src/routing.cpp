// Selection and per-program routing (one ranking loop for both), and certified op sets.
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
  if (std::optional<Route> route = best_available(&ops, why_not)) return std::move(*route);
  fail(VYRE_ERR_UNSUPPORTED,
       plugins_.empty() ? std::string("no backend plugin is loaded to run the program")
                        : "no available backend can run the program:" + why_not,
       "load a backend that declares the program's ops (--plugins DIR or VYRE_PLUGIN_PATH), or "
       "change the program to use ops a backend supports (`vyre ops`)");
}

Route Registry::select() {
  if (auto forced = forced_backend()) {
    Route route{backend(*forced), find(*forced), {}, "VYRE_BACKEND=" + *forced};
    log(VYRE_LOG_INFO, "selected backend '" + *forced + "' (forced by VYRE_BACKEND)");
    return route;
  }
  std::string why_not;
  if (std::optional<Route> route = best_available(nullptr, why_not)) return std::move(*route);
  fail(VYRE_ERR_NO_DEVICE,
       plugins_.empty() ? std::string("no backend plugin is loaded")
                        : "no loaded backend can create an instance here:" + why_not,
       "build or install a plugin (see `vyre backends` for the search directories and rejected "
       "plugins), or fix the reason its create fails");
}

std::optional<Route> Registry::best_available(const std::vector<std::string>* ops, std::string& why_not) {
  const std::string_view chose = ops ? "routing the program to" : "selected backend";
  for (const PluginInfo* plugin : candidates_in_order()) {
    std::string failure;
    std::optional<host::Backend> backend;
    auto create = [&] {
      backend = try_backend(*plugin, failure);
      if (backend) return true;
      log(VYRE_LOG_WARN, "skipping backend '" + plugin->id + "': " + failure);
      why_not += "\n  " + plugin->id + " cannot run here: " + failure;
      return false;
    };
    // With certificates in force the instance comes first: its device picks the certificate.
    if (certificates_enabled() && !create()) continue;
    const bool certified = has_certified_ops(plugin->id);
    if (ops != nullptr) {
      const std::vector<std::string> missing = missing_ops(*ops, routing_ops(plugin->id));
      if (!missing.empty()) {
        log(VYRE_LOG_DEBUG, "not routing to '" + plugin->id + "': lacks " + join(missing, 6));
        why_not += "\n  " + plugin->id + (certified ? " (certified ops)" : "") + " lacks " + join(missing, 6);
        continue;
      }
    }
    if (!backend && !create()) continue;
    std::string reason =
        ops ? "best-ranked available backend covering the program's " + std::to_string(ops->size()) +
                  " ops" + (certified ? " by its certificate" : "")
            : "best-ranked available backend (rank " + std::to_string(plugin->rank) + ")";
    if (plugin->is_reference_oracle()) {
      reason = "no other backend can run it here; using the reference oracle as the last resort";
      log(VYRE_LOG_WARN, std::string(chose) + " '" + plugin->id + "': " + reason);
    } else {
      log(VYRE_LOG_INFO, std::string(chose) + " '" + plugin->id + "': " + reason);
    }
    return Route{*backend, plugin, ops ? *ops : std::vector<std::string>{}, reason};
  }
  return std::nullopt;
}

}  // namespace vyre
