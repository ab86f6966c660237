#include "aot/manifest_writer.hpp"

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include "vyre/fingerprint.hpp"
#include "vyre/types.hpp"

namespace vyre::cuda::aot {
namespace {

const char* param_kind_name(ParamKind kind) {
  switch (kind) {
    case ParamKind::BufferPointer:
      return "buffer_pointer";
    case ParamKind::ElementCount:
      return "element_count";
    case ParamKind::DispatchN:
      return "dispatch_n";
    case ParamKind::TailGuard:
      return "tail_guard";
    case ParamKind::WorkgroupBase:  // sharded modules only; bundles hold unsharded ones
      return "workgroup_base";
    case ParamKind::GridX:
      return "grid_x";
    case ParamKind::GridBarrier:
      return "grid_barrier";
  }
  return "unknown";
}

boost::json::array dims(const std::array<std::uint32_t, 3>& d) { return {d[0], d[1], d[2]}; }

boost::json::array params_json(const KernelEntry& entry) {
  boost::json::array params;
  for (const KernelParam& p : entry.params) {
    boost::json::object param;
    param["kind"] = param_kind_name(p.kind);
    if (p.kind == ParamKind::BufferPointer || p.kind == ParamKind::ElementCount) param["buffer"] = p.buffer;
    param["bytes"] = p.bytes;
    params.push_back(std::move(param));
  }
  return params;
}

// entry_point, kernel_params, shared_bytes, cooperative: into `out` (the top level or a phase).
void put_entry(boost::json::object& out, const KernelEntry& entry) {
  out["entry_point"] = entry.name;
  out["kernel_params"] = params_json(entry);
  out["shared_bytes"] = entry.shared_bytes;
  out["cooperative"] = entry.cooperative;
}

boost::json::array buffers_json(const Program& program, const BundleGeometry& geometry) {
  boost::json::array buffers;
  for (std::size_t i = 0; i < program.buffers.size(); ++i) {
    const BufferDecl& b = program.buffers[i];
    const std::uint64_t count = geometry.counts[i];
    boost::json::object buffer;
    buffer["name"] = b.name;
    buffer["binding"] = b.binding;
    buffer["role"] = std::string(access_name(b.access));
    buffer["element"] = std::string(type_name(b.element));
    buffer["element_bytes"] = byte_size(b.element);
    buffer["count"] = count;
    buffer["byte_size"] = count * byte_size(b.element);
    if (b.output_byte_range)
      buffer["output_byte_range"] = boost::json::array{b.output_byte_range->begin, b.output_byte_range->end};
    buffers.push_back(std::move(buffer));
  }
  return buffers;
}

std::string first_input_name(const Program& program) {
  const auto inputs = program.input_indices();
  return inputs.empty() ? std::string() : program.buffers[inputs.front()].name;
}

boost::json::object kernel_json(const ManifestInputs& in) {
  boost::json::object kernel;
  kernel["ptx"] = file_entry(*in.ptx);
  if (in.cubin != nullptr) {
    boost::json::object cubin = file_entry(*in.cubin);
    cubin["sm"] = in.target.sm;
    kernel["cubin"] = std::move(cubin);
  } else {
    kernel["cubin"] = nullptr;
  }
  kernel["cubin_status"] = in.cubin_status;
  return kernel;
}

}  // namespace

boost::json::object file_entry(const BundleFile& file) {
  boost::json::object entry;
  entry["file"] = file.name;
  entry["sha256"] = sha256_hex(file.data);
  entry["byte_size"] = file.data.size();
  return entry;
}

std::string ptx_module_version(const std::string& ptx) {
  const std::size_t at = ptx.find(".version ");
  if (at == std::string::npos) return {};
  const std::size_t begin = at + 9;
  const std::size_t end = ptx.find_first_of(" \t\r\n", begin);
  return ptx.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

boost::json::object build_manifest(const ManifestInputs& in) {
  const LaunchGeometry& launch = in.geometry->launch;
  boost::json::object m;
  m["schema"] = kManifestSchema;
  m["generator"] = "vyre-cpp cuda plugin (PTX emitter)";
  m["backend"] = "cuda";
  m["program_fingerprint"] = in.fingerprint;
  m["target"] = in.target.name();
  m["target_sm"] = in.target.sm;
  m["ptx_isa_version"] = ptx_module_version(in.lowered->ptx);
  put_entry(m, in.lowered->whole);
  boost::json::array phases;
  for (const KernelEntry& phase : in.lowered->phases) {
    boost::json::object entry;
    put_entry(entry, phase);
    phases.push_back(std::move(entry));
  }
  m["phases"] = std::move(phases);
  m["grid_barrier_bytes"] = in.lowered->grid_barrier_bytes;
  m["workgroup"] = dims(launch.workgroup);
  m["grid"] = dims(launch.grid);
  m["dispatch_elements"] = launch.n;
  m["tail_guard"] = launch.tail_guard;
  m["fixpoint_iterations"] = launch.fixpoint_iterations;
  m["buffers"] = buffers_json(*in.program, *in.geometry);
  m["kernel"] = kernel_json(in);
  if (in.weights != nullptr) {
    boost::json::object weights = file_entry(*in.weights);
    weights["buffer"] = first_input_name(*in.program);
    m["weights"] = std::move(weights);
  } else {
    m["weights"] = nullptr;
  }
  m["inputs"] = boost::json::array{};
  boost::json::array launcher;
  for (const std::string& name : in.launcher_files) launcher.push_back(boost::json::string(name));
  m["launcher"] = std::move(launcher);
  return m;
}

}  // namespace vyre::cuda::aot
