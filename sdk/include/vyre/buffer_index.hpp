// A program's buffers by name, for walks that look a buffer up at every load, store and atomic:
// O(log n) per lookup where Program::find_buffer is linear, so a walk stays O(n log n) however many
// buffers a program declares. The first declaration of a name wins, as in Program::find_buffer.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string_view>

#include "vyre/ir.hpp"

namespace vyre {

class BufferIndex {
 public:
  BufferIndex() = default;  // an index of no buffers
  // Keeps references into `program`: it must outlive the index and keep its buffers unchanged.
  explicit BufferIndex(const Program& program);

  // The declaration named `name`, or nullptr.
  const BufferDecl* find(std::string_view name) const;
  // Its position in Program::buffers, or nullopt.
  std::optional<std::size_t> position(std::string_view name) const;

 private:
  const Program* program_ = nullptr;
  std::map<std::string_view, std::size_t, std::less<>> by_name_;
};

}  // namespace vyre
