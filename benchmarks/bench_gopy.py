"""Go packages built together with memview (examples/sigproc): Go memory to NumPy
and NumPy memory to Go, against gopy's own element-by-element paths and against
NumPy, measured in the same run. Times are CPU time of this process (best of
interleaved runs), so that other load on a shared machine counts less.

    python3 build.py bench     (builds examples/ in; or: PYTHONPATH=.build/examples python benchmarks/bench_gopy.py)
"""
import sys
import time
import timeit

import numpy as np

import memview as mv
from _timing import summary

QUICK = "--quick" in sys.argv
try:
    import sigproc
    from memview._ext import go
except ImportError:
    sys.exit("bench_gopy: examples/sigproc is not built in (python3 build.py bench builds it with memview)")


def pair(fn, anchor, number, repeat=15):
    """Best per-call CPU times of fn and anchor, measured interleaved."""
    if QUICK:
        number, repeat = max(1, number // 10), 3
    t, ta = [], []
    for _ in range(repeat):
        t.append(timeit.timeit(fn, number=number, timer=time.process_time))
        ta.append(timeit.timeit(anchor, number=number, timer=time.process_time))
    return min(t) / number, min(ta) / number


def once(fn, repeat=3):
    """Best CPU time of a slow call, run a few times."""
    return min(timeit.repeat(fn, number=1, repeat=1 if QUICK else repeat, timer=time.process_time))


def report(name, t, anchor_name, t_anchor, target=None, smaller_is_better=True):
    ratio = t / t_anchor
    if target is None:
        verdict = "(reference)"
        ok = None
    else:
        ok = ratio <= target if smaller_is_better else ratio >= target
        verdict = f"(target {'<=' if smaller_is_better else '>='} {target:g}: {'met' if ok else 'MISSED'})"
    print(f"{name:<46} {t * 1e9:14.1f} ns  vs {anchor_name:<44} {t_anchor * 1e9:14.1f} ns"
          f"  ratio {ratio:10.4g}  {verdict}")
    return ok


def run():
    results = []
    n = 1_000_000
    ramp = getattr(sigproc.Ramp, "__self__", sigproc.Ramp)  # gopy's path: its own object
    r = ramp(n)  # a Go []float64 as gopy hands it to Python

    # Go slice to NumPy: memview's zero-copy view against gopy's element-by-element read.
    t_view = pair(lambda: np.asarray(mv.asarray(r)), lambda: None, 2000)[0]
    t_gopy = once(lambda: np.array(r))  # NumPy reads gopy's sequence: one cgo call per element
    assert np.array_equal(np.asarray(mv.asarray(r)), np.arange(n, dtype=np.float64))
    results.append(report("np.asarray(mv.asarray(slice)) 1M float64", t_view,
                          "np.array(slice), gopy element by element", t_gopy, 1e-4))
    t_list = once(lambda: list(r))
    report("np.asarray(mv.asarray(slice)) 1M float64", t_view, "list(slice), gopy element by element", t_list)

    # ... and against NumPy itself: asarray of an equal ndarray (returns it), and the
    # export of an equal memview array (what the view adds is the gopy handle lookup).
    nd = np.arange(n, dtype=np.float64)
    t_view, t_nd = pair(lambda: np.asarray(mv.asarray(r)), lambda: np.asarray(nd), 20_000)
    results.append(report("np.asarray(mv.asarray(slice)) 1M float64", t_view,
                          "np.asarray(ndarray) 1M float64", t_nd, 3.0))
    m = mv.arange(n, dtype="float64")
    t_view, t_m = pair(lambda: np.asarray(mv.asarray(r)), lambda: np.asarray(m), 20_000)
    report("np.asarray(mv.asarray(slice)) 1M float64", t_view, "np.asarray(memview array) 1M float64", t_m)
    t_asarray, t_buf = pair(lambda: mv.asarray(r), lambda: mv.from_buffer(nd), 20_000)
    report("mv.asarray(slice) 1M float64", t_asarray, "mv.from_buffer(ndarray) 1M float64", t_buf)

    # NumPy memory to Go: a bound function given a NumPy array, against the same call
    # given a gopy Slice built from a Python list (gopy's way in).
    for size in (1_000, 100_000):
        x = np.arange(size, dtype=np.float64)
        values = x.tolist()
        t_np = pair(lambda: sigproc.Sum(x), lambda: None, 20_000 if size == 1_000 else 2_000)[0]
        t_list = once(lambda: sigproc.Sum(go.Slice_float64(values)))
        assert sigproc.Sum(x) == sigproc.Sum(go.Slice_float64(values[:10])) + sum(values[10:])
        report(f"sigproc.Sum(ndarray) {size} float64", t_np, "sigproc.Sum(go.Slice_float64(list))", t_list)
    # What lending costs per call: the same call with a gopy Slice made beforehand.
    x = np.arange(1000, dtype=np.float64)
    s = go.Slice_float64(x.tolist())
    t_np, t_pre = pair(lambda: sigproc.Sum(x), lambda: sigproc.Sum(s), 20_000)
    report("sigproc.Sum(ndarray) 1000 float64", t_np, "sigproc.Sum(gopy Slice made beforehand)", t_pre)
    # *memview.Array parameters: strided NumPy memory, Go working in place.
    y = np.ones(2000)
    t_scale, t_np_scale = pair(lambda: sigproc.Scale(y[::2], 1.0), lambda: np.multiply(y[::2], 1.0, out=y[::2]),
                               20_000)
    report("sigproc.Scale(ndarray[::2], 1.0) 1000", t_scale, "np.multiply(y[::2], 1.0, out=...)", t_np_scale)
    del m, r, s
    return [ok for ok in results if ok is not None]


if __name__ == "__main__":
    summary(run())
