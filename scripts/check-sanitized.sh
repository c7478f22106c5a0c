#!/usr/bin/env bash
# Builds dopant with GCC's AddressSanitizer and UndefinedBehaviorSanitizer in build-asan/
# (-DDOPANT_SANITIZE=address,undefined, see cmake/DopantSanitize.cmake) and runs the tests
# there (all but the two groups named below). Sanitizer reports go to files under build-asan/sanitizer-logs/ rather than to
# stderr, so that a report from a child process is seen even when its test expected that
# child to fail; any report fails the script and is printed at the end.
#
#   scripts/check-sanitized.sh
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-asan
logs="$PWD/$build/sanitizer-logs"

# Line tables only (-g1): a sanitizer report needs file:line, not variables, and full debug
# info is about a quarter of this build's compile time.
cmake -S . -B "$build" -G Ninja -DDOPANT_WERROR=ON -DDOPANT_SANITIZE=address,undefined \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" >/dev/null
cmake --build "$build" -j2

rm -rf "$logs"
mkdir -p "$logs"
export ASAN_OPTIONS="detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:log_path=$logs/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$logs/ubsan"
status=0
# Left out here, run only in the normal build: the sandbox tests, whose box workers run under
# RLIMIT_AS and seccomp, where the sanitizers' shadow memory and runtime cannot live; and the
# Open MPI tests, where LeakSanitizer reports Open MPI's own allocations in its unloaded
# components, which no suppression by library name can reach.
ctest --test-dir "$build" --output-on-failure -j2 -E '^(sandbox\.|comm\.mpi\.|parallel\.mpi\.|checkpoint\.mpi\.)' || status=$?
if compgen -G "$logs/*" >/dev/null; then
  cat "$logs"/*
  echo "check-sanitized: sanitizer reports above, kept in $logs" >&2
  status=1
fi
exit "$status"
