#!/usr/bin/python3
"""Times PyTorch 1.13's CPU AdamW step, the default per-tensor loop (foreach=False) and
foreach=True, on one fp32 tensor of each size with 1 and all threads. Throughput is counted
as adamw_bench counts it (28 bytes per element: read param, grad, exp_avg, exp_avg_sq; write
param, exp_avg, exp_avg_sq), so its GB/s compare directly with adamw_bench's.

Run with Debian's interpreter, which has torch 1.13:
    /usr/bin/python3 bench/micro/optimizer/torch_adamw_bench.py [--sizes 65536,4194304,16777216]

PyTorch's step allocates temporaries the size of the parameter (sqrt, division, foreach
intermediates). glibc serves blocks over 32 MiB with fresh mmaps, and smaller ones after a
trim, so each step can pay page faults that dopant's in-place kernel never does; where page
faults are slow (VMs, sandboxes) they dominate. To time PyTorch with an allocator that keeps
its memory, run it a second time with
    GLIBC_TUNABLES=glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=33554432:\
glibc.malloc.trim_threshold=4294967296:glibc.malloc.top_pad=268435456
and compare against the faster of the two runs.
"""
import argparse
import os
import statistics
import time

import torch

BYTES_PER_ELEMENT = 28


def seconds_per_step(numel, foreach, threads, min_time, repetitions):
    """Median over `repetitions` of the mean step time of a batch lasting >= min_time."""
    torch.set_num_threads(threads)
    param = torch.nn.Parameter(torch.empty(numel).uniform_(-1.0, 1.0))
    param.grad = torch.empty(numel).uniform_(-1e-2, 1e-2)
    optimizer = torch.optim.AdamW([param], lr=1e-3, weight_decay=1e-2, foreach=foreach)
    optimizer.step()  # allocates the state
    samples = []
    for _ in range(repetitions):
        steps, start = 0, time.perf_counter()
        while True:
            optimizer.step()
            steps += 1
            elapsed = time.perf_counter() - start
            if elapsed >= min_time:
                break
        samples.append(elapsed / steps)
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="65536,4194304,16777216")
    parser.add_argument("--min-time", type=float, default=0.5, help="seconds per sample")
    parser.add_argument("--repetitions", type=int, default=5)
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    capability = next((line.split(":", 1)[1].strip()
                       for line in torch.__config__.show().splitlines()
                       if "CPU capability usage:" in line), "unknown")
    print(f"torch {torch.__version__}, CPU kernels {capability}, {cores} cores, "
          f"GLIBC_TUNABLES={os.environ.get('GLIBC_TUNABLES', '')}")
    print(f"{'n':>10} {'threads':>7} {'foreach=False GB/s':>19} {'foreach=True GB/s':>18}"
          f" {'best GB/s':>10}")
    for numel in (int(s) for s in args.sizes.split(",")):
        for threads in sorted({1, cores}):
            rates = [BYTES_PER_ELEMENT * numel / seconds_per_step(
                         numel, foreach, threads, args.min_time, args.repetitions) / 1e9
                     for foreach in (False, True)]
            print(f"{numel:>10} {threads:>7} {rates[0]:>19.2f} {rates[1]:>18.2f}"
                  f" {max(rates):>10.2f}")


if __name__ == "__main__":
    main()
