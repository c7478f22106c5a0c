# Sanitizer and fuzzing builds.
#
# -DDOPANT_SANITIZE=address,undefined compiles and links every target (libdopant, the SDK,
# plugins, tests) with those sanitizers, so the tests run once more under ASan and UBSan
# (scripts/check-sanitized.sh). Undefined behaviour aborts instead of printing and going on,
# so it fails the test. The flags are passed at link time too: GCC then records the
# sanitizer runtimes as dependencies of each plugin, which keeps plugins linking with
# -z defs. nvcc cannot take these flags, so a sanitized build has no CUDA paths.
#
# -DDOPANT_FUZZ=ON, with clang, adds libFuzzer's coverage instrumentation to every target
# and builds the libFuzzer targets in tests/fuzz (scripts/fuzz.sh). It implies
# address,undefined unless DOPANT_SANITIZE names other sanitizers.
set(DOPANT_SANITIZE "" CACHE STRING
    "Comma-separated sanitizers to build with, e.g. address,undefined (empty: none)")
option(DOPANT_FUZZ "Build the libFuzzer targets (needs clang)" OFF)

if(DOPANT_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "DOPANT_FUZZ needs clang (CC=clang CXX=clang++), not ${CMAKE_CXX_COMPILER_ID}")
  endif()
  if(NOT DOPANT_SANITIZE)
    set(DOPANT_SANITIZE address,undefined)
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

if(DOPANT_SANITIZE)
  if(DOPANT_WITH_CUDA)
    message(STATUS "dopant: DOPANT_SANITIZE=${DOPANT_SANITIZE} turns CUDA paths off")
    set(DOPANT_WITH_CUDA OFF)
  endif()
  add_compile_options(-fsanitize=${DOPANT_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${DOPANT_SANITIZE})
  if(DOPANT_SANITIZE MATCHES "undefined")
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
endif()
