"""Creation of Go-owned arrays, their attributes, and bad arguments."""
import numpy as np
import pytest

import memview as mv


@pytest.mark.parametrize("dtype", mv.DTYPES)
def test_empty_attributes(dtype):
    a = mv.empty((2, 3, 4), dtype)
    nd = np.dtype(dtype)
    assert a.shape == (2, 3, 4) and a.ndim == 3 and a.size == 24
    assert a.dtype == dtype and a.itemsize == nd.itemsize and a.typestr == nd.str
    assert a.strides == (12 * nd.itemsize, 4 * nd.itemsize, nd.itemsize)
    assert a.nbytes == 24 * nd.itemsize
    assert a.c_contiguous and not a.f_contiguous and not a.readonly
    assert a.device == "cpu" and a.base is None and a.ptr % 64 == 0
    assert memoryview(a).format == a.format == np.asarray(a).__array_interface__["typestr"][1:] \
        or memoryview(a).format == a.format
    assert np.asarray(a).dtype == nd
    assert a.tolist() == np.zeros((2, 3, 4), dtype).tolist()  # zero-filled


def test_shapes_and_orders():
    f = mv.zeros((3, 4), "int16", order="F")
    assert f.strides == (2, 6) and f.f_contiguous and not f.c_contiguous
    assert mv.zeros(5).shape == (5,)
    assert mv.zeros([2, 2]).shape == (2, 2)
    z = mv.zeros(())
    assert z.shape == () and z.ndim == 0 and z.size == 1 and z.item() == 0.0
    e = mv.empty((7, 0, 7))
    assert e.size == 0 and e.nbytes == 0 and e.c_contiguous and e.f_contiguous
    assert np.asarray(e).shape == (7, 0, 7)
    o = mv.empty((1, 12, 1))
    assert o.c_contiguous and o.f_contiguous
    deep = mv.zeros((2,) * 4 + (1,) * 60, "uint8")  # PyBUF_MAX_NDIM dimensions
    assert deep.ndim == 64 and memoryview(deep).ndim == 64 and np.asarray(deep).ndim == 64
    assert mv.empty(3, np.float32).dtype == "float32"
    assert mv.empty(3, None).dtype == mv.zeros(3, dtype=None).dtype == "float64"  # NumPy's default
    assert mv.empty(3, float).dtype == "float64" and mv.empty(3, int).dtype == "int64"
    assert mv.empty(3, "f4").dtype == "float32" and mv.empty(3, "<i2").dtype == "int16"


def test_full_and_arange():
    assert mv.full((2, 2), 1.5).tolist() == [[1.5, 1.5], [1.5, 1.5]]
    assert mv.full(3, 7).dtype == "int64" and mv.full(3, True).dtype == "bool"
    assert mv.full(2, 1 + 2j).tolist() == [1 + 2j, 1 + 2j]
    assert mv.full(2, 0.5, "float16").tolist() == [0.5, 0.5]
    assert mv.arange(5).tolist() == [0, 1, 2, 3, 4]
    assert mv.arange(2, 10, 3).tolist() == [2, 5, 8]
    assert mv.arange(5, 0, -2).tolist() == [5, 3, 1]
    assert mv.arange(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert mv.arange(3, dtype="complex64").tolist() == [0j, 1 + 0j, 2 + 0j]
    assert mv.arange(0).shape == (0,) and mv.arange(5, 1).shape == (0,)
    for dtype in mv.DTYPES:
        want = np.arange(4).astype(dtype).tolist()
        assert mv.arange(4, dtype=dtype).tolist() == want, dtype


@pytest.mark.parametrize("args,exc", [
    (((2, 2), "float96"), TypeError),
    (((2, 2), "nonsense"), TypeError),
    (((2, 2), object()), TypeError),
    (((-1, 2),), ValueError),
    (((1 << 62, 1 << 62),), (ValueError, MemoryError)),
    (((1 << 40, 1 << 40, 1 << 40),), (ValueError, MemoryError)),
    (((1 << 70,),), ValueError),
    ((("a",),), TypeError),
    (((2.5,),), TypeError),
    (((True,),), TypeError),
    (((2,) * 65,), ValueError),
])
def test_bad_creation(args, exc):
    with pytest.raises(exc):
        mv.empty(*args)


def test_bad_keywords():
    with pytest.raises(ValueError):
        mv.empty(3, order="K")
    with pytest.raises(ValueError, match="device"):
        mv.empty(3, device="tpu")
    with pytest.raises(TypeError, match="device"):
        mv.empty(3, device=0)
    with pytest.raises(ValueError):
        mv.arange(0, 5, 0)
    with pytest.raises(OverflowError):
        mv.full(3, 300, "int8")
    with pytest.raises(ValueError):
        mv.full(3, float("nan"), "int32")
    with pytest.raises(ValueError, match="invalid literal"):  # a str is parsed, as NumPy does
        mv.full(3, "x", "int32")
    assert mv.full(2, "7", "int32").tolist() == [7, 7]
    with pytest.raises(TypeError):
        mv.full(3, None, "int32")
    with pytest.raises(ValueError, match="device"):
        mv.zeros(3).to("gpu")
    a = mv.zeros(3)
    assert a.to("cpu") is a


@pytest.mark.skipif(mv.cuda.is_available(), reason="covers machines without a CUDA driver")
@pytest.mark.parametrize("device", ["cuda", "cuda:1", "cuda_host", "cuda_managed"])
def test_cuda_allocation_without_driver_is_cuda_error(device):
    with pytest.raises(mv.cuda.CUDAError, match="no CUDA device|not found"):
        mv.empty(3, device=device)
    with pytest.raises(mv.cuda.CUDAError):
        mv.arange(3, device=device)
    with pytest.raises(mv.cuda.CUDAError):
        mv.zeros(3).to(device)
    assert issubclass(mv.cuda.CUDAError, RuntimeError)


def test_huge_allocation_is_memory_error():
    with pytest.raises(MemoryError):
        mv.empty((1 << 50,), "uint8")  # 1 PiB: refused cleanly, no crash
