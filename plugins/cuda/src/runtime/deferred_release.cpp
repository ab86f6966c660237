#include "runtime/deferred_release.hpp"

namespace vyre::cuda {

DeferredRelease::~DeferredRelease() {
  for (auto& [fence, blocks] : parked_) {
    try {
      context_.driver().cuEventSynchronize(fence->get());
    } catch (const std::exception&) {
      // A fence that cannot be recorded fences nothing more than its stream's drained work.
    }
  }
}

void DeferredRelease::park(EventRef fence, std::vector<Block> blocks) {
  std::lock_guard lock(mutex_);
  parked_.emplace_back(std::move(fence), std::move(blocks));
}

void DeferredRelease::reap() {
  std::vector<std::pair<EventRef, std::vector<Block>>> done;
  {
    std::lock_guard lock(mutex_);
    std::size_t keep = 0;
    for (std::size_t i = 0; i < parked_.size(); ++i) {
      // Only a completed fence frees its blocks: after an error the copy may still be running (a
      // sticky error keeps them parked until the instance is destroyed, which it then must be).
      if (context_.driver().cuEventQuery(parked_[i].first->get()) != drv::CUDA_SUCCESS) {
        if (keep != i) std::swap(parked_[keep], parked_[i]);
        ++keep;
      } else {
        done.push_back(std::move(parked_[i]));
      }
    }
    parked_.resize(keep);
  }
  // `done` releases its blocks here, outside the lock.
}

std::size_t DeferredRelease::parked() const {
  std::lock_guard lock(mutex_);
  return parked_.size();
}

}  // namespace vyre::cuda
