# Finds GNU libltdl (Debian's libltdl-dev ships neither a CMake file nor a pkg-config file).
# Defines LTDL_FOUND and the imported target LTDL::LTDL.
find_path(LTDL_INCLUDE_DIR NAMES ltdl.h)
find_library(LTDL_LIBRARY NAMES ltdl)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(LTDL REQUIRED_VARS LTDL_LIBRARY LTDL_INCLUDE_DIR)
if(LTDL_FOUND AND NOT TARGET LTDL::LTDL)
  add_library(LTDL::LTDL UNKNOWN IMPORTED)
  set_target_properties(LTDL::LTDL PROPERTIES
    IMPORTED_LOCATION "${LTDL_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${LTDL_INCLUDE_DIR}")
endif()
mark_as_advanced(LTDL_INCLUDE_DIR LTDL_LIBRARY)
