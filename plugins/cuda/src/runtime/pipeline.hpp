// A compiled pipeline: repeated host dispatches of one program + config. Per input shape (the
// element count bound to each buffer) it keeps device memory, pinned staging and a CUDA graph
// captured once: uploads from staging, output zeroing, the launches, readbacks into staging. A
// dispatch copies the inputs into staging, replays the graph, waits once and copies the outputs
// out; nothing is re-captured per call. Plans that launch cooperatively (grid_sync programs whose
// grid fits co-resident) are replayed by direct launches instead, as is any shape whose capture
// the driver refuses.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/runtime.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::cuda {

class PipelineShape;

class CudaPipeline final : public kit::Pipeline {
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
