# Warning flags for every first-party target; -Werror when DOPANT_WERROR is on (CI).
function(dopant_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(DOPANT_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
