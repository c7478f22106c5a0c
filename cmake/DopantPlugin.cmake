# dopant_add_plugin(NAME SOURCES ... [OUTPUT_DIR dir] [NO_INSTALL] [LINK libs...])
#
# Builds a plugin library the way the ABI rules ask: a loadable module named
# dopant-NAME.so, hidden visibility, a version script that exports only
# dpt_plugin_entry_v1, and -z defs so a missing symbol fails at link time, not at load
# time. Installed under lib/dopant/plugins. Used in-tree and, through the installed
# package, by third parties.
set(DOPANT_PLUGIN_VERSION_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/plugin.map" CACHE INTERNAL "")

function(dopant_add_plugin name)
  cmake_parse_arguments(ARG "NO_INSTALL" "OUTPUT_DIR" "SOURCES;LINK" ${ARGN})
  set(target dopant-${name})
  add_library(${target} MODULE ${ARG_SOURCES})
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(ARG_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIR}")
  elseif(DEFINED DOPANT_PLUGIN_BUILD_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${DOPANT_PLUGIN_BUILD_DIR}")
  endif()
  target_link_options(${target} PRIVATE
    "LINKER:-z,defs" "LINKER:--version-script=${DOPANT_PLUGIN_VERSION_SCRIPT}")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${DOPANT_PLUGIN_VERSION_SCRIPT}")
  if(TARGET dopant::sdk)
    target_link_libraries(${target} PRIVATE dopant::sdk)
  else()
    target_link_libraries(${target} PRIVATE dopant::abi)
  endif()
  if(ARG_LINK)
    target_link_libraries(${target} PRIVATE ${ARG_LINK})
  endif()
  if(COMMAND dopant_warnings)
    dopant_warnings(${target})
  endif()
  if(NOT ARG_NO_INSTALL)
    if(NOT DEFINED DOPANT_PLUGIN_INSTALL_DIR)
      include(GNUInstallDirs)
      set(DOPANT_PLUGIN_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/dopant/plugins")
    endif()
    install(TARGETS ${target} LIBRARY DESTINATION "${DOPANT_PLUGIN_INSTALL_DIR}")
  endif()
endfunction()
