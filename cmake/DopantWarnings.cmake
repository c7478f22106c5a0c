# Warning flags for every first-party target; -Werror when DOPANT_WERROR is on (CI).
function(dopant_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(DOPANT_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
    # GCC 12 reports -Wrestrict on `"literal" + std::string` at -O3 (a false positive in
    # its own <string>, GCC bug 105329): keep the warning, do not fail the build on it.
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
      target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wno-error=restrict>)
    endif()
  endif()
endfunction()
