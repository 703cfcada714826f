"""The cost of os.fork() + waitpid in a process with memview imported, against a plain
interpreter, measured in one run.

memview does nothing around a fork (pyext/fork.c: a forked child never enters Go, so
the parent need not bring Go to a quiet state first): no wait, no stop-the-world, no
collector pause. What remains is the kernel's copy of a larger address space. Each
side forks a child that exits at once, many times, and the best and median latencies
are compared: this process (memview imported, a few arrays alive, Go's threads idle)
against a fresh interpreter that imported only NumPy, run as a subprocess in the same
run. Target: within 1.5x of the plain interpreter.

    python3 build.py bench          (or: PYTHONPATH=.build/pkg python benchmarks/bench_fork.py)
"""
import json
import os
import statistics
import subprocess
import sys
import time

import memview as mv
from _timing import summary

N = 300
TARGET = 1.5

LOOP = f"""
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


def plain(imports):
    code = f"import {imports}\n" if imports else ""
    code += LOOP + f"import json; print(json.dumps(forks({N})))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def main():
    ns = {}
    exec(LOOP, ns)
    arrays = [mv.zeros(1 << 16) for _ in range(16)] + [mv.zeros(1 << 22)]  # small and 32 MiB
    results = []
    mine = ns["forks"](N)
    anchor = plain("numpy")
    bare = plain("")
    m, a, b = statistics.median(mine), statistics.median(anchor), statistics.median(bare)
    ratio = m / a
    print(f"fork+waitpid, median of {N}: memview {m * 1e6:.0f} us, plain interpreter with NumPy "
          f"{a * 1e6:.0f} us (ratio {ratio:.2f}, target <= {TARGET}), bare interpreter {b * 1e6:.0f} us")
    print(f"fork+waitpid, best: memview {min(mine) * 1e6:.0f} us, with NumPy {min(anchor) * 1e6:.0f} us, "
          f"bare {min(bare) * 1e6:.0f} us")
    results.append(ratio <= TARGET)
    del arrays
    summary(results)


if __name__ == "__main__":
    main()
