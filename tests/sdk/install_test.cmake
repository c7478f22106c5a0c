# Install test of the SDK: installs the build tree into a fresh prefix, configures and builds
# examples/out-of-tree against that prefix alone, runs that project's own ctest (the installed
# conformance kit on its plugin), then runs the Lion reference test on the plugin it produced.
# Run by ctest as
#   cmake -DBUILD_DIR=... -DEXAMPLE_DIR=... -DWORK_DIR=... -DCHECKER=... -DGENERATOR=...
#         -DCXX_COMPILER=... [-DSANITIZE=address,undefined] -P install_test.cmake
foreach(var BUILD_DIR EXAMPLE_DIR WORK_DIR CHECKER GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "install_test.cmake: -D${var}=... is required")
  endif()
endforeach()

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${what} failed (${status}):\n${out}")
  endif()
  message(STATUS "${what}: ok")
endfunction()

set(prefix "${WORK_DIR}/prefix")
set(build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")

# A sanitized build installs sanitized libraries (libdopant, the static conformance kit):
# whatever links them must take the same sanitizers.
set(sanitize_flags "")
if(SANITIZE)
  set(sanitize_flags "-fsanitize=${SANITIZE}")
endif()

run_step("install into ${prefix}" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
run_step("configure examples/out-of-tree"
  ${CMAKE_COMMAND} -S "${EXAMPLE_DIR}" -B "${build}" -G "${GENERATOR}"
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
  "-DCMAKE_CXX_FLAGS=${sanitize_flags}" "-DCMAKE_EXE_LINKER_FLAGS=${sanitize_flags}"
  "-DCMAKE_MODULE_LINKER_FLAGS=${sanitize_flags}"
  -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
run_step("build dopant-lion" ${CMAKE_COMMAND} --build "${build}")

# The example's ctest must run the installed kit's checks on Lion and pass them all; a check
# that fails makes ctest fail, and the names make sure the checks did run.
execute_process(COMMAND ${CMAKE_CTEST_COMMAND} --test-dir "${build}" --output-on-failure -V
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the out-of-tree ctest failed (${status}):\n${out}")
endif()
foreach(check descriptor kind_table optimizer_quadratic_descent optimizer_state_round_trip
              optimizer_rejects_int32 optimizer_memory_accounted)
  if(NOT out MATCHES "\\[       OK \\] lion\\.${check} ")
    message(FATAL_ERROR "the out-of-tree ctest did not pass conformance check ${check}:\n${out}")
  endif()
endforeach()
if(NOT out MATCHES "\\[  PASSED  \\] [0-9]+ tests")
  message(FATAL_ERROR "the out-of-tree ctest did not report the kit's result:\n${out}")
endif()
message(STATUS "out-of-tree ctest (conformance kit on Lion): ok")

file(GLOB_RECURSE plugin "${build}/dopant-lion.so")
if(NOT plugin)
  message(FATAL_ERROR "the out-of-tree build produced no dopant-lion.so under ${build}")
endif()
execute_process(COMMAND "${CHECKER}" ${plugin} "${prefix}/bin/dopant" RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the Lion reference test failed on ${plugin}")
endif()

# Embedding from C through pkg-config: the installed dopant.pc must point into the prefix
# it was installed to, and a program built with its flags must find the installed plugins.
find_program(PKG_CONFIG pkg-config REQUIRED)
set(ENV{PKG_CONFIG_PATH} "${prefix}/lib/pkgconfig")
execute_process(COMMAND ${PKG_CONFIG} --cflags --libs dopant OUTPUT_VARIABLE flags RESULT_VARIABLE status
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "pkg-config does not find dopant.pc under ${prefix}")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
# A sanitized libdopant works only in a program that loads the sanitizer runtime before it.
if(SANITIZE)
  list(APPEND flags ${sanitize_flags})
endif()
run_step("build examples/embedding/list_plugins.c with pkg-config flags"
  cc -std=c11 -Wall -Wextra -Werror "${EXAMPLE_DIR}/../embedding/list_plugins.c" ${flags}
  -Wl,-rpath,${prefix}/lib -o "${WORK_DIR}/list_plugins")
execute_process(COMMAND "${WORK_DIR}/list_plugins" OUTPUT_VARIABLE listed RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR NOT listed MATCHES "c-sgd dopant\\.optimizer/1")
  message(FATAL_ERROR "the embedding example did not list the installed c-sgd plugin:\n${listed}")
endif()
message(STATUS "embedding through pkg-config: ok")
