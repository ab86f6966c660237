// Program queries: buffer lookup and the host input/output order of SPEC §2.
#include "vyre/ir.hpp"

namespace vyre {

const BufferDecl* Program::find_buffer(std::string_view buffer_name) const {
  for (const auto& decl : buffers)
    if (decl.name == buffer_name) return &decl;
  return nullptr;
}

std::vector<std::size_t> Program::input_indices() const {
  std::vector<std::size_t> indices;
  for (std::size_t i = 0; i < buffers.size(); ++i)
    if (is_host_input(buffers[i].access)) indices.push_back(i);
  return indices;
}

std::vector<std::size_t> Program::output_indices() const {
  std::vector<std::size_t> indices;
  for (std::size_t i = 0; i < buffers.size(); ++i)
    if (is_host_output(buffers[i].access)) indices.push_back(i);
  return indices;
}

}  // namespace vyre
