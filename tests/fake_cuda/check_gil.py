"""Waiting for a stream never holds the GIL, against the fake driver: a Python host
function queued on a stream (as CuPy's launch_host_func or Numba's add_callback
queue one) runs on a driver thread and needs the GIL, so any memview call that
waits for that stream while holding the GIL would deadlock. Each case runs in a
subprocess with a timeout. Run by tests/test_fake_cuda_driver.py."""
import os
import subprocess
import sys
import textwrap

import pytest

PRELUDE = textwrap.dedent("""
    import ctypes, os, threading
    import numpy as np
    import memview as mv
    fake = ctypes.CDLL(os.environ["MEMVIEW_FAKE_CUDA"])
    ran = []
    HOSTFN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    callback = HOSTFN(lambda _: ran.append(threading.get_ident()))  # takes the GIL

    def queue_host_function(stream=1, device=0):
        fake.fake_set_current(device)
        assert fake.fake_launch_host_func(ctypes.c_size_t(stream), device, callback, None) == 0
        fake.fake_set_current(-1)
""")

CASES = {
    "cuda.synchronize": """
        d = mv.zeros(8, device="cuda")
        queue_host_function()
        mv.cuda.synchronize()
    """,
    "pending work read back": """
        d = mv.zeros(8, device="cuda")
        queue_host_function()
        d.fill(2.0)                 # queued behind the host function on the legacy stream
        assert d.tolist() == [2.0] * 8
    """,
    "memview stream": """
        s = mv.cuda.Stream()
        d = mv.zeros(1 << 10, device="cuda")
        queue_host_function(s.handle)
        d.fill(3.0, stream=s)
        s.synchronize()
        assert d.tolist() == [3.0] * (1 << 10)
        s.close()
    """,
    "managed memory to NumPy": """
        m = mv.zeros(8, device="cuda_managed")
        queue_host_function()
        m.fill(4.0)
        assert np.asarray(m).tolist() == [4.0] * 8
    """,
}


@pytest.mark.parametrize("case", CASES)
def test_waiting_for_a_stream_with_a_python_host_function(case):
    code = PRELUDE + textwrap.dedent(CASES[case]) + "\nassert ran, 'the host function never ran'\nprint('ok')\n"
    try:
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                           env=os.environ)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{case}: deadlock (memview waited for the stream holding the GIL)")
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr[-3000:]
