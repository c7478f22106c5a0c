# Tests that run under mpirun, registered alike in every folder (tests/comm, tests/parallel):
#
#   dopant_mpi_tests_available(PREFIX OUT_VAR)
#     OUT_VAR is ON when MPI was found and mpirun is there; otherwise OFF, and a test
#     PREFIX.skipped says so (skipped, exit 77).
#   dopant_add_mpi_test(NAME RANKS N [TIMEOUT S] [PASS_REGULAR_EXPRESSION RE] COMMAND ...)
#     runs COMMAND on N ranks, oversubscribed (more ranks than cores) and allowed as root
#     (CI containers), within TIMEOUT seconds (default 60).
#
# Name them PREFIX.* with PREFIX ending in `.mpi`: the sanitized run leaves those out (Open
# MPI's own leaks; scripts/check-sanitized.sh).

function(dopant_mpi_tests_available prefix out_var)
  if(DOPANT_HAVE_MPI AND MPIEXEC_EXECUTABLE)
    set(${out_var} ON PARENT_SCOPE)
    return()
  endif()
  add_test(NAME ${prefix}.skipped COMMAND sh -c "echo 'skipped: MPI or mpirun not found'; exit 77")
  set_tests_properties(${prefix}.skipped PROPERTIES SKIP_RETURN_CODE 77)
  set(${out_var} OFF PARENT_SCOPE)
endfunction()

function(dopant_add_mpi_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "RANKS;TIMEOUT;PASS_REGULAR_EXPRESSION" "COMMAND")
  if(NOT arg_RANKS OR NOT arg_COMMAND)
    message(FATAL_ERROR "dopant_add_mpi_test(${name}): RANKS and COMMAND are required")
  endif()
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 60)
  endif()
  add_test(NAME ${name}
           COMMAND ${MPIEXEC_EXECUTABLE} --oversubscribe --allow-run-as-root -np ${arg_RANKS} ${arg_COMMAND})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${arg_TIMEOUT})
  if(DEFINED arg_PASS_REGULAR_EXPRESSION)
    set_tests_properties(${name} PROPERTIES PASS_REGULAR_EXPRESSION "${arg_PASS_REGULAR_EXPRESSION}")
  endif()
endfunction()
