# Included by plugins/cuda/CMakeLists.txt once vyre_cuda_codegen exists. The AOT launcher's sources
# (src/aot/launcher/) are the one source of truth for
#   - vyre_aot_launcher_core: the launcher minus main(), C++17, for vyre-launch, vyre-aot (which
#     validates every manifest it writes with the launcher's own checks) and the tests;
#   - every bundle's launcher/: the files embedded verbatim into vyre_cuda_codegen
#     (launcher_sources.hpp), regenerated whenever one of them changes.
set(VYRE_AOT_LAUNCHER_DIR ${CMAKE_CURRENT_LIST_DIR}/launcher)
file(GLOB VYRE_AOT_LAUNCHER_FILES CONFIGURE_DEPENDS
  ${VYRE_AOT_LAUNCHER_DIR}/*.cpp ${VYRE_AOT_LAUNCHER_DIR}/*.hpp ${VYRE_AOT_LAUNCHER_DIR}/CMakeLists.txt)

file(GLOB VYRE_AOT_LAUNCHER_CORE_SOURCES CONFIGURE_DEPENDS ${VYRE_AOT_LAUNCHER_DIR}/*.cpp)
list(REMOVE_ITEM VYRE_AOT_LAUNCHER_CORE_SOURCES ${VYRE_AOT_LAUNCHER_DIR}/main.cpp)
add_library(vyre_aot_launcher_core STATIC ${VYRE_AOT_LAUNCHER_CORE_SOURCES})
add_library(vyre::aot_launcher_core ALIAS vyre_aot_launcher_core)
set_target_properties(vyre_aot_launcher_core PROPERTIES CXX_STANDARD 17)
target_include_directories(vyre_aot_launcher_core PUBLIC ${VYRE_AOT_LAUNCHER_DIR})
target_link_libraries(vyre_aot_launcher_core PUBLIC ${CMAKE_DL_LIBS})

set(VYRE_AOT_LAUNCHER_EMBEDDED ${CMAKE_CURRENT_BINARY_DIR}/aot_launcher_sources.cpp)
add_custom_command(
  OUTPUT ${VYRE_AOT_LAUNCHER_EMBEDDED}
  COMMAND ${CMAKE_COMMAND} -DVYRE_LAUNCHER_DIR=${VYRE_AOT_LAUNCHER_DIR} -DVYRE_OUTPUT=${VYRE_AOT_LAUNCHER_EMBEDDED}
          -P ${CMAKE_CURRENT_LIST_DIR}/embed_launcher_sources.cmake
  DEPENDS ${VYRE_AOT_LAUNCHER_FILES} ${CMAKE_CURRENT_LIST_DIR}/embed_launcher_sources.cmake
  COMMENT "Embedding the AOT launcher sources"
  VERBATIM)
target_sources(vyre_cuda_codegen PRIVATE ${VYRE_AOT_LAUNCHER_EMBEDDED})
