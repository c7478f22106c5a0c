#!/bin/sh
# `dopant convert` under `mpirun -np 2`: the ranks' output is byte for byte the output of one
# process (the same shards, headers and index), and nothing else is left in the folder. A bad
# source under mpirun fails on every rank and leaves no DST and no temporary folder.
#   convert_mpi_test.sh DOPANT FIXTURES MPIRUN [MPIRUN FLAGS...]
set -eu
dopant=$1 fixtures=$2
shift 2
folder=$(mktemp -d)
trap 'rm -rf "$folder"' EXIT
fixture=$fixtures/megatron/kimi_k2
# Shards of 512 bytes, so there are many, with an index; a task per tensor, so both ranks copy.
flags="--from megatron --to hf --model kimi-k2 $(cat "$fixture/args") --max-shard-size 512 --task-size 1 --workers 2"
"$dopant" convert $flags "$fixture" "$folder/one" > /dev/null
"$@" -np 2 "$dopant" convert $flags "$fixture" "$folder/two" > "$folder/log" 2>&1 || { cat "$folder/log"; exit 1; }
[ -f "$folder/two/model.safetensors.index.json" ] || { echo "no index under mpirun"; exit 1; }
diff -r "$folder/one" "$folder/two" || { echo "mpirun -np 2 wrote other bytes than one process"; exit 1; }
[ "$(grep -c ' written by ' "$folder/log")" = 1 ] || { echo "expected rank 0 alone to report:"; cat "$folder/log"; exit 1; }

if "$@" -np 2 "$dopant" convert --from megatron --to hf --model kimi-k2 $(cat "$fixtures/megatron/bad_offset/args") \
  "$fixtures/megatron/bad_offset" "$folder/bad" > "$folder/log" 2>&1; then
  echo "a bad source converted under mpirun"
  exit 1
fi
grep -q "bad_offset" "$folder/log" || { echo "the error does not name the source:"; cat "$folder/log"; exit 1; }
leftovers=$(ls -A "$folder" | grep -v -x -e one -e two -e log || true)
[ -z "$leftovers" ] || { echo "left behind: $leftovers"; exit 1; }
echo "mpirun -np 2 output identical to one process; a bad source left nothing"
