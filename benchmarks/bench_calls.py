"""Calls into bound Go functions and methods (benchmarks/callbench, built --with
in the bench build): each bound call against the floor for any Go function
called from Python — a hand-written METH_FASTCALL entry making one cgo call into
the same Go code (callbench/anchor.c), with the GIL released as the bound calls
release it — and against a plain C function doing the same work, measured in one
run. A method's floor is a hand-written METH_FASTCALL method of gopy's class
that reads the receiver's handle and makes one cgo call, which finds the Go
value in gopy's table (anchor.go). The cost of releasing and re-taking the GIL
is the floor's Nop with and without the release, on its own line. A second
table times hashes of 64 bytes and 1 MiB against C extensions doing the same
work (PyPI's xxhash, zlib.crc32). Times are CPU time of this process (best of
interleaved runs). MEMVIEW_GOPY_PATH=1 times gopy's
call path instead.

    python3 build.py bench     (or: PYTHONPATH=.build/examples python benchmarks/bench_calls.py)
"""
import sys
import time
import timeit

import numpy as np

from _timing import summary

QUICK = "--quick" in sys.argv
try:
    import callbench
except ImportError:
    sys.exit("bench_calls: benchmarks/callbench is not built in (python3 build.py bench builds it with memview)")
callbench.InstallAnchors()
import callbench_anchors as anchors  # noqa: E402  (made by InstallAnchors)

anchors.install_method_floors(callbench.Acc)  # floor_nop, floor_sum: the floors of Acc's methods


def best(fns, number, repeat=15):
    """Best per-call CPU times of fns (CPU time of this process, so that other
    load on a shared machine counts less), measured interleaved."""
    if QUICK:
        number, repeat = max(1, number // 10), 3
    times = [[] for _ in fns]
    for _ in range(repeat):
        for t, fn in zip(times, fns):
            t.append(timeit.timeit(fn, number=number, timer=time.process_time))
    return [min(t) / number for t in times]


def main():
    x8 = np.arange(8, dtype=np.float64)
    x1000 = np.arange(1000, dtype=np.float64)
    y = np.ones(2000, dtype=np.float64)
    ys = y[::2]
    acc = callbench.NewAcc()
    cases = [  # name, bound call, floor, plain C, target
        ("Nop()", lambda: callbench.Nop(), lambda: anchors.floor_nop(), lambda: anchors.plain_nop(), 1.5, 200_000),
        ("Add(1, 2)", lambda: callbench.Add(1, 2), lambda: anchors.floor_add(1, 2), lambda: anchors.plain_add(1, 2),
         1.5, 200_000),
        ("Sum(ndarray of 8)", lambda: callbench.Sum(x8), lambda: anchors.floor_sum(x8),
         lambda: anchors.plain_sum(x8), 1.5, 100_000),
        ("Sum(ndarray of 1000)", lambda: callbench.Sum(x1000), lambda: anchors.floor_sum(x1000),
         lambda: anchors.plain_sum(x1000), 1.2, 20_000),
        ("Scale(y[::2], 1.0), 1000", lambda: callbench.Scale(ys, 1.0), lambda: anchors.floor_scale(ys, 1.0),
         lambda: anchors.plain_scale(ys, 1.0), 2.0, 20_000),
        ("acc.Nop() (a method)", lambda: acc.Nop(), lambda: acc.floor_nop(), lambda: anchors.plain_nop(), 1.5,
         200_000),
        ("acc.Sum(ndarray of 8)", lambda: acc.Sum(x8), lambda: acc.floor_sum(x8), lambda: anchors.plain_sum(x8),
         1.5, 100_000),
    ]
    assert callbench.Add(1, 2) == anchors.floor_add(1, 2) == 3
    assert callbench.Sum(x1000) == anchors.floor_sum(x1000) == anchors.plain_sum(x1000)
    assert acc.Sum(x8) == acc.floor_sum(x8) == 28.0
    fast = type(callbench.Nop).__name__ == "builtin_function_or_method"
    path = "the generated call entries" if fast else "gopy's call path"
    print(f"bound calls through {path}; "
          "floor: METH_FASTCALL + one cgo call, GIL released")
    print(f"{'call':28s} {'bound':>10s} {'floor':>10s} {'plain C':>10s} {'ratio':>7s} {'target':>7s}")
    results = []
    for name, fn, floor, plain, target, number in cases:
        t, tf, tp = best([fn, floor, plain], number)
        ratio = t / tf
        results.append(ratio <= target)
        print(f"{name:28s} {t * 1e9:8.0f}ns {tf * 1e9:8.0f}ns {tp * 1e9:8.0f}ns {ratio:6.2f}x "
              f"{'<=' if ratio <= target else '> '}{target}x")
    results += against_c_extensions()
    held, released = best([lambda: anchors.floor_nop_held(), lambda: anchors.floor_nop()], 200_000)
    print(f"GIL release + re-take around the cgo call: {(released - held) * 1e9:.0f} ns "
          f"(floor Nop {released * 1e9:.0f} ns released, {held * 1e9:.0f} ns held)")
    summary(results)


def against_c_extensions():
    """Small calls with a buffer argument against C extensions doing the same
    work on the same input: XXH64 (callbench's, in Go) against PyPI's xxhash,
    the IEEE CRC-32 (Go's hash/crc32) against zlib.crc32; from bytes and from
    a NumPy uint8 array, 64 bytes and 1 MiB. Targets: 1.3x at 64 bytes, 1.2x
    at 1 MiB."""
    import zlib
    try:
        import xxhash
    except ImportError:
        print("(no xxhash: pip install xxhash for the XXH64 rows)")
        xxhash = None
    rng = np.random.default_rng(1)
    print(f"\n{'call, against a C extension':44s} {'bound':>10s} {'C ext':>10s} {'ratio':>7s} {'target':>7s}")
    rows = []
    for n, target, number in ((64, 1.3, 200_000), (1 << 20, 1.2, 200)):
        raw = rng.integers(0, 256, n, dtype=np.uint8)
        for what, x in ((f"bytes of {n}", raw.tobytes()), (f"uint8 ndarray of {n}", raw)):
            if xxhash is not None:
                assert callbench.XXH64(x) == xxhash.xxh64_intdigest(x)
                rows.append((f"XXH64({what}) / xxhash", lambda x=x: callbench.XXH64(x),
                             lambda x=x: xxhash.xxh64_intdigest(x), target, number))
            assert callbench.CRC32(x) == zlib.crc32(x)
            rows.append((f"CRC32({what}) / zlib.crc32", lambda x=x: callbench.CRC32(x),
                         lambda x=x: zlib.crc32(x), target, number))
    results = []
    for name, fn, ext, target, number in rows:
        t, te = best([fn, ext], number)
        ratio = t / te
        results.append(ratio <= target)
        print(f"{name:44s} {t * 1e9:8.0f}ns {te * 1e9:8.0f}ns {ratio:6.2f}x "
              f"{'<=' if ratio <= target else '> '}{target}x")
    return results


if __name__ == "__main__":
    main()
