"""Strided copies and fills of memview against np.copyto / ndarray.fill on the same memory.

Every case copies 256 MiB of float64 into a dense array. memview works on the very
NumPy arrays the anchor uses (mv.from_buffer wraps them without copying), so both
sides read and write the same pages. The two are timed interleaved, alternating which
goes first; the ratio is median(memview) / median(NumPy). Targets are checked here,
never in tests.

    python3 build.py bench            (or: PYTHONPATH=.build/pkg python benchmarks/bench_copy.py)
    python3 benchmarks/bench_copy.py --quick     fewer repeats
"""
import statistics
import sys
import time

import numpy as np

import memview as mv
from _timing import summary

QUICK = "--quick" in sys.argv
REPEAT = 5 if QUICK else 15
TARGET = 1.2
MIB = 1 << 20


def once(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def pair(fn, anchor, repeat=REPEAT):
    """Median times of fn and anchor, measured interleaved (alternating which runs
    first) after one warm-up call of each."""
    fn()
    anchor()
    t, ta = [], []
    for r in range(repeat):
        if r % 2:
            ta.append(once(anchor))
            t.append(once(fn))
        else:
            t.append(once(fn))
            ta.append(once(anchor))
    return statistics.median(t), statistics.median(ta)


def report(name, t, anchor_name, t_anchor, nbytes, target=TARGET):
    ratio = t / t_anchor
    ok = ratio <= target
    print(f"{name:<34} {t * 1e3:8.2f} ms {nbytes / t / 1e9:6.2f} GB/s  vs {anchor_name:<30} "
          f"{t_anchor * 1e3:8.2f} ms {nbytes / t_anchor / 1e9:6.2f} GB/s  ratio {ratio:6.3f}  "
          f"(target <= {target:g}: {'met' if ok else 'MISSED'})", flush=True)
    return ok


def check(a, n):
    """Fail loudly if the memview result differs from NumPy's."""
    if not np.array_equal(np.asarray(a), n):
        sys.exit("bench_copy: memview and NumPy results differ")


def main():
    summary(run())


def run():
    n = 256 * MIB // 8
    rows, cols = 8192, 4096
    src = np.arange(n, dtype=np.float64)
    dst = np.zeros(n)  # touched: the copies measure copying, not page faults
    big = np.arange(2 * n, dtype=np.float64)
    msrc, mdst, mbig = mv.from_buffer(src), mv.from_buffer(dst), mv.from_buffer(big)
    nbytes = dst.nbytes
    print(f"{nbytes // MIB} MiB float64 per copy; {REPEAT} interleaved repeats, medians")
    results = []

    def case(name, go, anchor_name, anchor, nd_result):
        t, ta = pair(go, anchor)
        if nd_result is not None:
            check(*nd_result)
        results.append(report(name, t, anchor_name, ta, nbytes))

    # (a) contiguous
    def a_mv():
        mdst[...] = msrc
    case("(a) contiguous  dst[...] = src", a_mv, "np.copyto(dst, src)",
         lambda: np.copyto(dst, src), (mdst, src))

    # (b) every other element of a 512 MiB array
    mstep, nstep = mbig[::2], big[::2]

    def b_mv():
        mdst[...] = mstep
    case("(b) step 2      dst[...] = big[::2]", b_mv, "np.copyto(dst, big[::2])",
         lambda: np.copyto(dst, nstep), (mdst, nstep))

    # (c) 2-D transpose: (4096, 8192) <- (8192, 4096).T
    src2, dst2 = src.reshape(rows, cols), dst.reshape(cols, rows)
    msrc2t, mdst2 = msrc.reshape(rows, cols).T, mdst.reshape(cols, rows)

    def c_mv():
        mdst2[...] = msrc2t
    case(f"(c) transpose   {cols}x{rows} <- .T", c_mv, "np.copyto(dst2, src2.T)",
         lambda: np.copyto(dst2, src2.T), (mdst2, src2.T))

    # (d) negative strides
    mrev, nrev = msrc[::-1], src[::-1]

    def d_mv():
        mdst[...] = mrev
    case("(d) reversed    dst[...] = src[::-1]", d_mv, "np.copyto(dst, src[::-1])",
         lambda: np.copyto(dst, nrev), (mdst, nrev))

    # (e) fill
    case("(e) fill        dst.fill(3.0)", lambda: mdst.fill(3.0), "ndarray.fill(3.0)",
         lambda: dst.fill(3.0), None)
    if not (dst == 3.0).all():
        sys.exit("bench_copy: fill wrote the wrong values")

    # For reference (no target): a new copy of a transposed array, allocation included.
    mt, nt = msrc2t, src2.T
    t, ta = pair(lambda: mt.copy("K"), lambda: nt.copy(order="K"), repeat=max(3, REPEAT // 3))
    print(f"{'  (for reference: a.T.copy(order=K))':<34} {t * 1e3:8.2f} ms {nbytes / t / 1e9:6.2f} GB/s  vs "
          f"{'ndarray.T.copy(order=K)':<30} {ta * 1e3:8.2f} ms {nbytes / ta / 1e9:6.2f} GB/s  ratio {t / ta:6.3f}")
    t, ta = pair(lambda: mt.copy("C"), lambda: nt.copy(order="C"), repeat=max(3, REPEAT // 3))
    print(f"{'  (for reference: a.T.copy(order=C))':<34} {t * 1e3:8.2f} ms {nbytes / t / 1e9:6.2f} GB/s  vs "
          f"{'ndarray.T.copy(order=C)':<30} {ta * 1e3:8.2f} ms {nbytes / ta / 1e9:6.2f} GB/s  ratio {t / ta:6.3f}")
    del mt, msrc2t, mdst2, mrev, mstep, msrc, mdst, mbig
    return results


if __name__ == "__main__":
    main()
