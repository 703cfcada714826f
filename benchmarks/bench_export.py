"""Export and allocation cost of memview against anchors measured in the same run.

Prints one line per ratio: the measured times, the ratio, the target from the
design notes (docs/design/index.md, Performance targets) and whether it is met.
Targets are checked here, never in tests.

    python3 build.py bench            (or: PYTHONPATH=.build/pkg python benchmarks/bench_export.py)
"""
import gc
import sys
import timeit

import numpy as np

import memview as mv
from _timing import interleaved_best, summary

QUICK = "--quick" in sys.argv


def best(fn, number, repeat=7):
    """Best per-call time in seconds of fn over repeat runs of number calls."""
    if QUICK:
        number, repeat = max(1, number // 10), 3
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def pair(fn, anchor, number, repeat=15):
    """Best per-call times of fn and anchor, measured interleaved."""
    if QUICK:
        number, repeat = max(1, number // 10), 3
    return interleaved_best(fn, anchor, number, repeat)


def report(name, t, anchor_name, t_anchor, target, smaller_is_better=True):
    ratio = t / t_anchor
    ok = ratio <= target if smaller_is_better else ratio >= target
    sign = "<=" if smaller_is_better else ">="
    print(f"{name:<44} {t * 1e9:12.1f} ns  vs {anchor_name:<34} {t_anchor * 1e9:12.1f} ns"
          f"  ratio {ratio:10.4g}  (target {sign} {target:g}: {'met' if ok else 'MISSED'})")
    return ok


def main():
    summary(run())


def run():
    results = []
    # memoryview(a) vs memoryview(bytearray) of the same size
    a = mv.empty(1024, "uint8")
    ba = bytearray(1024)
    t_mv, t_ba = pair(lambda: memoryview(a), lambda: memoryview(ba), 100_000)
    results.append(report("memoryview(a) 1 KiB", t_mv, "memoryview(bytearray) 1 KiB", t_ba, 1.0))

    # np.asarray of a 2-D array vs NumPy consuming a memoryview of an equal ndarray
    a2 = mv.zeros((256, 256))
    n2 = np.zeros((256, 256))
    t_np, t_anchor = pair(lambda: np.asarray(a2), lambda: np.asarray(memoryview(n2)), 50_000)
    results.append(report("np.asarray(a) 2-D", t_np, "np.asarray(memoryview(ndarray))", t_anchor, 1.1))
    m2 = memoryview(n2)
    t_np, t_anchor = pair(lambda: np.asarray(a2), lambda: np.asarray(m2), 50_000)
    print(f"{'  (for reference: vs an existing memoryview)':<44} {t_np * 1e9:12.1f} ns  vs "
          f"{'np.asarray(m), m made beforehand':<34} {t_anchor * 1e9:12.1f} ns  ratio {t_np / t_anchor:10.4g}")
    del m2

    # export cost independent of size
    big = mv.empty(1 << 30, "uint8")
    small = mv.empty(1 << 10, "uint8")
    t_big, t_small = pair(lambda: memoryview(big), lambda: memoryview(small), 100_000)
    results.append(report("memoryview(a) 1 GiB", t_big, "memoryview(a) 1 KiB", t_small, 1.05))

    # export vs copy of 1 GiB
    nbig = np.asarray(big)
    nbig[:] = 1  # touch the pages so the copy measures copying, not page faults
    t_copy = best(lambda: nbig.copy(), 1, repeat=3)
    results.append(report("memoryview(a) 1 GiB (export)", t_big, "copy of 1 GiB (ndarray.copy)", t_copy,
                          1 / 10_000))
    del nbig, big, small
    gc.collect()

    # allocation: mv.empty vs np.empty
    t_e4, t_n4 = pair(lambda: mv.empty(512), lambda: np.empty(512), 20_000)
    results.append(report("mv.empty 4 KiB", t_e4, "np.empty 4 KiB", t_n4, 1.5))
    n256 = (256 << 20) // 8
    t_e256, t_n256 = pair(lambda: mv.empty(n256), lambda: np.empty(n256), 200)
    results.append(report("mv.empty 256 MiB", t_e256, "np.empty 256 MiB", t_n256, 1.0))

    return results


if __name__ == "__main__":
    main()
