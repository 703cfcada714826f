"""MEMVIEW_DEFAULT_POOL picks the allocator behind the default pool."""
import os
import subprocess
import sys

import pytest

SCRIPT = """
import warnings, numpy as np
warnings.simplefilter("always")
import memview as mv
a = mv.arange(1 << 18, dtype="float64")      # 2 MiB: large path
b = mv.arange(100, dtype="int32")            # small path
np.asarray(a)[7] = -1
assert a[7] == -1 and a.ptr % 64 == 0 and b.ptr % 64 == 0
del a, b
p = mv.default_pool()
print(p.backend_name, p.bytes_allocated, mv.live_handles())
"""


def _run(backend):
    env = dict(os.environ)
    if backend is None:
        env.pop("MEMVIEW_DEFAULT_POOL", None)
    else:
        env["MEMVIEW_DEFAULT_POOL"] = backend
    return subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("backend", [None, "host", "mmap"])
def test_backends(backend):
    r = _run(backend)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [backend or "host", "0", "0"]
    assert "Warning" not in r.stderr


@pytest.mark.parametrize("name", ["bogus", "go"])
def test_unknown_backend_warns_and_falls_back(name):
    # "go" (the Go heap) is no longer offered: running out of it would abort the process.
    r = _run(name)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["host", "0", "0"]
    assert "RuntimeWarning" in r.stderr and repr(name) in r.stderr.replace('"', "'")
