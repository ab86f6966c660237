// Function-table slots: compiled pipelines and their optional output cache.
#include <string>

#include "call_helpers.hpp"
#include "checks.hpp"
#include "entry_points.hpp"
#include "errors.hpp"
#include "host_dispatch.hpp"
#include "instance.hpp"
#include "vyre/abi_convert.hpp"
#include "vyre/abi_structs.hpp"

namespace vyre::kit::detail {

namespace {

constexpr std::uint32_t kKnownPipelineFlags = VYRE_PIPELINE_CACHE_OUTPUTS;

void check_pipeline_flags(const CompiledProgram& program, std::uint32_t flags) {
  if ((flags & ~kKnownPipelineFlags) != 0)
    fail(VYRE_ERR_INVALID_ARGUMENT,
         "vyre_pipeline_args.flags has unknown bits 0x" + std::to_string(flags & ~kKnownPipelineFlags),
         "set only VYRE_PIPELINE_* flags of backend_abi.h");
  if ((flags & VYRE_PIPELINE_CACHE_OUTPUTS) == 0) return;
  for (const BufferDecl& buffer : program.program().buffers) {
    if (buffer.access != Access::ReadWrite) continue;
    fail(VYRE_ERR_INVALID_ARGUMENT,
         "VYRE_PIPELINE_CACHE_OUTPUTS was requested but buffer '" + buffer.name +
             "' is read_write: its outputs depend on more than the inputs of one dispatch",
         "drop VYRE_PIPELINE_CACHE_OUTPUTS for this program, or split the read_write buffer into "
         "a read input and an output");
  }
}

// Serve the dispatch from the cache, or run it and remember its outputs.
void run_cached(Instance& instance, PipelineEntry& entry, const HostDispatch& dispatch) {
  if (entry.cache->lookup(dispatch.inputs, dispatch.outputs)) {
    ++instance.cache_hits;
    return;
  }
  instance.backend().pipeline_dispatch(*entry.pipeline, dispatch);
  ++instance.cache_misses;
  entry.cache->store(dispatch.inputs, dispatch.outputs);
}

}  // namespace

vyre_status pipeline_create(vyre_backend* backend, const vyre_pipeline_args* args,
                            vyre_pipeline** out, vyre_error** error) {
  return guard(error, [&] {
    std::shared_ptr<Instance> instance = find_instance(backend);
    require_out_pointer(out, "pipeline_create");
    *out = nullptr;
    const vyre_pipeline_args a = abi::read_struct(args, "vyre_pipeline_args");
    std::shared_ptr<const CompiledProgram> program = instance->programs.get(from_handle(a.program));
    const DispatchConfig config = abi::from_abi(a.config);
    check_config_supported(config);
    check_pipeline_flags(*program, a.flags);
    auto entry = std::make_shared<PipelineEntry>();
    entry->pipeline = instance->backend().pipeline_create(program, config, a.flags);
    if (!entry->pipeline)
      fail(VYRE_ERR_INTERNAL, "pipeline_create returned no pipeline", "fix the plugin's pipeline_create");
    if (a.flags & VYRE_PIPELINE_CACHE_OUTPUTS) entry->cache = std::make_unique<OutputCache>();
    *out = to_handle<vyre_pipeline>(instance->pipelines.insert(std::move(entry)));
  });
}

vyre_status pipeline_dispatch(vyre_backend* backend, const vyre_pipeline_dispatch_args* args,
                              vyre_error** error) {
  return guard(error, [&] {
    std::shared_ptr<Instance> instance = find_instance(backend);
    const vyre_pipeline_dispatch_args a = abi::read_struct(args, "vyre_pipeline_dispatch_args");
    std::shared_ptr<PipelineEntry> entry = instance->pipelines.get(from_handle(a.pipeline));
    const HostDispatch dispatch =
        make_host_dispatch(entry->pipeline->program(), entry->pipeline->config(), a.inputs,
                           a.input_count, a.outputs, a.output_count);
    if (entry->cache)
      run_cached(*instance, *entry, dispatch);
    else
      instance->backend().pipeline_dispatch(*entry->pipeline, dispatch);
    set_output_lengths(a.outputs, dispatch);
  });
}

vyre_status pipeline_release(vyre_backend* backend, vyre_pipeline* pipeline, vyre_error** error) {
  return guard(error, [&] {
    std::shared_ptr<Instance> instance = find_instance(backend);
    instance->pipelines.take(from_handle(pipeline));
  });
}

}  // namespace vyre::kit::detail
