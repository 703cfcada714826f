"""Buffers, pools and views across devices against the fake driver (run by
tests/test_fake_cuda_memory.py): pools of CUDA memory, pinned and managed memory
viewed from the host and from the device without a copy, and copies where a
view is impossible. As in check_fake_driver.py, "device memory" is host memory
here and the fake checks that memview calls the driver correctly."""
import ctypes
import gc
import os

import numpy as np
import pytest

import memview as mv

fake = ctypes.CDLL(os.environ["MEMVIEW_FAKE_CUDA"])
fake.fake_last_violation.restype = ctypes.c_char_p


@pytest.fixture(autouse=True)
def driver_used_correctly():
    yield
    gc.collect()
    assert fake.fake_violations() == 0, fake.fake_last_violation().decode()
    assert not fake.fake_context_leaked(), "memview left a context current on the calling thread"


def test_device_pools():
    p = mv.Pool("cuda")
    assert (p.device, p.backend_name) == ("cuda:0", "cuda")
    a = mv.empty((4, 4), device="cuda", pool=p)
    assert a.device == "cuda:0" and (p.bytes_allocated, p.num_live) == (128, 1)
    c = a.copy(pool=p)
    assert p.num_live == 2
    with pytest.raises(ValueError):
        mv.empty(3, pool=p)  # a CUDA pool for host memory
    with pytest.raises(ValueError):
        mv.empty(3, device="cuda", pool=mv.Pool("cuda_host"))
    del a, c
    gc.collect()
    assert p.num_live == 0
    assert mv.Pool("cuda_managed").device == "cuda_managed:0"
    assert mv.Pool("cuda_host").device == "cuda_host"


def test_pinned_buffer_views():
    b = mv.Buffer(64, pool=mv.Pool("cuda_host"))
    assert b.device == "cuda_host"
    memoryview(b)[:3] = b"abc"  # pinned memory is host memory
    d = b.view("cuda")
    assert (d.device, d.address, d.size, d.parent) == ("cuda:0", b.address, 64, b)
    with pytest.raises(BufferError):
        memoryview(d)  # seen as device memory: CUDA interfaces only
    h = b.view("cpu")
    assert h.device == "cpu" and bytes(h)[:3] == b"abc" and h.address == b.address
    assert b.view_or_copy("cuda:0").address == b.address  # a view, no copy
    arr = d.view("uint8", (64,))
    assert arr.device == "cuda:0" and arr.__cuda_array_interface__["data"][0] == b.address
    with pytest.raises(BufferError):
        b.view("cuda_managed")


def test_managed_buffer_views():
    b = mv.Buffer(32, pool=mv.Pool("cuda_managed"))
    assert b.view("cpu").address == b.address and b.view("cuda:0").address == b.address


def test_copies_where_no_view_exists():
    host = mv.Buffer(bytes(range(100)))
    with pytest.raises(BufferError):
        host.view("cuda")
    d = host.view_or_copy("cuda")
    assert d.device == "cuda:0" and d.address != host.address and d.parent is None
    with pytest.raises(BufferError):
        d.view("cpu")
    back = d.view_or_copy("cpu")
    assert back.device == "cpu" and bytes(back) == bytes(range(100))
    assert d.to_bytes() == bytes(range(100))
    p = mv.CheckedPool(mv.Pool("cuda"))
    d2 = host.view_or_copy("cuda", pool=p)
    assert p.num_live == 1 and "view_or_copy" in p.leaks()[0]
    del d2
    gc.collect()
    p.assert_empty()


def test_array_views_and_copies():
    pinned = mv.arange(6.0, device="cuda_host")
    v = pinned.view("cuda")
    assert v.device == "cuda:0" and v.ptr == pinned.ptr and v.base is pinned
    assert v.__cuda_array_interface__["data"][0] == pinned.ptr
    assert pinned.view_or_copy("cuda").ptr == pinned.ptr
    host = mv.arange(6.0)
    with pytest.raises(BufferError):
        host.view("cuda")
    c = host.view_or_copy("cuda")
    assert c.device == "cuda:0" and c.ptr != host.ptr and c.tolist() == host.tolist()
    dev = mv.arange(4.0, device="cuda")
    with pytest.raises(BufferError):
        dev.view("cpu")
    assert np.array_equal(np.asarray(dev.view_or_copy("cpu")), np.arange(4.0))


def test_what_device_memory_cannot_do():
    p = mv.Pool("cuda")
    with pytest.raises(ValueError):
        mv.Buffer(8, pool=p, resizable=True)
    with pytest.raises(ValueError):
        mv.Buffer(b"abc", pool=p)  # the CPU cannot write device memory
    with pytest.raises(ValueError):
        mv.Builder("float64", pool=p)
    b = mv.Buffer(8, pool=p)
    with pytest.raises(BufferError):
        memoryview(b)
    pinned = mv.Builder("int32", pool=mv.Pool("cuda_host"))  # pinned memory is fine
    pinned.extend(range(5))
    a = pinned.finish()
    assert a.device == "cuda_host" and a.tolist() == [0, 1, 2, 3, 4]
