# cmake -DVYRE_LAUNCHER_DIR=... -DVYRE_OUTPUT=... -P embed_launcher_sources.cmake
# Writes VYRE_OUTPUT: a C++ file defining vyre::cuda::aot::launcher_sources() with every launcher
# file as a raw string literal.
set(delimiter "vyre_launcher")
file(GLOB files RELATIVE ${VYRE_LAUNCHER_DIR}
  ${VYRE_LAUNCHER_DIR}/*.cpp ${VYRE_LAUNCHER_DIR}/*.hpp ${VYRE_LAUNCHER_DIR}/CMakeLists.txt)
list(SORT files)
set(body "")
foreach(name IN LISTS files)
  file(READ ${VYRE_LAUNCHER_DIR}/${name} text)
  string(FIND "${text}" ")${delimiter}\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${name} contains the raw-string delimiter )${delimiter}\"; change the delimiter")
  endif()
  string(APPEND body "    {\"${name}\", R\"${delimiter}(${text})${delimiter}\"},\n")
endforeach()
set(source "// Generated from plugins/cuda/src/aot/launcher/ by embed_launcher_sources.cmake. Do not edit.
#include \"aot/launcher_sources.hpp\"

namespace vyre::cuda::aot {
namespace {

constexpr EmbeddedFile kFiles[] = {
${body}};

}  // namespace

std::span<const EmbeddedFile> launcher_sources() { return kFiles; }

}  // namespace vyre::cuda::aot
")
# Rewrite only on change, so an unchanged launcher does not rebuild the library.
if(EXISTS ${VYRE_OUTPUT})
  file(READ ${VYRE_OUTPUT} previous)
  if(previous STREQUAL source)
    return()
  endif()
endif()
file(WRITE ${VYRE_OUTPUT} "${source}")
