#include "runtime/module_loader.hpp"

#include <array>
#include <cstdint>

#include <fmt/format.h>

#include "vyre/error.hpp"

namespace vyre::cuda {
namespace {

constexpr std::size_t kLogBytes = 16 * 1024;

std::string trimmed_log(const std::array<char, kLogBytes>& log) {
  std::string text(log.data());
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text.empty() ? "(empty)" : text;
}

[[noreturn]] void fail_load(const Driver& driver, drv::CUresult result, std::string_view what,
                            const LoweredProgram& lowered, const std::string& log) {
  const std::string problem =
      fmt::format("cuModuleLoadDataEx rejected the PTX of program {} for {}: {}; JIT log: {}", what,
                  lowered.target, driver.describe(result), log);
  switch (result) {
    case drv::CUDA_ERROR_OUT_OF_MEMORY:
      fail(VYRE_ERR_OUT_OF_MEMORY, problem, "free device memory and compile again");
    case drv::CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
      fail(VYRE_ERR_DEVICE, problem,
           fmt::format("update the NVIDIA driver: driver {} cannot JIT this PTX ISA version",
                       driver.version()));
    case drv::CUDA_ERROR_INVALID_PTX:
    case drv::CUDA_ERROR_INVALID_IMAGE:
    case drv::CUDA_ERROR_NO_BINARY_FOR_GPU:
      fail(VYRE_ERR_INTERNAL, problem,
           "this is a bug in the vyre PTX emitter; report it with the program (vyre run --backend "
           "cuda reproduces it) and the JIT log above");
    default:  // the driver or device, not the PTX
      fail(VYRE_ERR_DEVICE, problem,
           "check the device (nvidia-smi) and compile again; after a sticky device error the "
           "instance must be recreated");
  }
}

KernelFunction resolve(const Driver& driver, drv::CUmodule module, const KernelEntry& entry,
                       std::string_view what) {
  KernelFunction kernel;
  kernel.entry = entry;
  const drv::CUresult found = driver.cuModuleGetFunction(&kernel.function, module, entry.name.c_str());
  if (found == drv::CUDA_ERROR_NOT_FOUND) {
    fail(VYRE_ERR_INTERNAL,
         fmt::format("The PTX of program {} has no entry `{}`: cuModuleGetFunction: {}", what, entry.name,
                     driver.describe(found)),
         "this is a bug in the vyre PTX emitter: LoweredProgram must name the .entry it emits");
  }
  driver.check(found, fmt::format("cuModuleGetFunction(`{}` of program {})", entry.name, what));
  auto attribute = [&](int which, const char* name) {
    int value = 0;
    driver.check(driver.cuFuncGetAttribute(&value, which, kernel.function), name);
    return value < 0 ? 0u : static_cast<std::uint32_t>(value);
  };
  kernel.max_threads_per_block =
      attribute(drv::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "cuFuncGetAttribute(max threads)");
  kernel.static_shared_bytes =
      attribute(drv::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "cuFuncGetAttribute(shared bytes)");
  kernel.registers = attribute(drv::CU_FUNC_ATTRIBUTE_NUM_REGS, "cuFuncGetAttribute(registers)");
  kernel.local_bytes = attribute(drv::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "cuFuncGetAttribute(local bytes)");
  return kernel;
}

}  // namespace

LoadedModule load_module(const Driver& driver, std::shared_ptr<const LoweredProgram> lowered,
                         std::string_view what) {
  std::array<char, kLogBytes> error_log{};
  std::array<char, kLogBytes> info_log{};
  std::array<drv::CUjit_option, 4> options{
      drv::CU_JIT_ERROR_LOG_BUFFER, drv::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
      drv::CU_JIT_INFO_LOG_BUFFER, drv::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  std::array<void*, 4> values{
      error_log.data(), reinterpret_cast<void*>(static_cast<std::uintptr_t>(kLogBytes - 1)),
      info_log.data(), reinterpret_cast<void*>(static_cast<std::uintptr_t>(kLogBytes - 1))};

  LoadedModule loaded;
  loaded.lowered = std::move(lowered);
  const drv::CUresult result =
      driver.cuModuleLoadDataEx(&loaded.module, loaded.lowered->ptx.c_str(),
                                static_cast<unsigned int>(options.size()), options.data(), values.data());
  if (result != drv::CUDA_SUCCESS) {
    fail_load(driver, result, what, *loaded.lowered, trimmed_log(error_log));
  }
  try {
    loaded.whole = resolve(driver, loaded.module, loaded.lowered->whole, what);
    for (const KernelEntry& phase : loaded.lowered->phases) {
      loaded.phases.push_back(resolve(driver, loaded.module, phase, what));
    }
    if (loaded.lowered->elementwise) {
      loaded.elementwise = resolve(driver, loaded.module, *loaded.lowered->elementwise, what);
    }
  } catch (...) {
    unload_module(driver, loaded);
    throw;
  }
  return loaded;
}

void unload_module(const Driver& driver, LoadedModule& module) {
  if (module.module != nullptr) driver.cuModuleUnload(module.module);
  module.module = nullptr;
}

}  // namespace vyre::cuda
