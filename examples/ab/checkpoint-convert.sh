#!/bin/sh
# The conversion A/B: `gather` against `stream` on one Megatron torch_dist checkpoint, with a
# plain `cp -r` of the same files in the same run as the bound. Each is run REPS times after
# one read of the source (so every run finds it in the page cache alike); `cp` is followed
# by an fsync of the copies, as the safetensors writer fsyncs its shards. Prints per run its
# wall seconds, throughput (source bytes / second) and peak RSS (GNU time's maximum resident
# set size). Not a test: a measurement, reported in docs/results.md.
#
#   /usr/bin/python3 tests/checkpoint/fixtures/make_megatron_fixtures.py --large /tmp/kimi-k2-4g
#   examples/ab/checkpoint-convert.sh build/bin/dopant /tmp/kimi-k2-4g /tmp/convert-out [REPS] [WORKERS] [TASK]
set -eu
dopant=$1 source=$2 out=$3 reps=${4:-3} workers=${5:-2} task=${6:-256MiB}
args=$(cat "$source/args" 2>/dev/null || echo "--vocab-size 32000")
bytes=$(du -sb "$source" | cut -f1)
cat "$source"/iter_*/* > /dev/null
measure() {  # NAME COMMAND...: one line of figures
  name=$1
  shift
  rm -rf "$out"
  /usr/bin/time -f "%e %M" -o "$out.time" "$@" > /dev/null
  read -r seconds kib < "$out.time"
  echo "$name $seconds s $(echo "$bytes / $seconds / 1000000" | bc) MB/s $((kib / 1024)) MiB"
}
echo "source: $source, $bytes bytes; stream: $workers workers, tasks of $task"
for i in $(seq "$reps"); do
  measure cp sh -c "cp -r '$source' '$out' && sync '$out'/*/*"
  measure gather "$dopant" convert --from megatron --to hf --model kimi-k2 $args --strategy gather "$source" "$out"
  measure stream "$dopant" convert --from megatron --to hf --model kimi-k2 $args --strategy stream \
    --workers "$workers" --task-size "$task" "$source" "$out"
done
rm -rf "$out" "$out.time"
