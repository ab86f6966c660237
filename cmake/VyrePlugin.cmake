# vyre_add_plugin(<target> SOURCES ...): a backend plugin shared object named lib<target>.so (name
# the target vyre_<id>), in <build>/plugins, exporting nothing but vyre_backend_register (SPEC §7:
# hidden visibility, the version script plugin.map beside this file, archives' symbols local),
# installed to <prefix>/lib/vyre/plugins where vyre's registry finds it. It links vyre::plugin_kit,
# which brings a private static copy of the SDK: the plugin depends on no vyre library at run time.
#
# Used by vyre's own plugins and, installed with the package (lib/cmake/vyre), by plugins built out
# of tree against an installed vyre (find_package(vyre) includes this file; docs/EMBEDDING.md).
set(VYRE_PLUGIN_MAP ${CMAKE_CURRENT_LIST_DIR}/plugin.map)

function(vyre_add_plugin target)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  add_library(${target} MODULE ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/plugins
    CXX_VISIBILITY_PRESET hidden
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    INSTALL_RPATH "")
  target_link_libraries(${target} PRIVATE vyre::plugin_kit)
  target_link_options(${target} PRIVATE
    -Wl,--version-script=${VYRE_PLUGIN_MAP}
    -Wl,--exclude-libs,ALL
    -Wl,--no-undefined)
  install(TARGETS ${target} LIBRARY DESTINATION lib/vyre/plugins)
endfunction()
