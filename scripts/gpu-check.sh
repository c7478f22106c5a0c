#!/usr/bin/env bash
# One-shot validation of dopant's CUDA paths on a machine with a GPU (sized for one H200,
# under 10 minutes): a Release build of the CUDA targets and the CLI for sm_90, the CUDA
# tests with any skip counted as a failure, compute-sanitizer on one kernel test and one
# offload test, `dopant run` at 96M bf16 parameters in 4096 tensors on the CPU, with cuda
# `adamw` and with cuda `adamw-chunked-offload` at offload_fraction 1, 0 and 0.5 (final
# parameters compared byte for byte with the CPU's), the pinned-copy bandwidth of the same
# GPU against the offload step time, and an nsys trace of one offload run when nsys exists.
# Each step writes OUT/NN-name.log; OUT/summary.txt lists every step and the figures.
# docs/results.md says how to read them. Exits non-zero when any step failed.
#
#   OUT=/path/to/results scripts/gpu-check.sh        (OUT defaults to a new temporary folder)
#
# Environment: BUILD (build folder, default build-gpu), CUDA_HOME (default /usr/local/cuda),
# JOBS (build parallelism, default nproc).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

OUT="${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/dopant-gpu-check.XXXXXX")}"
BUILD="${BUILD:-build-gpu}"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
JOBS="${JOBS:-$(nproc)}"
mkdir -p "$OUT"
summary="$OUT/summary.txt"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/dopant-gpu-check-params.XXXXXX")"  # 384 MB per run
trap 'rm -rf "$scratch"' EXIT
: >"$summary"
failures=0

# What the script builds and runs (tests/scripts checks that each exists in a CUDA build).
targets=(dopant_optimizer_cuda_tests dopant_offload_plugin_tests dopant-cli dopant-adamw
         dopant-adamw-chunked-offload pinned_copy_probe)
kernel_tests="$BUILD/tests/optimizer/dopant_optimizer_cuda_tests"
plugin_tests="$BUILD/tests/optimizer_offload/dopant_offload_plugin_tests"
cli="$BUILD/bin/dopant"
probe="$BUILD/bench/micro/cuda_copy/pinned_copy_probe"
gpu_filter='*CudaOffload*:*CudaTrainer*'

note() { echo "$*" | tee -a "$summary"; }

# step NAME LIMIT_SECONDS COMMAND...: runs COMMAND (a program, or one of the functions
# exported below) with its output in OUT/NAME.log, notes ok or FAILED with the time taken,
# and returns the command's status.
step() {
  local name=$1 limit=$2 start status
  shift 2
  if declare -F "$1" >/dev/null; then set -- bash -c '"$@"' bash "$@"; fi  # timeout runs programs
  start=$(date +%s)
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  status=$?
  if [ "$status" -eq 0 ]; then
    note "$name: ok ($(($(date +%s) - start)) s)"
  else
    note "$name: FAILED, exit $status$([ "$status" -eq 124 ] && echo " (timed out after $limit s)") ($(($(date +%s) - start)) s), see $name.log"
    failures=$((failures + 1))
  fi
  return "$status"
}

# gtest BINARY FILTER: runs the tests and fails when any was skipped or none passed.
gtest() {
  local output status
  output=$("$1" --gtest_filter="$2" --gtest_color=no 2>&1)
  status=$?
  echo "$output"
  if echo "$output" | grep -q '^\[  SKIPPED \]'; then
    echo "gpu-check: a test was skipped: every CUDA test must run on this machine"
    return 1
  fi
  if ! echo "$output" | grep -q '^\[  PASSED  \] [1-9]'; then
    echo "gpu-check: no test passed"
    return 1
  fi
  return "$status"
}

# sanitize BINARY FILTER: compute-sanitizer's memcheck on the tests; any report fails.
sanitize() {
  "$CUDA_HOME/bin/compute-sanitizer" --tool memcheck --error-exitcode 1 \
    "$1" --gtest_filter="$2" --gtest_color=no
}
export -f gtest sanitize
export CUDA_HOME

# write_config FILE DEVICE TABLE: the 96M-parameter run of this script.
write_config() {
  local params
  params="$scratch/$(basename "$1" .toml).params"
  cat >"$1" <<EOF
[run]
workload = "optimizer-step"
repetitions = 1

[device]
kind = "$2"

[workload]
params = 96000000
tensors = 4096
dtype = "bf16"
steps = 5
seed = 7
output = "$params"

[optimizer]
$3
EOF
}

# median METRIC JSON: the median of one metric of a `dopant run --json` file.
median() {
  sed -n "s/.*\"name\": \"$1\".*\"median\": \([^,]*\),.*/\1/p" "$2"
}

note "gpu-check of $(git rev-parse --short HEAD 2>/dev/null || echo 'an unknown commit') on $(hostname), $(date -u +%FT%TZ); output in $OUT"
step 00-machine 60 bash -c 'nvidia-smi; nvidia-smi topo -m; nproc; free -g; true'

# ------------------------------------------------------------------ build
if ! step 01-configure 120 cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DDOPANT_WERROR=ON; then
  note "gpu-check: cannot configure; stopping"
  exit 1
fi
if ! step 02-build 420 cmake --build "$BUILD" -j "$JOBS" --target "${targets[@]}"; then
  note "gpu-check: the build failed; stopping"
  exit 1
fi

# ------------------------------------------------------------------ tests
step 03-kernel-tests 180 gtest "$kernel_tests" '*'
step 04-plugin-gpu-tests 240 gtest "$plugin_tests" "$gpu_filter"
gpus=$(nvidia-smi --list-gpus 2>/dev/null | wc -l)
if [ "$gpus" -ge 2 ]; then
  DOPANT_TEST_CUDA_DEVICE=1 step 05-plugin-gpu-tests-device-1 120 gtest "$plugin_tests" \
    '*StepsFromAnotherThreadUseTheRunsDevice*'
else
  note "05-plugin-gpu-tests-device-1: not run (one GPU: device 0 was the only choice)"
fi

if [ -x "$CUDA_HOME/bin/compute-sanitizer" ]; then
  step 06-sanitizer-kernel 240 sanitize "$kernel_tests" '*UnalignedTensorsMatchTheReference/bf16'
  step 07-sanitizer-offload 240 sanitize "$plugin_tests" \
    '*StepsOnACallerStreamWithALateGroupAndAnExportRightAfter/bf16'
else
  note "06/07-sanitizer: not run ($CUDA_HOME/bin/compute-sanitizer is not there)"
fi

# ------------------------------------------------------------------ 96M bf16 runs
mkdir -p "$OUT/configs"
offload='plugin = "adamw-chunked-offload"
chunk = "64MiB"'
write_config "$OUT/configs/cpu.toml" cpu 'plugin = "adamw"'
write_config "$OUT/configs/cuda-adamw.toml" cuda 'plugin = "adamw"'
write_config "$OUT/configs/cuda-offload-1.toml" cuda "$offload
offload_fraction = 1"
write_config "$OUT/configs/cuda-offload-0.toml" cuda "$offload
offload_fraction = 0"
write_config "$OUT/configs/cuda-offload-0.5.toml" cuda "$offload
offload_fraction = 0.5"
runs="cpu cuda-adamw cuda-offload-1 cuda-offload-0 cuda-offload-0.5"
n=8
for run in $runs; do
  step "$(printf '%02d' "$n")-run-$run" 240 "$cli" run "$OUT/configs/$run.toml" \
    --json "$OUT/run-$run.json"
  n=$((n + 1))
done
(cd "$scratch" && sha256sum -- *.params) >"$OUT/params.sha256" 2>&1
for run in $runs; do
  [ "$run" = cpu ] && continue
  if [ -f "$scratch/cpu.params" ] && cmp -s "$scratch/cpu.params" "$scratch/$run.params"; then
    note "compare $run with cpu: identical final parameters"
  else
    note "compare $run with cpu: FAILED, final parameters differ or are missing (params.sha256)"
    failures=$((failures + 1))
  fi
done

# ------------------------------------------------------------------ bandwidth bound
if step 13-pinned-copy-probe 120 "$probe" 1024; then
  both=$(sed -n 's/^both_bytes_per_second //p' "$OUT/13-pinned-copy-probe.log")
  h2d=$(sed -n 's/^h2d_bytes_per_second //p' "$OUT/13-pinned-copy-probe.log")
  d2h=$(sed -n 's/^d2h_bytes_per_second //p' "$OUT/13-pinned-copy-probe.log")
  note "pinned copies: H2D $h2d B/s, D2H $d2h B/s, both at once $both B/s (both directions' bytes)"
  # Offloaded state per step: 12 B per bf16 parameter (exp_avg, exp_avg_sq, fp32 master),
  # loaded and stored once each; at fraction 0.5 at least half of it (largest tensors first).
  for fraction in 1 0.5; do
    json="$OUT/run-cuda-offload-$fraction.json"
    [ -f "$json" ] || continue
    awk -v t="$(median step_time "$json")" -v adamw="$(median step_time "$OUT/run-cuda-adamw.json")" \
      -v both="$both" -v f="$fraction" 'BEGIN {
        bytes = f * 96000000 * 12;             # state offloaded each way per step
        bound = 2 * bytes / both;              # both directions at once, at the probe rate
        printf "offload %s: step %.4f s, copy bound %.4f s (%.3g GB each way), step/bound %.2f; adamw on the device %.4f s\n",
               f, t, bound, bytes / 1e9, t / bound, adamw
      }' | tee -a "$summary"
  done
fi

# ------------------------------------------------------------------ trace
nsys=$(command -v nsys || ls "$CUDA_HOME"/bin/nsys 2>/dev/null || true)
if [ -n "$nsys" ]; then
  step 14-nsys-offload-0.5 240 "$nsys" profile --trace=cuda,osrt --force-overwrite=true \
    -o "$OUT/offload-0.5" "$cli" run "$OUT/configs/cuda-offload-0.5.toml" \
    && step 15-nsys-stats 120 "$nsys" stats --report cuda_gpu_trace,cuda_gpu_mem_time_sum,cuda_gpu_kern_sum \
      --format csv --output "$OUT/offload-0.5" "$OUT/offload-0.5.nsys-rep"
else
  note "14-nsys: not run (no nsys on PATH or in $CUDA_HOME/bin)"
fi

note "gpu-check: $failures failure(s)"
[ "$failures" -eq 0 ]
