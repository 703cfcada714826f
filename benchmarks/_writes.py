"""The write and copy rows of bench_ops.py (not a benchmark itself: build.py bench
runs benchmarks/bench_*.py only): memview host arrays against the same statements
in NumPy, measured interleaved in one run. Assignment from scalars, arrays,
buffers and lists (whole, row, column, strided, reversed; broadcast from a scalar,
a row and a column; overlapping), fills, casts, records and copies, at several
sizes.

One row per statement: ns per call for memview and for NumPy, the ratio, the
target (<= 1.2x NumPy; casts <= 1.5x) and whether it is met. A second table times
256 MiB copies and fills against np.copyto (target <= 1.0x, memory bound).
"""
import sys
import warnings

import numpy as np

import memview as mv
from _timing import interleaved_best

QUICK = "--quick" in sys.argv
SIZES = (1, 16, 512, 10_000)


def pair(fn, anchor, number, repeat=9):
    if QUICK:
        number, repeat = max(1, number // 10), 3
    return interleaved_best(fn, anchor, number, repeat)


def both(shape, dtype="float64"):
    """A memview array and a NumPy array of one shape, with the same values."""
    n = (np.arange(int(np.prod(shape))) % 100).reshape(shape).astype(dtype)
    a = mv.empty(shape, dtype)
    np.asarray(a)[...] = n
    return a, n


def rows():
    out = []

    def row(name, fn, anchor, target=1.2, number=None):
        out.append((name, fn, anchor, target, number))

    for size in SIZES:
        a, n = both(size)
        b, m = both(size)
        src = np.arange(size, dtype="float64")
        lst = src.tolist()
        row(f"a[...] = 0.0 ({size})", lambda a=a: a.__setitem__(Ellipsis, 0.0),
            lambda n=n: n.__setitem__(Ellipsis, 0.0))
        row(f"a.fill(1.5) ({size})", lambda a=a: a.fill(1.5), lambda n=n: n.fill(1.5))
        row(f"a[:] = b ({size})", lambda a=a, b=b: a.__setitem__(slice(None), b),
            lambda n=n, m=m: n.__setitem__(slice(None), m))
        row(f"a[:] = ndarray ({size})", lambda a=a, s=src: a.__setitem__(slice(None), s),
            lambda n=n, s=src: n.__setitem__(slice(None), s))
        row(f"a[::-1] = b ({size})", lambda a=a, b=b: a.__setitem__(slice(None, None, -1), b),
            lambda n=n, m=m: n.__setitem__(slice(None, None, -1), m))
        row(f"a[1:] = a[:-1] ({size}, overlap)", lambda a=a: a.__setitem__(slice(1, None), a[:-1]),
            lambda n=n: n.__setitem__(slice(1, None), n[:-1]))
        row(f"a[:] = list ({size})", lambda a=a, v=lst: a.__setitem__(slice(None), v),
            lambda n=n, v=lst: n.__setitem__(slice(None), v), number=200 if size > 1000 else None)
        row(f"a.copy() ({size})", lambda a=a: a.copy(), lambda n=n: n.copy())
        row(f"a[::-1].copy() ({size})", lambda a=a: a[::-1].copy(), lambda n=n: n[::-1].copy())
        row(f"mv.copyto(a, b) ({size})", lambda a=a, b=b: mv.copyto(a, b), lambda n=n, m=m: np.copyto(n, m))
        row(f"a.tobytes() ({size})", lambda a=a: a.tobytes(), lambda n=n: n.tobytes())

    for size in (16, 512, 10_000):
        a, n = both((4, size // 4))
        row_v, col_v = np.arange(size // 4, dtype="float64"), np.arange(4, dtype="float64")
        row(f"A[1] = row ({size})", lambda a=a, v=row_v: a.__setitem__(1, v), lambda n=n, v=row_v: n.__setitem__(1, v))
        row(f"A[:, 1] = column ({size})", lambda a=a, v=col_v: a.__setitem__((slice(None), 1), v),
            lambda n=n, v=col_v: n.__setitem__((slice(None), 1), v))
        row(f"A[...] = column[:, None] ({size})", lambda a=a, v=col_v[:, None]: a.__setitem__(Ellipsis, v),
            lambda n=n, v=col_v[:, None]: n.__setitem__(Ellipsis, v))
        row(f"A[:, ::2] = A[:, 1::2] ({size})", lambda a=a: a.__setitem__((slice(None), slice(None, None, 2)), a[:, 1::2]),
            lambda n=n: n.__setitem__((slice(None), slice(None, None, 2)), n[:, 1::2]))

    # the statements of the issue that asked for one engine
    a, n = both((4, 64))
    row("a[0] = a[1, ::-1] (4x64)", lambda: a.__setitem__(0, a[1, ::-1]), lambda: n.__setitem__(0, n[1, ::-1]))
    r = np.arange(64.0)
    row("a[0] = ndarray_row (4x64)", lambda: a.__setitem__(0, r), lambda: n.__setitem__(0, r))
    row("a[:, 0] = 1.0 (4x64)", lambda: a.__setitem__((slice(None), 0), 1.0),
        lambda: n.__setitem__((slice(None), 0), 1.0))
    row("a[:, ::2].copy() (4x64)", lambda: a[:, ::2].copy(), lambda: n[:, ::2].copy())
    b, m = both(256)
    row("b[::2] = b[1::2] (256)", lambda: b.__setitem__(slice(None, None, 2), b[1::2]),
        lambda: m.__setitem__(slice(None, None, 2), m[1::2]))
    c3, n3 = both((8, 8, 8))
    row("c3[:, 1] = c3[:, 2] (8x8x8)", lambda: c3.__setitem__((slice(None), 1), c3[:, 2]),
        lambda: n3.__setitem__((slice(None), 1), n3[:, 2]))
    row8 = np.arange(8.0)
    row("c3[...] = row8 (broadcast)", lambda: c3.__setitem__(Ellipsis, row8), lambda: n3.__setitem__(Ellipsis, row8))
    row("a[::-1] = a (4x64, overlap)", lambda: a.__setitem__(slice(None, None, -1), a),
        lambda: n.__setitem__(slice(None, None, -1), n))

    # casts: array sources cast as np.copyto(casting="unsafe")
    for size in (16, 512, 10_000):
        for dst, src_dt in (("int32", "int64"), ("float32", "float64"), ("int32", "float64"),
                            ("complex64", "complex128"), ("int8", "bool"), ("bool", "int8"),
                            ("float64", "float16"), (">f8", "float64")):
            d, nd = both(size, dst)
            s = (np.arange(size) % 2).astype(src_dt)
            row(f"{dst}[:] = {src_dt} ({size})", lambda d=d, s=s: d.__setitem__(slice(None), s),
                lambda nd=nd, s=s: nd.__setitem__(slice(None), s), target=1.5)

    # records: only field bytes move
    rec = np.dtype([("a", "<u4"), ("b", "<f8"), ("c", "<u2")])
    for size in (16, 512):
        nr = np.zeros(size, rec)
        ar = mv.from_buffer(np.zeros(size, rec))
        srcr = np.ones(size, rec)
        row(f"records[:] = ndarray ({size})", lambda ar=ar, s=srcr: ar.__setitem__(slice(None), s),
            lambda nr=nr, s=srcr: nr.__setitem__(slice(None), s))
        row(f"records[::-1] = records ({size})", lambda ar=ar: ar.__setitem__(slice(None, None, -1), ar),
            lambda nr=nr: nr.__setitem__(slice(None, None, -1), nr))
        row(f"records.copy() ({size})", lambda ar=ar: ar.copy(), lambda nr=nr: nr.copy())
    return out


def run_small():
    print(f"{'statement':<36} {'memview ns':>11} {'NumPy ns':>10} {'ratio':>7}  target")
    results = []
    for name, fn, anchor, target, number in rows():
        t, ta = pair(fn, anchor, number or 2_000)
        ratio = t / ta
        ok = ratio <= target
        results.append(ok)
        print(f"{name:<36} {t * 1e9:11.0f} {ta * 1e9:10.0f} {ratio:7.2f}  <= {target:g}: "
              f"{'met' if ok else 'MISSED'}")
    return results


def run_large():
    """256 MiB copies and fills, memory bound: against np.copyto and fill."""
    size = (64 << 20) // 8 if QUICK else (256 << 20) // 8
    a, b = mv.zeros(size), mv.zeros(size)
    n, m = np.zeros(size), np.zeros(size)
    # every page written first, as the arrays users copy hold data: a source never
    # written reads the kernel's one shared zero page, which stays in the cache
    for x, v in ((a, 2.0), (b, 1.0), (n, 2.0), (m, 1.0)):
        x.fill(v)
    results = []
    print(f"\n{'large statement':<36} {'memview ms':>11} {'NumPy ms':>10} {'ratio':>7}  target")
    for name, fn, anchor in (
            ("a[:] = b (contiguous)", lambda: a.__setitem__(slice(None), b), lambda: np.copyto(n, m)),
            ("a[::2] = b[::2] (strided)", lambda: a.__setitem__(slice(None, None, 2), b[::2]),
             lambda: np.copyto(n[::2], m[::2])),
            ("a.fill(1.0)", lambda: a.fill(1.0), lambda: n.fill(1.0)),
            ("a.copy()", lambda: a.copy().release(), lambda: n.copy())):
        t, ta = interleaved_best(fn, anchor, 1, 3)
        ratio = t / ta
        ok = ratio <= 1.0
        results.append(ok)
        print(f"{name:<36} {t * 1e3:11.1f} {ta * 1e3:10.1f} {ratio:7.2f}  <= 1: {'met' if ok else 'MISSED'}")
    a.release()
    b.release()
    return results


def run():
    """Every row: the small statements, then the large ones; a list of targets met."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # casts of out-of-range values warn, in NumPy and memview alike
        return run_small() + run_large()
