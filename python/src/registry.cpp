// vyre.Registry: discovery, selection and routing as in C++ (vyre/registry.hpp). Its default
// plugin directory is the one installed with the libvyre_registry.so this module links, so the
// Python package sees the same plugins as the installed tools.
#include <dlfcn.h>

#include <filesystem>

#include <vyre/plugin_rejection.hpp>
#include <vyre/registry.hpp>

#include "bindings.hpp"

namespace vyre::python {

namespace {

std::vector<std::string> capability_list(std::uint64_t caps) {
  std::vector<std::string> out;
  for (std::string_view name : capability_names(caps)) out.emplace_back(name);
  return out;
}

// The directory holding the libvyre_registry.so in use (its tools are in ../bin).
std::string library_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&capability_names), &info) == 0 || info.dli_fname == nullptr)
    return {};
  std::error_code ec;
  const auto path = std::filesystem::weakly_canonical(info.dli_fname, ec);
  return ec ? std::string() : path.parent_path().string();
}

struct PyRoute {
  PyBackend backend;
  PluginInfo plugin;
  std::vector<std::string> ops;
  std::string reason;
};

PyRoute to_python(const Route& r) { return PyRoute{PyBackend{r.backend}, *r.plugin, r.ops, r.reason}; }

CreateOptions create_options(std::optional<int> device_ordinal, bool reverse_workgroups,
                             std::uint32_t worker_threads, std::uint64_t memory_budget_bytes) {
  CreateOptions o;
  o.device_ordinal = device_ordinal;
  o.reverse_workgroups = reverse_workgroups;
  o.worker_threads = worker_threads;
  o.memory_budget_bytes = memory_budget_bytes;
  return o;
}

std::unique_ptr<Registry> make_registry(std::vector<std::string> plugin_dirs, bool use_environment,
                                        bool use_default_dirs, std::optional<std::string> certificate_dir,
                                        bool verify_plugins, std::optional<std::string> log_level) {
  RegistryOptions o;
  for (auto& d : plugin_dirs) o.plugin_dirs.emplace_back(std::move(d));
  o.use_environment = use_environment;
  o.use_default_dirs = use_default_dirs;
  if (certificate_dir) o.certificate_dir = *certificate_dir;
  o.verify_in_child = verify_plugins;
  if (log_level) {
    const std::string levels[] = {"debug", "info", "warn", "error"};
    int level = 0;
    while (level < 4 && levels[level] != *log_level) ++level;
    if (level == 4) invalid_argument("unknown log level '" + *log_level + "'", "use debug, info, warn or error");
    o.log = stderr_log_sink(level);
  }
  py::gil_scoped_release release;
  return std::make_unique<Registry>(std::move(o));
}

}  // namespace

void bind_registry(py::module_& m) {
  m.def("library_dir", &library_dir, "The directory of the libvyre_registry.so this module uses.");

  py::class_<PluginInfo>(m, "PluginInfo", "A plugin that loaded and validated.")
      .def_readonly("id", &PluginInfo::id)
      .def_readonly("version", &PluginInfo::version)
      .def_readonly("rank", &PluginInfo::rank)
      .def_property_readonly("capabilities", [](const PluginInfo& p) { return capability_list(p.capabilities); })
      .def_readonly("ops", &PluginInfo::op_ids)
      .def_property_readonly("path", [](const PluginInfo& p) { return p.path.string(); })
      .def_readonly("sha256", &PluginInfo::sha256)
      .def_property_readonly("abi", [](const PluginInfo& p) { return py::make_tuple(p.abi_major, p.abi_minor); })
      .def_property_readonly("reference_oracle", &PluginInfo::is_reference_oracle)
      .def("__repr__", [](const PluginInfo& p) { return "<vyre.PluginInfo " + p.id + " " + p.path.string() + ">"; });

  py::class_<RejectedPlugin>(m, "RejectedPlugin", "A plugin file that was rejected, and why.")
      .def_property_readonly("path", [](const RejectedPlugin& r) { return r.path.string(); })
      .def_property_readonly("code", [](const RejectedPlugin& r) { return std::string(plugin_rejection_name(r.code)); })
      .def_readonly("reason", &RejectedPlugin::reason)
      .def("__repr__", [](const RejectedPlugin& r) { return "<vyre.RejectedPlugin " + r.path.string() + ": " + r.reason + ">"; });

  py::class_<PyRoute>(m, "Route", "The backend chosen for a program, and why.")
      .def_readonly("backend", &PyRoute::backend)
      .def_readonly("plugin", &PyRoute::plugin)
      .def_readonly("ops", &PyRoute::ops)
      .def_readonly("reason", &PyRoute::reason);

  py::class_<Registry>(m, "Registry",
      "Discovers backend plugins (VYRE_PLUGIN_PATH, then the installed plugin directory), and "
      "selects and routes as in C++.")
      .def(py::init(&make_registry), py::arg("plugin_dirs") = std::vector<std::string>{}, py::kw_only(),
           py::arg("use_environment") = true, py::arg("use_default_dirs") = true,
           py::arg("certificate_dir") = py::none(), py::arg("verify_plugins") = false,
           py::arg("log") = py::none())
      .def_property_readonly("search_dirs", [](const Registry& r) {
        std::vector<std::string> out;
        for (const auto& d : r.search_dirs()) out.push_back(d.string());
        return out;
      })
      .def_property_readonly("plugins", &Registry::plugins, "Loaded plugins, in selection order.")
      .def_property_readonly("rejected", &Registry::rejected)
      .def("ids", &Registry::ids)
      .def("find", [](const Registry& r, const std::string& id) -> std::optional<PluginInfo> {
        const PluginInfo* p = r.find(id);
        if (p == nullptr) return std::nullopt;
        return *p;
      })
      .def("probe", [](const Registry& r, const std::string& id) {
        py::gil_scoped_release release;
        return r.probe(id);
      }, "None when backend `id` can create an instance here, else the reason.")
      .def("backend", [](Registry& r, const std::string& id) {
        py::gil_scoped_release release;
        return PyBackend{r.backend(id)};
      }, "The shared default instance of backend `id`.")
      .def("create", [](const Registry& r, const std::string& id, std::optional<int> device_ordinal,
                        bool reverse_workgroups, std::uint32_t worker_threads, std::uint64_t memory_budget_bytes) {
        const CreateOptions o = create_options(device_ordinal, reverse_workgroups, worker_threads, memory_budget_bytes);
        py::gil_scoped_release release;
        return PyBackend{r.create(id, o)};
      }, py::arg("id"), py::kw_only(), py::arg("device_ordinal") = py::none(),
         py::arg("reverse_workgroups") = false, py::arg("worker_threads") = 0,
         py::arg("memory_budget_bytes") = 0, "A new instance of backend `id`.")
      .def("select", [](Registry& r) {
        Route route;
        {
          py::gil_scoped_release release;
          route = r.select();
        }
        return to_python(route);
      }, "VYRE_BACKEND when set, else the best-ranked backend that creates here.")
      .def("route", [](Registry& r, const std::shared_ptr<PyProgram>& program, std::optional<DispatchConfig> config) {
        Route route;
        {
          py::gil_scoped_release release;
          route = r.route(program->ir(), config ? &*config : nullptr);
        }
        return to_python(route);
      }, py::arg("program"), py::arg("config") = py::none(),
         "The best-ranked available backend whose ops cover the program's.");
}

}  // namespace vyre::python
