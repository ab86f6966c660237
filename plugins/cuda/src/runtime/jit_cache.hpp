// The driver's JIT disk cache: PTX compiled by one process is reused by the next. Unless the user
// set CUDA_CACHE_PATH, the runtime points it at ~/.cache/vyre (or $XDG_CACHE_HOME/vyre) before
// cuInit, creating the directory.
#pragma once

#include <string>

namespace vyre::cuda {

// The directory to export as CUDA_CACHE_PATH given the current values of CUDA_CACHE_PATH,
// XDG_CACHE_HOME and HOME (any may be null): empty when the user already chose one (or no home
// directory is known), else "<XDG_CACHE_HOME or HOME/.cache>/vyre".
std::string jit_cache_directory(const char* cuda_cache_path, const char* xdg_cache_home,
                                const char* home);

// Create the directory and export CUDA_CACHE_PATH when the user has not; call before cuInit.
// Returns the cache directory in effect ("" when unknown). Never throws: the cache is an
// optimisation, so a failure is logged and skipped.
std::string prepare_jit_cache();

}  // namespace vyre::cuda
