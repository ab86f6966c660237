// vyre ops: the op catalog, or one backend's op set.
#include <fmt/core.h>

#include "cli.hpp"
#include "vyre/ops.hpp"

namespace vyre::cli {

const std::string_view kOpsHelp = R"(usage: vyre [global options] ops [--backend ID]

Without --backend: every op id of the catalog with its signature and comparison tolerance
(exact, or the ULP bound conform allows), then the catalog hash.
With --backend ID: the op ids that backend declares (and, with a certificate, routes by).
)";

namespace {

void print_op(const OpInfo& op) {
  const std::string tolerance =
      op.tolerance.exact() ? std::string("exact") : fmt::format("{} ulp", op.tolerance.max_ulp);
  fmt::print("{:<36} {:<28} {}\n", op.id, op.signature(), tolerance);
}

}  // namespace

int run_ops(const GlobalOptions& global, Args& args) {
  const std::optional<std::string> backend = args.take_option("--backend");
  args.finish("vyre ops");
  if (!backend) {
    for (const OpInfo& op : op_catalog()) print_op(op);
    fmt::print("{} ops; catalog hash {}\n", op_catalog().size(), catalog_hash());
    return kExitOk;
  }
  const std::unique_ptr<Registry> registry = make_registry(global);
  const PluginInfo* plugin = registry->find(*backend);
  if (plugin == nullptr) registry->fns(*backend);  // throws NOT_FOUND listing the loaded ids
  for (const std::string& id : registry->routing_ops(*backend)) {
    const OpInfo* op = find_op(id);
    if (op) print_op(*op);
  }
  fmt::print("{}: {} ops{}\n", plugin->id, registry->routing_ops(*backend).size(),
             registry->has_certified_ops(*backend) ? " (certified)" : "");
  return kExitOk;
}

}  // namespace vyre::cli
