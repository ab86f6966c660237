#include "runtime/deferred_release.hpp"

namespace vyre::cuda {

DeferredRelease::~DeferredRelease() {
  for (auto& [fence, blocks] : parked_) context_.driver().cuEventSynchronize(fence->get());
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
      // Anything but NOT_READY (success, or a sticky error) means the copy will not run any more.
      if (context_.driver().cuEventQuery(parked_[i].first->get()) == drv::CUDA_ERROR_NOT_READY) {
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
