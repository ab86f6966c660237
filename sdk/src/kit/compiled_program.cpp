// CompiledProgram and CompletedPending.
#include <utility>

#include "vyre/plugin_kit.hpp"

namespace vyre::kit {

CompiledProgram::CompiledProgram(Program program, std::string fingerprint)
    : program_(std::move(program)), fingerprint_(std::move(fingerprint)) {
  inputs_ = program_.input_indices();
  outputs_ = program_.output_indices();
  traits_ = program_traits(program_);
  grid_sync_ = has_grid_sync(program_);
}

bool CompletedPending::poll() {
  if (failure_) throw *failure_;
  return true;
}

bool CompletedPending::wait(std::uint64_t) {
  if (failure_) throw *failure_;
  return true;
}

}  // namespace vyre::kit
