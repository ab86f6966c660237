# The installed package (SPEC §1, docs/EMBEDDING.md): lib/cmake/vyre/vyreConfig.cmake and
# vyreConfigVersion.cmake exporting vyre::sdk, vyre::registry and vyre::plugin_kit with their usage
# requirements; VyrePlugin.cmake and plugin.map for plugins built out of tree; lib/pkgconfig/vyre.pc
# for hosts built without CMake.
include(CMakePackageConfigHelpers)
set(VYRE_PACKAGE_DIR ${VYRE_INSTALL_LIBDIR}/cmake/vyre)

install(EXPORT vyreTargets NAMESPACE vyre:: DESTINATION ${VYRE_PACKAGE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/vyreConfig.cmake.in
  ${PROJECT_BINARY_DIR}/package/vyreConfig.cmake
  INSTALL_DESTINATION ${VYRE_PACKAGE_DIR}
  PATH_VARS VYRE_INSTALL_LIBDIR)
# 0.x: a minor version may change the C++ API, so only the same major.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/vyreConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/package/vyreConfig.cmake
  ${PROJECT_BINARY_DIR}/package/vyreConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/VyrePlugin.cmake
  ${PROJECT_SOURCE_DIR}/cmake/plugin.map
  DESTINATION ${VYRE_PACKAGE_DIR})

# pkg-config: the host libraries. ${pcfiledir} keeps the file relocatable with the prefix.
configure_file(${PROJECT_SOURCE_DIR}/cmake/vyre.pc.in ${PROJECT_BINARY_DIR}/package/vyre.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/package/vyre.pc DESTINATION ${VYRE_INSTALL_LIBDIR}/pkgconfig)
