"""Everyday operations on memview arrays against the same operations in NumPy,
measured interleaved in one run.

Prints one row per operation: ns per call for memview and for NumPy, the ratio,
the target (every row <= 2x NumPy; creation and small copies <= 1.5x) and whether
it is met; then every kind of write and copy (_writes.py: <= 1.2x, casts <= 1.5x,
256 MiB copies and fills <= 1.0x np.copyto). Targets are checked here, never in
tests.

    python3 build.py bench            (or: PYTHONPATH=.build/pkg python benchmarks/bench_ops.py)
"""
import sys

import numpy as np

import memview as mv
import _writes
from _timing import interleaved_best, summary

QUICK = "--quick" in sys.argv


def pair(fn, anchor, number, repeat=15):
    if QUICK:
        number, repeat = max(1, number // 10), 3
    return interleaved_best(fn, anchor, number, repeat)


def run():
    a = mv.zeros(512)
    n = np.zeros(512)
    a2 = mv.zeros((16, 32))
    n2 = np.zeros((16, 32))
    src = np.zeros(512)
    rows = [
        ("mv.empty(512)", lambda: mv.empty(512), "np.empty(512)", lambda: np.empty(512), 1.5),
        ("mv.zeros(512)", lambda: mv.zeros(512), "np.zeros(512)", lambda: np.zeros(512), 1.5),
        ("a[3]", lambda: a[3], "n[3]", lambda: n[3], 2.0),
        ("a2[3, 4]", lambda: a2[3, 4], "n2[3, 4]", lambda: n2[3, 4], 2.0),
        ("a[3] = 1.5", lambda: a.__setitem__(3, 1.5), "n[3] = 1.5", lambda: n.__setitem__(3, 1.5), 2.0),
        ("a[1:5]", lambda: a[1:5], "n[1:5]", lambda: n[1:5], 2.0),
        ("a2[::-1, ::2]", lambda: a2[::-1, ::2], "n2[::-1, ::2]", lambda: n2[::-1, ::2], 2.0),
        ("a2.T", lambda: a2.T, "n2.T", lambda: n2.T, 2.0),
        ("a.reshape(16, 32)", lambda: a.reshape(16, 32), "n.reshape(16, 32)", lambda: n.reshape(16, 32), 2.0),
        ("a.copy() (4 KiB)", lambda: a.copy(), "n.copy() (4 KiB)", lambda: n.copy(), 1.5),
        ("mv.from_buffer(ndarray)", lambda: mv.from_buffer(src),
         "np.asarray(memoryview(ndarray))", lambda: np.asarray(memoryview(src)), 2.0),
        ("len(a)", lambda: len(a), "len(n)", lambda: len(n), 2.0),
        ("list(a2)", lambda: list(a2), "list(n2)", lambda: list(n2), 2.0),
    ]
    print(f"{'operation':<26} {'memview ns':>11} {'NumPy ns':>10} {'ratio':>7}  target")
    results = []
    for name, fn, _, anchor, target in rows:
        number = 2_000 if name.startswith("list") else 20_000
        t, ta = pair(fn, anchor, number)
        ratio = t / ta
        ok = ratio <= target
        results.append(ok)
        print(f"{name:<26} {t * 1e9:11.0f} {ta * 1e9:10.0f} {ratio:7.2f}  <= {target:g}: "
              f"{'met' if ok else 'MISSED'}")
    return results


def main():
    results = run()
    print()
    summary(results + _writes.run())


if __name__ == "__main__":
    main()
