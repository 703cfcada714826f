"""Timing helpers shared by the benchmark scripts (not a benchmark itself:
build.py bench runs benchmarks/bench_*.py only)."""
import gc
import timeit

import memview as mv


def interleaved_best(fn, anchor, number, repeat=15):
    """Best per-call times of fn and anchor over repeat runs of number calls each,
    measured interleaved so that drift in the machine's speed affects both alike."""
    t, ta = [], []
    for _ in range(repeat):
        t.append(timeit.timeit(fn, number=number))
        ta.append(timeit.timeit(anchor, number=number))
    return min(t) / number, min(ta) / number


def summary(results):
    """Print that memory came back and how many targets were met."""
    gc.collect()
    pool = mv.default_pool()
    print(f"pool after run: bytes_allocated={pool.bytes_allocated} live_handles={mv.live_handles()}")
    print(f"{sum(results)} of {len(results)} targets met")
