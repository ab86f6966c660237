#include "vyre/buffer_index.hpp"

namespace vyre {

BufferIndex::BufferIndex(const Program& program) : program_(&program) {
  for (std::size_t i = 0; i < program.buffers.size(); ++i) by_name_.try_emplace(program.buffers[i].name, i);
}

const BufferDecl* BufferIndex::find(std::string_view name) const {
  auto i = position(name);
  return i ? &program_->buffers[*i] : nullptr;
}

std::optional<std::size_t> BufferIndex::position(std::string_view name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

}  // namespace vyre
