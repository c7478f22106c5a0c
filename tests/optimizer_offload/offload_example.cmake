# The shipped A/B example examples/ab/optimizer-offload.toml through `dopant run`, with the
# figures docs/results.md states. Under the 384 MiB device limit the adamw base must fail
# (exit status 1) naming the out-of-memory request, with a peak device demand of exactly
# 768,000,000 bytes; the offload variant must complete with a device peak of exactly
# 259,108,608 bytes: a ratio of 0.337. Both figures follow from the memory accounting alone,
# not from timing, so they are the same on every machine.
#   cmake -DDOPANT=path/to/dopant -DEXAMPLE=optimizer-offload.toml -DOUT=dir -P offload_example.cmake
function(peak_device_bytes json_file out_var)
  file(READ "${json_file}" json)
  string(JSON count LENGTH "${json}" metrics)
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON name GET "${json}" metrics ${i} name)
    if(name STREQUAL "peak_device_bytes")
      string(JSON value GET "${json}" metrics ${i} median)
      set(${out_var} "${value}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "${json_file} has no peak_device_bytes")
endfunction()

file(MAKE_DIRECTORY "${OUT}")
execute_process(COMMAND "${DOPANT}" run "${EXAMPLE}" --repetitions 1 --json "${OUT}/base.json"
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT status EQUAL 1)
  message(FATAL_ERROR "the adamw base should fail with status 1, got ${status}\n${out}")
endif()
if(NOT out MATCHES "out of memory on device cpu:0: requested 576000000 bytes")
  message(FATAL_ERROR "the adamw base should name its out-of-memory request\n${out}")
endif()
peak_device_bytes("${OUT}/base.json" base_peak)

execute_process(COMMAND "${DOPANT}" run "${EXAMPLE}" --variant offload --repetitions 1 --json "${OUT}/offload.json"
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the offload variant should complete, got status ${status}\n${out}")
endif()
peak_device_bytes("${OUT}/offload.json" offload_peak)

if(NOT base_peak EQUAL 768000000 OR NOT offload_peak EQUAL 259108608)
  message(FATAL_ERROR "peak device bytes: base ${base_peak} (expected 768000000), "
                      "offload ${offload_peak} (expected 259108608)")
endif()
