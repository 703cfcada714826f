"""Memory benchmarks: allocation through each pool, and building arrays item by
item, against anchors measured in the same run.

1. Go (when a Go toolchain and the sources are here): allocate + free of 64 B,
   4 KiB, 1 MiB and 256 MiB through each pool — host, mmap, proxy, logging,
   checked — against Go's make([]byte, n) (memview/bench_pool_test.go).
2. Python: mv.empty(n, pool=...) against np.empty for the same sizes.
3. mv.Builder("float64").extend(iterator) of 10^6 items against
   np.fromiter(iterator, float64) (target <= 1.0) and array.array("d", iterator).

    python3 build.py bench     (or: PYTHONPATH=.build/pkg python benchmarks/bench_memory.py [--quick])
"""
import array
import gc
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

import memview as mv
from _timing import interleaved_best, summary

QUICK = "--quick" in sys.argv
ROOT = Path(__file__).resolve().parent.parent
SIZES = [64, 4 << 10, 1 << 20, 256 << 20]


def pair(fn, anchor, number, repeat=11):
    if QUICK:
        number, repeat = max(1, number // 10), 3
    return interleaved_best(fn, anchor, number, repeat)


def size_name(n):
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB" if n >= 1 << 10 else f"{n} B"


def line(name, t, anchor_name, t_anchor, target=None):
    ratio = t / t_anchor
    verdict = "(reference)" if target is None else (
        f"(target <= {target:g}: {'met' if ratio <= target else 'MISSED'})")
    print(f"{name:<46} {t * 1e9:12.1f} ns  vs {anchor_name:<30} {t_anchor * 1e9:12.1f} ns"
          f"  ratio {ratio:8.3g}  {verdict}")
    return None if target is None else ratio <= target


def go_pools():
    """Runs the Go benchmark and prints each pool's ratio to make([]byte) of one run."""
    go = shutil.which("go")
    if go is None or not (ROOT / "memview" / "bench_pool_test.go").exists():
        print("Go allocation benchmark: skipped (no Go toolchain or no sources here)")
        return
    env = dict(os.environ, CGO_ENABLED="0")
    r = subprocess.run([go, "test", "-run", "^$", "-bench", "^BenchmarkAllocFree$",
                        "-benchtime", "0.05s" if QUICK else "0.5s", "./memview/"],
                       cwd=ROOT, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        print("Go allocation benchmark failed:\n" + r.stdout[-2000:] + r.stderr[-2000:])
        return
    times = {}
    for m in re.finditer(r"BenchmarkAllocFree/size=(\d+)/(\w+)-\d+\s+\d+\s+([\d.]+) ns/op", r.stdout):
        times[(int(m.group(1)), m.group(2))] = float(m.group(3)) * 1e-9
    print("Go: allocate + free through each pool vs make([]byte, n) (freed by the collector)")
    for n in SIZES:
        anchor = times.get((n, "make"))
        for pool in ("host", "mmap", "proxy", "logging", "checked"):
            if anchor and (n, pool) in times:
                line(f"  {pool} pool, {size_name(n)}", times[(n, pool)], f"make([]byte) {size_name(n)}", anchor)


def python_pools(results):
    print("Python: mv.empty(n, pool=...) vs np.empty(n)")
    pools = {"default": None, "host": mv.Pool("host"), "mmap": mv.Pool("mmap"),
             "proxy": mv.ProxyPool(), "checked": mv.CheckedPool()}
    for n in SIZES:
        count = n // 8
        number = 20_000 if n <= 4096 else 2_000 if n <= 1 << 20 else 100
        for name, p in pools.items():
            t, ta = pair(lambda: mv.empty(count, pool=p), lambda: np.empty(count), number)
            # the targets for the default pool (docs/design/index.md): 1.5x NumPy for small arrays, 1.0x for 256 MiB
            target = None if name != "default" else (1.0 if n >= 256 << 20 else 1.5 if n <= 4096 else None)
            ok = line(f"  mv.empty {size_name(n)}, {name} pool", t, f"np.empty {size_name(n)}", ta, target)
            if ok is not None:
                results.append(ok)
        gc.collect()


def builders(results):
    n = 100_000 if QUICK else 1_000_000
    print(f"Builder: {n} float64 items from an iterator")

    def build(it):
        b = mv.Builder("float64")
        b.extend(it)
        return b.finish()

    values = [float(i) for i in range(n)]
    for what, make in (("a generator", lambda: (i * 0.5 for i in range(n))),
                       ("a list iterator", lambda: iter(values))):
        t, ta = pair(lambda: build(make()), lambda: np.fromiter(make(), np.float64), 3, repeat=7)
        results.append(line(f"  Builder.extend({what})", t, "np.fromiter", ta, 1.0))
        t, ta = pair(lambda: build(make()), lambda: array.array("d", make()), 3, repeat=7)
        line(f"  Builder.extend({what})", t, 'array.array("d", ...)', ta)
    a = np.arange(n, dtype=np.float64)
    t, ta = pair(lambda: build(a), lambda: a.copy(), 20)
    line("  Builder.extend(float64 ndarray): one copy", t, "ndarray.copy()", ta)


def main():
    results = []
    go_pools()
    python_pools(results)
    builders(results)
    summary(results)


if __name__ == "__main__":
    main()
