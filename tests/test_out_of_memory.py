"""Out of memory is MemoryError, never the Go runtime's fatal error, and the process stays usable.

Each case runs in a subprocess under an address-space limit (RLIMIT_AS, what `ulimit -v`
sets), fills a list with arrays until MemoryError, drops them, and then works normally.
NumPy raises MemoryError under the same limit; so must every memview pool backend.
"""
import os
import resource
import subprocess
import sys
import textwrap

import pytest

LIMIT = 2_500_000 * 1024  # bytes: `ulimit -v 2500000`

SCRIPT = textwrap.dedent("""
    import gc, sys
    import memview as mv
    kind, size = sys.argv[1], int(sys.argv[2])
    keep = []
    src = mv.zeros(16)
    try:
        while True:
            if kind == "empty":
                keep.append(mv.empty(max(1, size // 8), "float64"))
            elif kind == "copy":
                keep.append(src.copy())
            else:  # views: array objects that allocate no array memory
                keep.append(src[1:])
    except MemoryError as e:
        n = len(keep)
        msg = str(e)
    assert n > 0, "nothing was allocated before MemoryError"
    del keep
    gc.collect()
    # the process is still usable: allocate, write, read, and give everything back
    a = mv.zeros(1 << 16)
    a.fill(2.0)
    b = a.copy()
    assert sum(b.tolist()) == 2.0 * (1 << 16)
    del a, b, src
    gc.collect()
    pool = mv.default_pool()
    print(n, pool.bytes_allocated, pool.num_live, mv.live_handles())
    print(msg)
""")


def _limit_address_space():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def _run(backend, kind, size):
    env = dict(os.environ, MEMVIEW_DEFAULT_POOL=backend)
    return subprocess.run([sys.executable, "-c", SCRIPT, kind, str(size)], env=env,
                          preexec_fn=_limit_address_space, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("size", [64, 16 << 10, 128 << 10, 64 << 20],
                         ids=["64B", "16KiB", "128KiB", "64MiB"])
@pytest.mark.parametrize("backend", ["host", "mmap"])
def test_allocation_until_memory_error(backend, size):
    r = _run(backend, "empty", size)
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stderr[-3000:]}"
    first, msg = r.stdout.splitlines()[:2]
    n, nbytes, nlive, handles = map(int, first.split())
    assert n > 0 and (nbytes, nlive, handles) == (0, 0, 0)
    assert "address-space limit" in msg or "mmap" in msg, msg


@pytest.mark.parametrize("kind", ["copy", "views"])
def test_copies_and_views_until_memory_error(kind):
    r = _run("host", kind, 0)
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stderr[-3000:]}"
    n, nbytes, nlive, handles = map(int, r.stdout.split("\n")[0].split())
    assert n > 0 and (nbytes, nlive, handles) == (0, 0, 0)


def test_numpy_raises_memory_error_under_the_same_limit():
    """The anchor: NumPy's behaviour under the same limit, so that the limit is real."""
    code = ("import numpy as np\nkeep = []\ntry:\n    while True: keep.append(np.ones(1 << 21))\n"
            "except MemoryError:\n    print(len(keep))\n")
    r = subprocess.run([sys.executable, "-c", code], preexec_fn=_limit_address_space,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert 0 < int(r.stdout) < LIMIT // (8 << 21) + 1
