# The shipped A/B example examples/ab/router-replay.toml through `dopant ab`, scaled down so
# it fits a test: the same plugins and gate, 2 turns of 32 tokens through 8 layers instead
# of 20 turns of 2048 through 61. Bytes on the wire follow from the shape alone: replay-full
# sends 4 * ceil(4 * ids / 3) base64 characters of every row so far (10,924 then 21,848:
# 16,386 a turn), replay-delta 44 + 2048 * 9 / 8 = 2,348 bytes of the new rows: 0.1433.
#   cmake -DDOPANT=path/to/dopant -DEXAMPLE=router-replay.toml -DOUT=dir -P router_replay_example.cmake
file(READ "${EXAMPLE}" text)
foreach(pair "turns = 20;turns = 2" "new_tokens = 2048;new_tokens = 32" "layers = 61;layers = 8")
  list(GET pair 0 from)
  list(GET pair 1 to)
  string(FIND "${text}" "\n${from}\n" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "${EXAMPLE} has no line `${from}` to scale down")
  endif()
  string(REPLACE "\n${from}\n" "\n${to}\n" text "${text}")
endforeach()
file(MAKE_DIRECTORY "${OUT}")
file(WRITE "${OUT}/router-replay-small.toml" "${text}")
execute_process(COMMAND "${DOPANT}" ab "${OUT}/router-replay-small.toml" --repetitions 2
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "dopant ab failed with status ${status}\n${out}")
endif()
if(NOT out MATCHES "bytes_per_turn +B +lower +delta +1\\.639e\\+04 ± 0 +2348 ± 0 +0\\.1433 ")
  message(FATAL_ERROR "bytes_per_turn is not 16386 (full) against 2348 (delta)\n${out}")
endif()
if(NOT out MATCHES "mismatch_replay_on +lower +delta +0 ± 0 +0 ± 0 ")
  message(FATAL_ERROR "replay left tokens routed otherwise than at inference\n${out}")
endif()
foreach(metric encode_ids_per_s decode_stitch_ids_per_s memcpy_ids_per_s route_rows_per_s mismatch_replay_off)
  if(NOT out MATCHES "\n  ${metric} ")
    message(FATAL_ERROR "no ${metric} in the report\n${out}")
  endif()
endforeach()
