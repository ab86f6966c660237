// A program compiled for this instance: the validated IR (kit::CompiledProgram) plus its loaded
// module. Dispatches reuse it without re-lowering, re-hashing or re-loading anything.
#pragma once

#include <memory>

#include "runtime/module_loader.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::cuda {

class CudaProgram final : public kit::CompiledProgram {
 public:
  CudaProgram(Program program, std::string fingerprint, std::shared_ptr<const LoadedModule> module)
      : kit::CompiledProgram(std::move(program), std::move(fingerprint)), module_(std::move(module)) {}

  const LoadedModule& module() const { return *module_; }

 private:
  std::shared_ptr<const LoadedModule> module_;
};

// The CudaProgram behind a kit program handle (every program of this backend is one).
const CudaProgram& cuda_program(const kit::CompiledProgram& program);

}  // namespace vyre::cuda
