#!/usr/bin/python3
"""Times PyTorch 1.13's CPU re-statement of Hugging Face's DeepSeek-V3 gate after the
matmul (noaux_tc: sigmoid, bias, 8 groups keep 4, top-8 of 256 experts, normalized,
scaled) and Mixtral's softmax top-2 of 8, on 4096 tokens of random fp32 logits, with one
thread, as router_bench times route_reference and route_fast: tokens per second of CPU
time (Google Benchmark's default), so the rates compare directly on a shared machine. The gates are those of tests/router/fixtures/make_topk_fixture.py.

Run with Debian's interpreter, which has torch 1.13:
    /usr/bin/python3 bench/micro/router/torch_topk_bench.py

With --kimi-k2 it times instead Kimi-K2's gate (sigmoid noaux_tc, 384 experts in one group,
top-8, normalized, scaled by 2.827) on 2048 tokens, in token rows per second of wall time,
the unit of the router-replay workload's route_rows_per_s; bench/micro/router/
router_replay_ab.sh runs it next to that workload's A/B.
"""
import argparse
import importlib.util
import pathlib
import statistics
import time

import torch

TOKENS = 4096


def load_gates():
    path = pathlib.Path(__file__).resolve().parents[3] / "tests/router/fixtures/make_topk_fixture.py"
    spec = importlib.util.spec_from_file_location("make_topk_fixture", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tokens_per_second(call, min_time=0.5, repetitions=5, clock=time.process_time, tokens=TOKENS):
    """Median over `repetitions` of tokens per second of `clock` (CPU time unless told) of a
    batch lasting >= min_time."""
    rates = []
    for _ in range(repetitions):
        calls, start = 0, clock()
        while True:
            call()
            calls += 1
            elapsed = clock() - start
            if elapsed >= min_time:
                break
        rates.append(calls * tokens / elapsed)
    return statistics.median(rates)


def kimi_k2(gates):
    tokens = 2048
    generator = torch.Generator().manual_seed(3)
    logits = torch.rand(tokens, 384, generator=generator) * 4.0 - 2.0
    bias = torch.zeros(384)
    rate = tokens_per_second(lambda: gates.deepseek_v3_gate(logits, bias, 8, 1, 1, True, 2.827),
                             clock=time.perf_counter, tokens=tokens)
    print(f"torch {torch.__version__}, 1 thread, {tokens} tokens")
    print(f"kimi_k2 gate (384 experts, top-8): {rate:.4g} rows/s of wall time")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kimi-k2", action="store_true", help="time Kimi-K2's gate only")
    torch.set_num_threads(1)
    gates = load_gates()
    if parser.parse_args().kimi_k2:
        kimi_k2(gates)
        return
    generator = torch.Generator().manual_seed(3)
    logits = torch.randn(TOKENS, 256, generator=generator) * 2.0
    bias = torch.randn(256, generator=generator) * 0.01
    deepseek = tokens_per_second(lambda: gates.deepseek_v3_gate(logits, bias, 8, 8, 4, True, 2.5))
    mixtral_logits = torch.randn(TOKENS, 8, generator=generator) * 2.0
    mixtral = tokens_per_second(lambda: gates.mixtral_gate(mixtral_logits, 2, True))
    print(f"torch {torch.__version__}, 1 thread, {TOKENS} tokens")
    print(f"deepseek_v3 gate: {deepseek / 1e3:.1f}k tokens/s")
    print(f"mixtral gate:     {mixtral / 1e6:.2f}M tokens/s")


if __name__ == "__main__":
    main()
