// A compiled pipeline: repeated host dispatches of one program + config, never slower than the
// same dispatch made plainly. Per input shape (the element count bound to each buffer, at most 8
// kept) it builds once what a dispatch needs (pipeline_shape.hpp): the staging a host dispatch would
// choose (mapped for small elementwise programs, else one image or per-buffer copies), its memory,
// and one graph replayed per dispatch. Nothing is captured or instantiated per call.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/runtime.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::cuda {

class PipelineShape;

class CudaPipeline final : public kit::CompiledPipeline {
 public:
  CudaPipeline(std::shared_ptr<Runtime> runtime, std::shared_ptr<const kit::CompiledProgram> program,
               DispatchConfig config, std::uint32_t flags);
  ~CudaPipeline() override;

  void dispatch(const kit::HostDispatch& dispatch);

 private:
  std::shared_ptr<PipelineShape> shape_for(const kit::HostDispatch& dispatch);

  std::shared_ptr<Runtime> runtime_;
  std::mutex mutex_;
  std::map<std::vector<std::uint64_t>, std::shared_ptr<PipelineShape>> shapes_;
};

}  // namespace vyre::cuda
