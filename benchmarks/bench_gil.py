"""How long another Python thread is blocked during a 1 GiB copy or fill, and a 256 MiB
strided copy: memview vs NumPy.

A ticker thread wakes every 0.5 ms and records the longest gap between two of its
wake-ups while the main thread runs one large operation. When the operation holds
the GIL, the gap is the whole operation; when it gives the GIL up, the gap is what
the interpreter's switch interval and the OS scheduler allow. The anchor is NumPy's
equivalent operation on the same memory, measured interleaved in the same run; the
ratio is median(memview stall) / median(NumPy stall). Target (docs/design/index.md): within 2x.

    python3 build.py bench          (or: PYTHONPATH=.build/pkg python benchmarks/bench_gil.py)
    python3 benchmarks/bench_gil.py --quick     fewer repeats, 256 MiB
"""
import statistics
import sys
import threading
import time

import numpy as np

import memview as mv
from _timing import summary

QUICK = "--quick" in sys.argv
REPEAT = 3 if QUICK else 7
N = (1 << 25) if QUICK else (1 << 27)  # float64 items: 256 MiB or 1 GiB
TARGET = 2.0
STRIDED = min(N // 2, 1 << 25)  # float64 items of the strided copy: 256 MiB (128 MiB with --quick)


def stall(op):
    """The longest time another thread went without running while op ran (seconds)."""
    stop = threading.Event()
    started = threading.Event()
    gaps = []

    def ticker():
        last = time.perf_counter()
        started.set()
        worst = 0.0
        while not stop.is_set():
            time.sleep(0.0005)
            now = time.perf_counter()
            worst = max(worst, now - last)
            last = now
        gaps.append(worst)

    t = threading.Thread(target=ticker)
    t.start()
    started.wait()
    time.sleep(0.005)
    op()
    stop.set()
    t.join()
    return gaps[0]


def pair(fn, anchor):
    fn()
    anchor()
    s, sa = [], []
    for r in range(REPEAT):
        for f, out in ((fn, s), (anchor, sa)) if r % 2 == 0 else ((anchor, sa), (fn, s)):
            out.append(stall(f))
    return statistics.median(s), statistics.median(sa)


def main():
    src_np = np.arange(N, dtype=np.float64)
    dst_np = np.empty(N)
    src, dst = mv.from_buffer(src_np), mv.from_buffer(dst_np)
    own = mv.arange(N, dtype="float64")
    cases = [
        ("dst[...] = src", lambda: dst.__setitem__(Ellipsis, src), lambda: np.copyto(dst_np, src_np)),
        ("dst[...] = src[::-1]", lambda: dst.__setitem__(Ellipsis, src[::-1]),
         lambda: np.copyto(dst_np, src_np[::-1])),
        (f"dst[::2] = src[::2] ({STRIDED * 8 >> 20} MiB)", lambda: dst[:2 * STRIDED:2].__setitem__(
            Ellipsis, src[:2 * STRIDED:2]), lambda: np.copyto(dst_np[:2 * STRIDED:2], src_np[:2 * STRIDED:2])),
        ("a.fill(3.0)", lambda: dst.fill(3.0), lambda: dst_np.fill(3.0)),
        ("a.copy() (allocates)", lambda: own.copy().release(), lambda: src_np.copy()),
    ]
    size = f"{N * 8 >> 20} MiB"
    print(f"Longest stall of another Python thread during one {size} operation "
          f"(median of {REPEAT}); target memview/NumPy <= {TARGET}")
    results = []
    for name, fn, anchor in cases:
        m, a = pair(fn, anchor)
        ratio = m / a
        results.append(ratio <= TARGET)
        print(f"  {name:24s} memview {m * 1e3:7.2f} ms   NumPy {a * 1e3:7.2f} ms   "
              f"ratio {ratio:5.2f}  {'ok' if ratio <= TARGET else 'MISSED'}")
    del src, dst
    own.release()
    summary(results)


if __name__ == "__main__":
    main()
