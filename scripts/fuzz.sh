#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang in build-fuzz/ and runs each one for
# SECONDS (default 60), starting from its checked-in seed corpus, one after the other.
# Exits non-zero when a target crashes, hangs, leaks or trips a sanitizer, naming the input
# that did it (kept under build-fuzz/artifacts/<target>/). New inputs the fuzzer finds stay
# in build-fuzz/corpus/<target>/; the checked-in corpus is never written.
#
#   scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
build=build-fuzz

# Line tables only (-g1), as in scripts/check-sanitized.sh: reports need file:line.
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DDOPANT_FUZZ=ON -DDOPANT_BUILD_EXAMPLES=OFF \
  -DDOPANT_WERROR=ON -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" >/dev/null
cmake --build "$build" -j2 --target fuzzers

failed=0
while read -r target; do
  binary="$build/tests/fuzz/$target"
  seeds="tests/fuzz/corpus/$target"
  work="$build/corpus/$target"
  artifacts="$build/artifacts/$target/"
  dict="tests/fuzz/$target.dict"
  mkdir -p "$work" "$artifacts"
  options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384
           -print_final_stats=1 -artifact_prefix="$artifacts")
  [[ -f "$dict" ]] && options+=(-dict="$dict")
  echo "== $target: ${seconds}s"
  log="$build/$target.log"
  if "$binary" "${options[@]}" "$work" "$seeds" >"$log" 2>&1; then
    grep -E '^stat::number_of_executed_units|^Done ' "$log" || true
  else
    failed=1
    tail -n 40 "$log"
    crash="$(grep -oE "Test unit written to .*" "$log" | sed 's/^Test unit written to //' || true)"
    echo "FAILED: $target; input: ${crash:-none written}; log: $log" >&2
  fi
done <"$build/tests/fuzz/fuzz-targets.txt"
exit "$failed"
