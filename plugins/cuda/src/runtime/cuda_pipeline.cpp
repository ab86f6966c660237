#include "runtime/cuda_pipeline.hpp"

#include "runtime/pipeline_shape.hpp"

namespace vyre::cuda {
namespace {

constexpr std::size_t kMaxShapes = 8;

}  // namespace

CudaPipeline::CudaPipeline(std::shared_ptr<Runtime> runtime, std::shared_ptr<const kit::CompiledProgram> program,
                           DispatchConfig config, std::uint32_t flags)
    : kit::CompiledPipeline(std::move(program), std::move(config), flags), runtime_(std::move(runtime)) {}

CudaPipeline::~CudaPipeline() {
  runtime_->bind_quietly();
  shapes_.clear();
}

std::shared_ptr<PipelineShape> CudaPipeline::shape_for(const kit::HostDispatch& dispatch) {
  std::lock_guard lock(mutex_);
  auto found = shapes_.find(dispatch.buffer_elements);
  if (found != shapes_.end()) return found->second;
  if (shapes_.size() >= kMaxShapes) shapes_.erase(shapes_.begin());  // in-use shapes stay alive
  runtime_->bind();  // a new shape allocates and builds its replay
  auto shape = std::make_shared<PipelineShape>(runtime_, dispatch);
  shapes_.emplace(dispatch.buffer_elements, shape);
  return shape;
}

void CudaPipeline::dispatch(const kit::HostDispatch& dispatch) {
  shape_for(dispatch)->run(dispatch);
}

}  // namespace vyre::cuda
