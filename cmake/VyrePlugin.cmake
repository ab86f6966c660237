# vyre_add_plugin(<target> SOURCES ...): a backend plugin shared object, libvyre_<id>.so in
# build/plugins, exporting nothing but vyre_backend_register (SPEC §7), installed to
# <prefix>/lib/vyre/plugins.
function(vyre_add_plugin target)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  add_library(${target} MODULE ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/plugins
    CXX_VISIBILITY_PRESET hidden
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_link_libraries(${target} PRIVATE vyre::plugin_kit)
  target_link_options(${target} PRIVATE
    -Wl,--version-script=${PROJECT_SOURCE_DIR}/cmake/plugin.map
    -Wl,--exclude-libs,ALL
    -Wl,--no-undefined)
  install(TARGETS ${target} LIBRARY DESTINATION lib/vyre/plugins)
endfunction()
