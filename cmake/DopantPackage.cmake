# Installs the CMake package (find_package(dopant)) and the pkg-config file.
include(CMakePackageConfigHelpers)
set(DOPANT_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/dopant")
install(EXPORT dopantTargets NAMESPACE dopant:: DESTINATION "${DOPANT_CMAKE_DIR}")
install(EXPORT dopantConformanceTargets NAMESPACE dopant:: DESTINATION "${DOPANT_CMAKE_DIR}")
configure_package_config_file(cmake/dopantConfig.cmake.in
  "${CMAKE_CURRENT_BINARY_DIR}/dopantConfig.cmake" INSTALL_DESTINATION "${DOPANT_CMAKE_DIR}")
write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/dopantConfigVersion.cmake"
  COMPATIBILITY SameMajorVersion)
install(FILES
  "${CMAKE_CURRENT_BINARY_DIR}/dopantConfig.cmake"
  "${CMAKE_CURRENT_BINARY_DIR}/dopantConfigVersion.cmake"
  cmake/DopantPlugin.cmake cmake/plugin.map
  DESTINATION "${DOPANT_CMAKE_DIR}")
# The .pc file finds its prefix relative to itself, so an install moved or made with
# `cmake --install --prefix` stays correct.
file(RELATIVE_PATH DOPANT_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" DOPANT_PC_TO_PREFIX "${DOPANT_PC_TO_PREFIX}")
configure_file(cmake/dopant.pc.in "${CMAKE_CURRENT_BINARY_DIR}/dopant.pc" @ONLY)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/dopant.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
