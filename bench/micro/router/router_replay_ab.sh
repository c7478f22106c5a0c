#!/bin/sh
# The router-replay A/B of examples/ab/router-replay.toml (replay-full vs replay-delta at
# Kimi-K2's shape) on one thread, then PyTorch 1.13's re-statement of the same gate (HF's
# DeepSeek-V3 MoEGate with Kimi-K2's settings) on one thread, in the same command, so that
# route_rows_per_s and PyTorch's rows/s are measured under the same machine load. `dopant
# ab` runs only dopant workloads, hence this script.
#   bench/micro/router/router_replay_ab.sh [REPETITIONS]    (default 3; DOPANT=path/to/dopant)
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
dopant=${DOPANT:-$root/build/bin/dopant}
"$dopant" --threads 1 ab "$root/examples/ab/router-replay.toml" --repetitions "${1:-3}"
/usr/bin/python3 "$root/bench/micro/router/torch_topk_bench.py" --kimi-k2
