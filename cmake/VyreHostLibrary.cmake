# vyre_host_library(<target> OUTPUT_NAME <name> EXPORT_NAME <name>): a shared library of the host
# side (libvyre_sdk.so, libvyre_registry.so), in <build>/lib like its installed twin in
# <prefix>/lib, exported as vyre::<EXPORT_NAME> (docs/EMBEDDING.md). The registry finds the default
# plugin directory next to itself (<its directory>/vyre/plugins), so a build tree's binaries see
# the build tree's plugins and installed ones the installed plugins.
function(vyre_host_library target)
  cmake_parse_arguments(ARG "" "OUTPUT_NAME;EXPORT_NAME" "" ${ARGN})
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME ${ARG_OUTPUT_NAME}
    EXPORT_NAME ${ARG_EXPORT_NAME}
    LIBRARY_OUTPUT_DIRECTORY ${VYRE_LIBRARY_BUILD_DIR}
    VERSION ${PROJECT_VERSION}
    SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
    INSTALL_RPATH "$ORIGIN")
  install(TARGETS ${target} EXPORT vyreTargets LIBRARY DESTINATION ${VYRE_INSTALL_LIBDIR})
endfunction()
