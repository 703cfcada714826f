"""Buffers, pools and views across devices on a real GPU (CuPy as the consumer).

Skipped, with the reason, where there is no CUDA device or no CuPy; run by
`python3 build.py gpu-check`. Without a GPU, the same paths are checked against a
fake driver (tests/fake_cuda/check_memory_devices.py).
"""
import gc

import numpy as np
import pytest

import memview as mv

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not mv.cuda.is_available(),
                       reason="no CUDA device: memview.cuda.is_available() is False"),
]


@pytest.fixture
def cp():
    return pytest.importorskip("cupy", reason="cupy is not installed")


def test_pinned_memory_seen_from_the_device_without_a_copy(cp):
    b = mv.Buffer(8 * 16, pool=mv.Pool("cuda_host"))
    host = np.frombuffer(b, np.float64)
    host[:] = np.arange(16.0)
    d = b.view("cuda")  # the same bytes, addressed from the GPU
    assert d.address == b.address and d.device == "cuda:0"
    c = cp.asarray(d.view("float64"))
    assert c.data.ptr == b.address
    c *= 2  # the GPU writes pinned host memory in place
    cp.cuda.Device(0).synchronize()
    assert host.tolist() == [2.0 * i for i in range(16)]
    del c, host


def test_managed_memory_both_ways(cp):
    a = mv.arange(10.0, device="cuda_managed")
    v = a.view("cuda:0")
    c = cp.asarray(v)
    assert c.data.ptr == a.ptr
    c += 1
    cp.cuda.Device(0).synchronize()
    assert a.view("cpu").tolist() == [i + 1.0 for i in range(10)]
    del c


def test_copies_where_no_view_exists(cp):
    h = mv.Buffer(np.arange(8, dtype=np.int32))
    d = h.view_or_copy("cuda")
    assert d.device == "cuda:0" and d.address != h.address
    assert cp.asarray(d.view("int32")).tolist() == list(range(8))
    back = d.view_or_copy("cpu")
    assert bytes(back) == bytes(h)
    a = mv.arange(6.0)
    g = a.view_or_copy("cuda")
    assert cp.asarray(g).tolist() == a.tolist()


def test_device_pool_statistics_and_leak_origins(cp):
    p = mv.CheckedPool(mv.Pool("cuda"))
    a = mv.empty((4, 4), device="cuda", pool=p)
    assert p.device == "cuda:0" and p.bytes_allocated == 128 and p.num_live == 1
    assert "test_device_pool_statistics_and_leak_origins" in p.leaks()[0]
    del a
    gc.collect()
    p.assert_empty()


def test_builder_in_pinned_memory_for_the_gpu(cp):
    b = mv.Builder("float32", pool=mv.Pool("cuda_host"))
    b.extend(float(i) for i in range(1000))
    a = b.finish()
    assert a.device == "cuda_host"
    assert float(cp.asarray(a.view("cuda")).sum()) == sum(range(1000))
