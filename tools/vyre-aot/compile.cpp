#include "compile.hpp"

#include <cstdio>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/core.h>
#include <fmt/ranges.h>

#include "bundle_output.hpp"
#include "program_inputs.hpp"
#include "vyre/error.hpp"
#include "vyre/registry.hpp"

namespace vyre::aot_tool {
namespace {

const PluginInfo& aot_plugin(const Registry& registry, const std::string& id) {
  const PluginInfo* plugin = registry.find(id);
  if (plugin == nullptr) {
    fail(VYRE_ERR_NOT_FOUND,
         fmt::format("no backend plugin '{}' is loaded (loaded: {})", id, fmt::join(registry.ids(), ", ")),
         "pass --target with a loaded backend id, or --plugins DIR where its plugin is (vyre backends lists them)");
  }
  if (!plugin->has(VYRE_CAP_AOT)) {
    fail(VYRE_ERR_UNSUPPORTED, fmt::format("backend '{}' ({}) does not emit AOT bundles", id, plugin->path.string()),
         "use a backend with the AOT capability (vyre backends lists the capabilities)");
  }
  return *plugin;
}

// With --sm the plugin emits for that target without a device. Without it, the plugin's instance
// (when one can be created here) targets its device; otherwise the plugin's default target.
std::vector<vyre::AotFile> emit(Registry& registry, const CompileOptions& options, const PreparedProgram& prepared,
                                const host::AotOptions& aot) {
  if (!options.sm) {
    if (const auto why_not = registry.probe(options.backend); !why_not) {
      return registry.backend(options.backend).aot_emit(prepared.program, aot);
    } else if (options.registry.verbosity > 0) {
      fmt::print(stderr, "vyre-aot: no usable '{}' device ({}); using the plugin's default target\n", options.backend,
                 *why_not);
    }
  }
  return host::Backend::aot_emit(registry.fns(options.backend), prepared.program, aot);
}

// The text of `key` in `object` (a string or any JSON value), or "?" when absent.
std::string field_text(const boost::json::object& object, std::string_view key) {
  const boost::json::value* value = object.if_contains(key);
  if (value == nullptr) return "?";
  return value->is_string() ? std::string(value->as_string().c_str()) : boost::json::serialize(*value);
}

void print_summary(const std::vector<vyre::AotFile>& files, const CompileOptions& options) {
  for (const vyre::AotFile& file : files) {
    if (file.name != "manifest.json") continue;
    const boost::json::object m = boost::json::parse(std::string(file.data.begin(), file.data.end())).as_object();
    fmt::print("wrote {} ({} files): {} {} entry {}, grid {} x workgroup {}\n", options.out.string(), files.size(),
               options.backend, field_text(m, "target"), field_text(m, "entry_point"), field_text(m, "grid"),
               field_text(m, "workgroup"));
    if (const boost::json::value* kernel = m.if_contains("kernel"); kernel != nullptr && kernel->is_object())
      fmt::print("kernel: {}\n", field_text(kernel->as_object(), "cubin_status"));
  }
}

}  // namespace

void run_compile(const CompileOptions& options) {
  const PreparedProgram prepared = prepare_program(options);
  const std::unique_ptr<Registry> registry = tool::make_registry(options.registry);
  aot_plugin(*registry, options.backend);
  host::AotOptions aot;
  if (options.sm) aot.target = fmt::format("sm_{}", *options.sm);
  aot.config = options.config;
  aot.weights = host::as_bytes(prepared.weights);
  std::vector<vyre::AotFile> files = complete_bundle(emit(*registry, options, prepared, aot), prepared);
  write_bundle(files, options.out, options.force);
  print_summary(files, options);
}

}  // namespace vyre::aot_tool
