# Checks that AdamW runs on a machine without the CUDA runtime: libdopant and every built
# plugin must have no NEEDED entry for a CUDA library (the runtime is linked statically and
# loads the driver only when asked), and `dopant run CONFIG` must succeed, print a metric,
# and never ask the dynamic loader for a CUDA library, with no CUDA folder on
# LD_LIBRARY_PATH.
#   cmake -DREADELF=... -DLIBDOPANT=... -DPLUGIN_DIR=... -DCLI=... -DCONFIG=... -P this file
set(cuda_libraries "libcudart|libcublas|libcublasLt|libcuda\\.so|libnccl")

file(GLOB plugins "${PLUGIN_DIR}/*.so")
if(NOT plugins)
  message(FATAL_ERROR "no plugins found in ${PLUGIN_DIR}")
endif()
foreach(library IN LISTS LIBDOPANT plugins)
  execute_process(COMMAND "${READELF}" -d "${library}" OUTPUT_VARIABLE dynamic RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "readelf -d ${library} failed")
  endif()
  string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*" needed "${dynamic}")
  foreach(entry IN LISTS needed)
    if(entry MATCHES "${cuda_libraries}")
      message(FATAL_ERROR "${library} needs a CUDA library: ${entry}")
    endif()
  endforeach()
endforeach()

set(search_path "")
string(REPLACE ":" ";" entries "$ENV{LD_LIBRARY_PATH}")
foreach(entry IN LISTS entries)
  if(NOT entry MATCHES "cuda")
    list(APPEND search_path "${entry}")
  endif()
endforeach()
string(REPLACE ";" ":" search_path "${search_path}")
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env "LD_LIBRARY_PATH=${search_path}" LD_DEBUG=libs
          "${CLI}" run "${CONFIG}" --repetitions 1
  OUTPUT_VARIABLE output ERROR_VARIABLE loader_trace RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "dopant run ${CONFIG} failed (${rc}):\n${output}")
endif()
string(REGEX MATCH "find library=(${cuda_libraries})[^\n]*" asked "${loader_trace}")
if(asked)
  message(FATAL_ERROR "dopant run asked the loader for a CUDA library: ${asked}")
endif()
if(NOT output MATCHES "step_time")
  message(FATAL_ERROR "dopant run printed no step_time metric:\n${output}")
endif()
message(STATUS "no CUDA library needed; dopant run printed:\n${output}")
