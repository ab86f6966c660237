#include "compile.hpp"

#include <cstdio>

#include <boost/json/parse.hpp>
#include <fmt/core.h>
#include <fmt/ranges.h>

#include "bundle_output.hpp"
#include "program_inputs.hpp"
#include "vyre/error.hpp"
#include "vyre/registry.hpp"

namespace vyre::aot_tool {
namespace {

std::unique_ptr<Registry> make_registry(const CompileOptions& options) {
  RegistryOptions registry_options;
  registry_options.plugin_dirs = options.plugin_dirs;
  registry_options.use_default_dirs = options.default_plugins;
  const int level = options.verbosity > 1 ? VYRE_LOG_DEBUG : options.verbosity > 0 ? VYRE_LOG_INFO : VYRE_LOG_ERROR;
  registry_options.log = stderr_log_sink(level);
  return std::make_unique<Registry>(registry_options);
}

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
std::vector<host::AotFile> emit(Registry& registry, const CompileOptions& options, const PreparedProgram& prepared,
                                const host::AotOptions& aot) {
  if (!options.sm) {
    if (const auto why_not = registry.probe(options.backend); !why_not) {
      return registry.backend(options.backend).aot_emit(prepared.program, aot);
    } else if (options.verbosity > 0) {
      fmt::print(stderr, "vyre-aot: no usable '{}' device ({}); using the plugin's default target\n", options.backend,
                 *why_not);
    }
  }
  return host::Backend::aot_emit(registry.fns(options.backend), prepared.program, aot);
}

void print_summary(const std::vector<host::AotFile>& files, const CompileOptions& options) {
  for (const host::AotFile& file : files) {
    if (file.name != "manifest.json") continue;
    const boost::json::object m = boost::json::parse(std::string(file.data.begin(), file.data.end())).as_object();
    fmt::print("wrote {} ({} files): {} {} entry {}, grid {} x workgroup {}\n", options.out.string(), files.size(),
               options.backend, m.at("target").as_string().c_str(), m.at("entry_point").as_string().c_str(),
               boost::json::serialize(m.at("grid")), boost::json::serialize(m.at("workgroup")));
    fmt::print("kernel: {}\n", m.at("kernel").as_object().at("cubin_status").as_string().c_str());
  }
}

}  // namespace

void run_compile(const CompileOptions& options) {
  const PreparedProgram prepared = prepare_program(options);
  const std::unique_ptr<Registry> registry = make_registry(options);
  aot_plugin(*registry, options.backend);
  host::AotOptions aot;
  if (options.sm) aot.target = fmt::format("sm_{}", *options.sm);
  aot.config = options.config;
  aot.weights = host::as_bytes(prepared.weights);
  std::vector<host::AotFile> files = complete_bundle(emit(*registry, options, prepared, aot), prepared);
  write_bundle(files, options.out, options.force);
  print_summary(files, options);
}

}  // namespace vyre::aot_tool
