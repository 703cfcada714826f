"""The GIL rule of the generated entries (gopyfast.keeps_gil, gopysig's
blocking.go): a call keeps the GIL only where nothing it reaches may block and
its buffers, which bound its work, total under 2 KiB; another thread still
runs while one loops over such calls."""
import os
import threading
import time
import zlib

import pytest

import memview as mv

if "gopkg" not in mv.go_packages():
    pytest.skip("tests/gopkg is built in by the test build (python3 build.py test)", allow_module_level=True)
if os.environ.get("MEMVIEW_GOPY_PATH") == "1":
    pytest.skip("MEMVIEW_GOPY_PATH=1: gopy's call path only", allow_module_level=True)
import gopkg  # noqa: E402
from memview._ext import _fast  # noqa: E402


def test_what_keeps_the_gil():
    assert _fast.GIL["gopkg.Checksum"] is None and _fast.GIL["gopkg.Len"] is None
    assert "sync.OnceFunc" in _fast.GIL["gopkg.CRC"]  # hash/crc32 sets up its tables once
    assert "time.Sleep" in _fast.GIL["gopkg.Sleep"]  # (and an int could drive its work)
    assert "channel operation or goroutine" in _fast.GIL["gopkg.SumParallel"]
    assert "no []T" in _fast.GIL["gopkg.EchoFloat64"]
    assert _fast.GIL["gopkg.Acc.Add"] == "a method"


def test_other_threads_run_meanwhile():
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=tick)
    t.start()
    data = bytes(range(256)) * 7  # 1792 bytes: under the threshold, the GIL kept
    end = time.perf_counter() + 0.3
    while time.perf_counter() < end:
        assert gopkg.Checksum(data) == sum(data)
    stop.set()
    t.join()
    gaps = [b - a for a, b in zip(ticks, ticks[1:])]
    assert len(ticks) > 20 and max(gaps) < 0.25  # the interpreter switched threads
    assert gopkg.CRC(data) == zlib.crc32(data)
