"""The fake libcuda.so.1 (fake_cuda.c) seen from the check files: its ctypes
handle, the fixture that asserts memview used it correctly, a CAI consumer that
honours the stream it is given, and a CuPy stand-in producer."""
import ctypes
import gc
import math
import os

import numpy as np
import pytest

fake = ctypes.CDLL(os.environ["MEMVIEW_FAKE_CUDA"])
fake.fake_last_violation.restype = ctypes.c_char_p
fake.fake_foreign_alloc.restype = ctypes.c_void_p
fake.fake_foreign_alloc.argtypes = [ctypes.c_size_t]
fake.fake_foreign_alloc_on.restype = ctypes.c_void_p
fake.fake_foreign_alloc_on.argtypes = [ctypes.c_int, ctypes.c_size_t]
fake.fake_foreign_free.argtypes = [ctypes.c_void_p]
fake.fake_sync_stream.argtypes = [ctypes.c_size_t, ctypes.c_int]
fake.cuMemsetD8Async.argtypes = [ctypes.c_ulonglong, ctypes.c_ubyte, ctypes.c_size_t, ctypes.c_void_p]
for name in ("fake_calls", "fake_transfers", "fake_launches", "fake_copies2d", "fake_queued"):
    getattr(fake, name).restype = ctypes.c_long


@pytest.fixture(autouse=True)
def driver_used_correctly():
    yield
    gc.collect()
    found, last = fake.fake_violations(), fake.fake_last_violation().decode()
    fake.fake_reset_violations()  # one test's misuse must not fail the next
    leaked = fake.fake_context_leaked()
    fake.fake_set_current(-1)
    assert found == 0, last
    assert not leaked, "memview left a context current on the calling thread"


def produce(stream, ptr, byte, n):
    """The producer's own work on its stream: n bytes at ptr set to byte, queued
    (the fake runs it when something waits for it)."""
    fake.fake_set_current(0)
    try:
        assert fake.cuMemsetD8Async(ptr, byte, n, stream) == 0
    finally:
        fake.fake_set_current(-1)


def consume(obj):
    """What a CUDA Array Interface consumer sees: it waits for the stream the
    interface names (as CuPy and Numba do), or for nothing when it is None, then
    reads the memory - here host memory standing in for the device's."""
    cai = obj.__cuda_array_interface__
    device = int(obj.device.split(":")[1]) if hasattr(obj, "device") else 0
    if cai["stream"] is not None:
        rc = fake.fake_sync_stream(cai["stream"], device)
        assert rc == 0, f"the interface names stream {cai['stream']:#x}, which is not a live stream"
    dt = np.dtype(cai["typestr"])
    shape = tuple(cai["shape"])
    strides = cai["strides"]
    if strides is None:
        strides, step = [], dt.itemsize
        for n in reversed(shape):
            strides.insert(0, step)
            step *= n
    if math.prod(shape) == 0:
        return np.zeros(shape, dt)
    lo = sum(min(0, (n - 1) * s) for n, s in zip(shape, strides))
    hi = sum(max(0, (n - 1) * s) for n, s in zip(shape, strides)) + dt.itemsize
    raw = (ctypes.c_char * (hi - lo)).from_address(cai["data"][0] + lo)
    return np.ndarray(shape, dt, buffer=raw, offset=-lo, strides=tuple(strides)).copy()


class Producer:
    """A CuPy stand-in: foreign "device" memory with a stream in its interface."""

    def __init__(self, n, stream, typestr="<f8", device=0, offset=0):
        itemsize = np.dtype(typestr).itemsize
        self.base = fake.fake_foreign_alloc_on(device, itemsize * n + offset + 8)
        self.ptr = self.base + offset
        self.__cuda_array_interface__ = {"shape": (n,), "typestr": typestr, "data": (self.ptr, False),
                                         "version": 3, "stream": stream}

    def __del__(self):
        fake.fake_foreign_free(self.base)
