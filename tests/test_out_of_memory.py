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


def _size_text_rule(n):
    """A byte count as NumPy's out-of-memory message writes it, by the rule memview
    follows (memview/size_text.go): bytes below 1 KiB, else three significant figures in
    the largest binary unit that keeps the number at least 1, with the point kept."""
    if n < 1024:
        return f"{n} bytes"
    units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
    u, v = 0, n / 1024
    while u < len(units) - 1 and v >= 1024:
        u, v = u + 1, v / 1024
    if u < len(units) - 1 and round(v) >= 1024:
        u, v = u + 1, v / 1024
    return f"{v:#.3g} {units[u]}" if round(v) < 1000 else f"{v:#.0f} {units[u]}"


def _numpy_size_text():
    """NumPy's own function for it (a private name), or None where this NumPy lacks it."""
    try:
        from numpy._core._exceptions import _ArrayMemoryError
        return _ArrayMemoryError._size_to_string
    except (ImportError, AttributeError):
        return None


def _size_text(n):
    return (_numpy_size_text() or _size_text_rule)(n)


def test_size_text_rule_is_numpys():
    """The rule agrees with NumPy's function on 2,000 random sizes and the edges (so the
    message check below means the same with every NumPy)."""
    numpy_text = _numpy_size_text()
    if numpy_text is None:
        pytest.skip("this NumPy has no numpy._core._exceptions._ArrayMemoryError._size_to_string")
    import random
    rng = random.Random(7)
    sizes = [0, 1, 1023, 1024, 1536, 102350, 131072, 1023576, 1048252, 1 << 30, (1 << 64) - 1]
    sizes += [rng.randrange(1 << rng.randrange(1, 64)) for _ in range(2000)]
    for n in sizes:
        assert _size_text_rule(n) == numpy_text(n), n


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
    # NumPy's words first ("Unable to allocate 1.00 GiB for an array with shape (...) and
    # data type float64"), with NumPy's own way of writing the size, then the reason.
    count = max(1, size // 8)
    want = (f"memview: unable to allocate {_size_text(count * 8)} for an array with shape "
            f"({count},) and data type float64: ")
    assert msg.startswith(want), (msg, want)


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
