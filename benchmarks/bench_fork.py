"""The cost of os.fork() + waitpid in a process with memview imported, against a plain
interpreter, measured in one run.

memview does nothing around a fork (pyext/go_fork.c: a forked child never enters Go, so
the parent need not bring Go to a quiet state first): no wait, no stop-the-world, no
collector pause. What remains is the kernel's copy of a larger address space. Each
side forks a child that exits at once, many times, and the best and median latencies
are compared: this process (memview imported, a few arrays alive, Go's threads idle)
against a fresh interpreter that imported only NumPy, run as a subprocess in the same
run; then both again holding 64 MiB of arrays they have written (memview's and
NumPy's). Target: within 1.5x of the plain interpreter.

    python3 build.py bench          (or: PYTHONPATH=.build/pkg python benchmarks/bench_fork.py)
"""
import json
import statistics
import subprocess
import sys

import memview as mv
from _timing import summary

N = 300
TARGET = 1.5

LOOP = """
import json, os, time
def forks(n):
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        out.append(time.perf_counter() - t0)
    return out
"""


def plain(imports, setup):
    code = (f"import {imports}\n" if imports else "") + setup + "\n"
    code += LOOP + f"import json; print(json.dumps(forks({N})))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def report(what, mine, anchor):
    m, a = statistics.median(mine), statistics.median(anchor)
    print(f"fork+waitpid {what}, median of {N}: memview {m * 1e6:.0f} us, plain interpreter "
          f"{a * 1e6:.0f} us (ratio {m / a:.2f}, target <= {TARGET}); best {min(mine) * 1e6:.0f} us "
          f"and {min(anchor) * 1e6:.0f} us")
    return m / a <= TARGET


def main():
    ns = {}
    exec(LOOP, ns)
    results = [report("with NumPy imported", ns["forks"](N), plain("numpy", ""))]
    arrays = [mv.full(1 << 20, 1.0) for _ in range(8)]  # 64 MiB, written
    results.append(report("holding 64 MiB of arrays", ns["forks"](N),
                          plain("numpy", "keep = [numpy.full(1 << 20, 1.0) for _ in range(8)]")))
    print(f"fork+waitpid of a bare interpreter, median: {statistics.median(plain('', '')) * 1e6:.0f} us")
    del arrays
    summary(results)


if __name__ == "__main__":
    main()
