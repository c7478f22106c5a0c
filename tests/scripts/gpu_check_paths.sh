#!/usr/bin/env bash
# Checks scripts/gpu-check.sh against a build, so the script that runs once on a lent GPU
# does not fail on a typo: its shell syntax (bash -n), every target of its `targets=(...)`
# list is a target of BUILD, and every "$BUILD/..." path it runs exists in BUILD as an
# executable file (BUILD must be a CUDA build with those targets built).
#
#   tests/scripts/gpu_check_paths.sh SCRIPT BUILD
set -euo pipefail
script=$1
build=$2

bash -n "$script"

known=$(cmake --build "$build" --target help)
# The words between `targets=(` and the closing `)`, over as many lines as they take.
targets=$(sed -n '/^targets=(/,/)/p' "$script" | tr -d '()' | sed 's/^targets=//')
[ -n "$targets" ] || { echo "no targets=(...) list in $script"; exit 1; }
for target in $targets; do
  if ! grep -Eq "(^|[ .])$target(:| |$)" <<<"$known"; then
    echo "target $target of $script is not a target of $build"
    exit 1
  fi
done

# shellcheck disable=SC2016  # the literal text $BUILD is what is searched for
paths=$(grep -o '"\$BUILD/[^"]*"' "$script" | tr -d '"' | sed 's|^\$BUILD/||')
[ -n "$paths" ] || { echo "no \"\$BUILD/...\" paths in $script"; exit 1; }
for path in $paths; do
  if [ ! -x "$build/$path" ]; then
    echo "$script runs $path, which $build does not have"
    exit 1
  fi
done
echo "checked $(wc -w <<<"$targets") targets and $(wc -w <<<"$paths") paths"
