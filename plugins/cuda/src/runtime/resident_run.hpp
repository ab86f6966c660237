// A dispatch on resident buffers (and host bytes bound to read/uniform buffers). The bound memory
// is used as it is: nothing is zeroed and nothing is read back. It is queued after the earlier
// work on each bound buffer, keeps every bound buffer in flight until it finishes, and returns a
// pending handle (or is waited for by the caller).
#pragma once

#include <memory>

#include "runtime/device_work.hpp"
#include "runtime/exec_plan.hpp"
#include "runtime/cuda_resident.hpp"

namespace vyre::cuda {

class ResidentRun final : public DeviceWork {
 public:
  static std::unique_ptr<ResidentRun> start(std::shared_ptr<Runtime> runtime,
                                            const kit::ResidentDispatch& dispatch, bool timed);
  ~ResidentRun() override { finish_before_destroy(); }
  vyre::Timing timing() const;

 private:
  ResidentRun(std::shared_ptr<Runtime> runtime, const kit::ResidentDispatch& dispatch, StreamLease stream);
  // `bound`: the CudaResident of each binding (null for host and workgroup bindings).
  void queue(const kit::ResidentDispatch& dispatch, const ExecPlan& plan, bool timed,
             const std::vector<CudaResident*>& bound, const StopCondition& stop);
  void on_success() override;
  void on_finish() override;

  std::shared_ptr<const kit::CompiledProgram> program_;
  InFlightGuard in_flight_;
  DispatchTimer timer_;
};

// Pointers for a resident dispatch's bindings, staging host-bound bytes through `staging` and
// `device` (queued on `stream`). Throws VYRE_ERR_INVALID_ARGUMENT for a host binding when
// `allow_host` is false (sequence steps bind resident buffers only).
std::vector<drv::CUdeviceptr> bind_resident(Runtime& runtime, const kit::ResidentDispatch& dispatch,
                                            bool allow_host, Block& staging, Block& device,
                                            drv::CUstream stream);

}  // namespace vyre::cuda
