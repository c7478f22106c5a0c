#!/usr/bin/env python3
"""An independent safetensors reader for tests/checkpoint/safetensors_python_test.cpp, in
plain Python (struct + json): checks a folder dopant wrote against the spec and prints one
line per tensor, "NAME DTYPE [SHAPE] HEX-BYTES", in name order. Exits 1 naming the rule a
file breaks. Also reads one .safetensors file given by its path.

  read_safetensors.py FOLDER|FILE
"""
import json
import os
import struct
import sys

SIZES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U8": 1, "BOOL": 1,
         "F8_E4M3": 1, "F8_E5M2": 1}


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


def read_file(path):
    data = open(path, "rb").read()
    (n,) = struct.unpack("<Q", data[:8])
    if (8 + n) % 8 != 0:
        fail(f"{path}: data does not start 8-byte aligned")
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    header.pop("__metadata__", None)
    at = 0
    tensors = {}
    for name, info in sorted(header.items(), key=lambda item: tuple(item[1]["data_offsets"])):
        begin, end = info["data_offsets"]
        if begin != at:
            fail(f"{path}: {name} does not start where the previous tensor ended")
        count = 1
        for extent in info["shape"]:
            count *= extent
        if end - begin != count * SIZES[info["dtype"]]:
            fail(f"{path}: {name} has the wrong size")
        tensors[name] = (info["dtype"], info["shape"], body[begin:end])
        at = end
    if at != len(body):
        fail(f"{path}: the data section is not covered exactly")
    return tensors


folder = sys.argv[1]
index_path = os.path.join(folder, "model.safetensors.index.json")
tensors = {}
if os.path.isfile(folder):
    tensors = read_file(folder)
elif os.path.exists(index_path):
    index = json.load(open(index_path))
    for shard in sorted(set(index["weight_map"].values())):
        for name, tensor in read_file(os.path.join(folder, shard)).items():
            if index["weight_map"].get(name) != shard:
                fail(f"{name} is not where the index says")
            tensors[name] = tensor
    if index["metadata"]["total_size"] != sum(len(t[2]) for t in tensors.values()):
        fail("total_size is wrong")
    if set(tensors) != set(index["weight_map"]):
        fail("the index and the shards name different tensors")
else:
    tensors = read_file(os.path.join(folder, "model.safetensors"))
for name in sorted(tensors):
    dtype, shape, data = tensors[name]
    print(name, dtype, shape, data.hex())
