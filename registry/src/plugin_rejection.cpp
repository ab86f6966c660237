// Names of the plugin rejection codes (vyre/plugin_rejection.hpp).
#include "vyre/plugin_rejection.hpp"

#include <array>
#include <utility>

namespace vyre {

namespace {

constexpr std::array kRejections = {
#define VYRE_REJECTION_ENTRY(code, meaning) std::pair<std::string_view, std::string_view>{#code, meaning},
    VYRE_PLUGIN_REJECTIONS(VYRE_REJECTION_ENTRY)
#undef VYRE_REJECTION_ENTRY
};

}  // namespace

std::string_view plugin_rejection_name(PluginRejection code) {
  return kRejections[static_cast<std::size_t>(code)].first;
}

std::string_view plugin_rejection_meaning(PluginRejection code) {
  return kRejections[static_cast<std::size_t>(code)].second;
}

std::optional<PluginRejection> parse_plugin_rejection(std::string_view name) {
  for (std::size_t i = 0; i < kRejections.size(); ++i)
    if (kRejections[i].first == name) return static_cast<PluginRejection>(i);
  return std::nullopt;
}

}  // namespace vyre
