"""CUDA across fork(), against the fake driver: a forked child never enters Go
(pyext/go_fork.c), so it never reaches the driver either: every CUDA operation
raises CUDAError (a RuntimeError naming the start methods that work), whether or
not the parent initialised CUDA, is_available() is False, everything else keeps
working, and inherited device arrays go without a driver call. Run by
tests/test_fake_cuda_driver.py; each fork in a subprocess."""
import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import os, sys, time
    import numpy as np
    import memview as mv
    import ctypes
    fake = ctypes.CDLL(os.environ["MEMVIEW_FAKE_CUDA"])
    fake.fake_calls.restype = ctypes.c_long

    parent_uses_cuda = sys.argv[1] == "1"
    if parent_uses_cuda:
        d = mv.arange(8, dtype="float64", device="cuda")
        assert d.tolist() == list(range(8))

    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            calls = fake.fake_calls()
            ops = [lambda: mv.empty(4, device="cuda"), lambda: mv.cuda.synchronize(), lambda: mv.cuda.Stream(),
                   lambda: mv.cuda.pool_stats()]
            if parent_uses_cuda:
                ops += [lambda: d.to("cpu"), lambda: d.fill(1.0), lambda: d.copy()]
            for op in ops:
                try:
                    op()
                except mv.cuda.CUDAError as e:
                    assert isinstance(e, RuntimeError)
                    assert "spawn" in str(e) and "forkserver" in str(e), e
                else:
                    raise AssertionError("a CUDA call in the forked child did not raise")
            assert not mv.cuda.is_available()
            if parent_uses_cuda:
                del d  # an inherited device array goes without a driver call
            assert fake.fake_calls() == calls, "the child entered the driver"
            h = mv.arange(1 << 20, dtype="float64")   # host work is unaffected
            h.fill(2.0)
            assert np.asarray(h).sum() == 2.0 * (1 << 20)
            print("child ok", flush=True)
            code = 0
        except BaseException as e:
            print("child failed:", type(e).__name__, e, flush=True)
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    if parent_uses_cuda:
        assert d.to("cpu").tolist() == list(range(8))  # the parent's CUDA is untouched
    print("parent ok")
""")


@pytest.mark.parametrize("parent_uses_cuda", [True, False], ids=["parent initialised CUDA", "parent did not"])
def test_cuda_in_a_forked_child(parent_uses_cuda):
    r = subprocess.run([sys.executable, "-c", SCRIPT, str(int(parent_uses_cuda))], capture_output=True,
                       text=True, timeout=120, env=os.environ)
    assert r.returncode == 0, r.stdout + r.stderr[-3000:]
    assert r.stdout.split("\n")[:2] == ["child ok", "parent ok"], r.stdout
