"""Real CUDA arrays (CuPy, Numba, PyTorch) through memview, on a machine with a GPU.

Skipped, with the reason, where there is no CUDA device or library. Run them all
there with `python3 build.py gpu-check` (see README).
"""
import gc

import pytest

import memview as mv

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not mv.cuda.is_available(),
                       reason="no CUDA device: memview.cuda.is_available() is False"),
]


def _need(name):
    return pytest.importorskip(name, reason=f"{name} is not installed")


def test_driver_sees_devices():
    assert mv.cuda.device_count() >= 1


def test_cupy_both_ways():
    cp = _need("cupy")
    c = cp.arange(12, dtype=cp.float32).reshape(3, 4)
    a = mv.from_cuda_array_interface(c)
    assert a.ptr == c.data.ptr and a.device == f"cuda:{c.device.id}"
    assert a.shape == (3, 4) and a.strides == (16, 4) and a.base is c
    d = cp.asarray(a)  # CuPy consumes memview's interface: the same memory
    assert d.data.ptr == c.data.ptr
    d[1, 2] = -1
    assert float(c[1, 2]) == -1.0
    c[0, 0] = 42
    assert float(d[0, 0]) == 42.0
    del a, d


def test_cupy_strided_views():
    cp = _need("cupy")
    c = cp.arange(24, dtype=cp.float64).reshape(4, 6)
    a = mv.from_cuda_array_interface(c)
    for key in [(slice(None, None, -1), slice(None, None, 2)), (slice(1, 3), 4), (Ellipsis, slice(5, 0, -2))]:
        want = c[key]
        got = cp.asarray(a[key])
        assert got.data.ptr == want.data.ptr and got.strides == want.strides
        assert bool((got == want).all())
    t = cp.asarray(a.T)
    assert t.strides == c.T.strides and bool((t == c.T).all())


def test_lifetime_producer_dropped():
    cp = _need("cupy")
    c = cp.arange(1000, dtype=cp.int32)
    a = mv.from_cuda_array_interface(c)[::10]
    del c
    gc.collect()
    d = cp.asarray(a)
    assert int(d[5]) == 50  # the memory is still CuPy's and still alive
    del a, d
    gc.collect()
    assert mv.live_handles() == 0


def test_readonly_respected():
    cp = _need("cupy")
    c = cp.zeros(4, dtype=cp.float32)

    class ReadOnly:
        __cuda_array_interface__ = dict(c.__cuda_array_interface__, data=(c.data.ptr, True))

    a = mv.from_cuda_array_interface(ReadOnly())
    assert a.readonly and a.__cuda_array_interface__["data"] == (c.data.ptr, True)
    with pytest.raises(ValueError):
        a[0] = 1.0


def test_stream_is_carried():
    cp = _need("cupy")
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        c = cp.full((1 << 20,), 3.0, dtype=cp.float32)
        produced = c.__cuda_array_interface__.get("stream")
        a = mv.from_cuda_array_interface(c)
    assert a.__cuda_array_interface__["stream"] == produced
    total = float(cp.asarray(a).sum())  # CuPy waits on the carried stream, not the device
    assert total == 3.0 * (1 << 20)


def test_numba_both_ways():
    numba_cuda = _need("numba.cuda")
    cp = _need("cupy")
    import numpy as np
    d = numba_cuda.to_device(np.arange(8, dtype=np.float64))
    a = mv.from_cuda_array_interface(d)
    assert a.ptr == d.__cuda_array_interface__["data"][0]
    n = numba_cuda.as_cuda_array(a)  # Numba consumes memview's interface
    c = cp.asarray(a)
    c *= 2
    assert list(n.copy_to_host()) == [2.0 * i for i in range(8)]


def test_torch_tensor_import():
    torch = _need("torch")
    cp = _need("cupy")
    t = torch.arange(6, dtype=torch.float32, device="cuda").reshape(2, 3)
    a = mv.from_cuda_array_interface(t)
    assert a.ptr == t.data_ptr() and a.shape == (2, 3)
    c = cp.asarray(a)
    c[1, 1] = -5
    assert float(t[1, 1]) == -5.0


def test_gpumemoryview_on_cupy():
    cp = _need("cupy")
    c = cp.arange(16, dtype=cp.uint8)
    g = mv.gpumemoryview(c)
    assert g.ptr == c.data.ptr and g.nbytes == 16
    for s in [slice(1, 3), slice(None, 2), slice(3, None), slice(2, 2), slice(0, 10000)]:
        want = c[s]
        got = cp.asarray(g.byte_slice(s))
        assert got.size == want.size and bool((got == want).all())
