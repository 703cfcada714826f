"""The interop matrix: for every consumer installed, a memview array handed over by
every route that consumer speaks, written on one side and read on the other (the
same memory, proven by address where the consumer shows one and by mutation), and
the reverse: memview wrapping the consumer's own arrays. A consumer that is not
installed is skipped with the reason; CI installs the CPU ones
(requirements-interop.txt), `python3 build.py gpu-check` runs the GPU ones.
docs/guide/interop.md shows the resulting table."""
import array
import ctypes
import gc
import struct

import numpy as np
import pytest

import memview as mv


def need(name):
    return pytest.importorskip(name, reason=f"{name} is not installed (see requirements-interop.txt)")


def address(buf):
    """The address of a writable buffer's first byte, as ctypes sees it."""
    return ctypes.addressof(ctypes.c_char.from_buffer(buf))


def on_gpu(fn):
    """A GPU consumer's test: marked gpu, skipped with the reason where there is no GPU."""
    fn = pytest.mark.skipif(not mv.cuda.is_available(),
                            reason="no CUDA device: memview.cuda.is_available() is False")(fn)
    return pytest.mark.gpu(fn)


# ---- the standard library


def test_memoryview_both_ways():
    a = mv.zeros(4)
    m = memoryview(a)
    assert address(m) == a.ptr
    m[1] = 2.5
    a[2] = 3.5
    assert a[1] == 2.5 and m[2] == 3.5
    del m
    b = bytearray(8)
    x = mv.asarray(memoryview(b))
    x[0] = 7
    assert b[0] == 7 and x.ptr == address(b)


def test_struct_writes_and_reads_in_place():
    a = mv.zeros(3)
    struct.pack_into("<d", a, 8, 2.5)
    a[2] = -1.0
    assert a[1] == 2.5 and struct.unpack_from("<d", a, 16) == (-1.0,)


def test_ctypes_both_ways():
    a = mv.zeros(4, dtype="int32")
    c = (ctypes.c_int32 * 4).from_buffer(a)
    assert ctypes.addressof(c) == a.ptr
    c[1] = 5
    a[3] = 9
    assert a[1] == 5 and c[3] == 9
    del c
    d = (ctypes.c_double * 3)(1, 2, 3)
    x = mv.asarray(d)
    x[0] = -1
    assert d[0] == -1 and x.ptr == ctypes.addressof(d) and x.dtype == "float64"


def test_array_module_into_memview():
    arr = array.array("i", [1, 2, 3])
    x = mv.asarray(arr)
    x[1] = 20
    assert arr[1] == 20 and x.ptr == arr.buffer_info()[0]


# ---- NumPy


NUMPY_EXPORT = {
    "buffer protocol": lambda a: np.asarray(a),
    "DLPack": lambda a: np.from_dlpack(a),
    "__array_interface__": lambda a: np.asarray(type("I", (), {"__array_interface__": a.__array_interface__})()),
    "__array__": lambda a: np.array(a, copy=False),
}


@pytest.mark.parametrize("route", list(NUMPY_EXPORT))
def test_numpy_from_memview(route):
    a = mv.arange(12.0).reshape(3, 4)[::-1, 1::2]
    n = NUMPY_EXPORT[route](a)
    assert n.ctypes.data == a.ptr and n.strides == a.strides
    n[0, 0] = -1
    a[1, 1] = -2
    assert a[0, 0] == -1 and n[1, 1] == -2


@pytest.mark.parametrize("route", ["buffer protocol", "DLPack"])
def test_numpy_into_memview(route):
    n = np.arange(12.0).reshape(3, 4).T
    x = mv.asarray(n) if route == "buffer protocol" else mv.from_dlpack(n)
    assert x.ptr == n.ctypes.data and x.strides == n.strides
    x[0, 0] = -1
    n[1, 1] = -2
    assert n[0, 0] == -1 and x[1, 1] == -2


def test_numpy_ufuncs_write_into_memview():
    a = mv.arange(4.0)
    np.multiply(a, 2, out=a)
    assert a.tolist() == [0, 2, 4, 6]


# ---- pyarrow


def test_pyarrow_from_memview():
    pa = need("pyarrow")
    a = mv.arange(5, dtype="int64")
    p = pa.array(a)  # Arrow PyCapsules
    assert p.buffers()[1].address == a.ptr
    a[0] = 42
    assert p[0].as_py() == 42
    t = pa.array(mv.arange(6.0).reshape(2, 3))  # N-d: arrow.fixed_shape_tensor
    assert t.type.shape == [3]
    b = pa.py_buffer(a)  # buffer protocol
    assert b.address == a.ptr and b.size == a.nbytes


def test_pyarrow_into_memview():
    pa = need("pyarrow")
    p = pa.array(np.arange(6, dtype="float32"))
    x = mv.from_arrow(p)
    assert x.ptr == p.buffers()[1].address and x.readonly and x.tolist() == [0, 1, 2, 3, 4, 5]
    buf = pa.allocate_buffer(16)
    y = mv.asarray(buf)
    assert y.ptr == buf.address


# ---- pandas


def test_pandas_from_memview():
    pd = need("pandas")
    a = mv.arange(5.0)
    s = pd.Series(a)
    assert s.to_numpy().ctypes.data == a.ptr
    a[1] = -1
    assert s[1] == -1
    d = mv.arange(6.0).reshape(3, 2)
    df = pd.DataFrame(d, copy=False)
    d[2, 1] = 99
    assert df.iloc[2, 1] == 99


# ---- Pillow


def test_pillow_from_memview():
    Image = need("PIL.Image")
    g = mv.arange(12, dtype="uint8").reshape(3, 4)
    im = Image.fromarray(g)  # __array_interface__, then the buffer protocol
    assert im.size == (4, 3) and im.mode == "L" and im.getpixel((1, 2)) == 9
    g[2, 1] = 200
    assert im.getpixel((1, 2)) == 200  # Pillow maps the memory; it does not copy
    rgb = Image.fromarray(mv.zeros((2, 2, 3), dtype="uint8"))
    assert rgb.mode == "RGB"


# ---- h5py


def test_h5py_reads_and_writes_memview_memory(tmp_path):
    h5py = need("h5py")
    a = mv.arange(12, dtype="int32").reshape(3, 4)
    with h5py.File(tmp_path / "x.h5", "w") as f:
        d = f.create_dataset("x", data=a)  # reads memview memory
        assert d[...].tolist() == a.tolist()
        b = mv.zeros((3, 4), dtype="int32")
        d.read_direct(np.asarray(b))  # HDF5 writes straight into memview memory
        assert b.tolist() == a.tolist()
        d[0, :] = mv.full(4, -1, dtype="int32")
        assert d[0].tolist() == [-1] * 4


# ---- JAX (CPU)


def test_jax_from_memview():
    jax = need("jax")
    import jax.numpy as jnp
    a = mv.arange(8, dtype="float32")
    j = jax.dlpack.from_dlpack(a)  # DLPack
    assert j.unsafe_buffer_pointer() == a.ptr
    a[0] = 42
    assert float(j[0]) == 42
    k = jnp.asarray(mv.arange(4, dtype="int32"))  # __jax_array__
    assert k.tolist() == [0, 1, 2, 3]


def test_jax_into_memview():
    need("jax")
    import jax.numpy as jnp
    j = jnp.arange(6.0, dtype=jnp.float32).reshape(2, 3)
    x = mv.from_dlpack(j)
    assert x.ptr == j.unsafe_buffer_pointer() and x.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert mv.asarray(j).ptr == x.ptr


# ---- Numba (CPU)


def test_numba_writes_memview_memory():
    numba = need("numba")

    @numba.njit
    def double(x):
        for i in range(len(x)):
            x[i] *= 2

    a = mv.arange(4.0)
    double(np.asarray(a))
    assert a.tolist() == [0, 2, 4, 6]
    double(a)  # Numba takes the buffer protocol directly
    assert a.tolist() == [0, 4, 8, 12]


# ---- GPU consumers (run by `python3 build.py gpu-check`)


@on_gpu
@pytest.mark.parametrize("route", ["CUDA Array Interface", "DLPack"])
def test_cupy_both_ways(route):
    cp = need("cupy")
    d = mv.arange(12, dtype="float32", device="cuda").reshape(3, 4)[:, ::2]
    c = cp.asarray(d) if route == "CUDA Array Interface" else cp.from_dlpack(d)
    assert c.data.ptr == d.ptr and c.strides == d.strides
    c[0, 0] = -1
    cp.cuda.runtime.deviceSynchronize()
    assert d[0, 0] == -1
    src = cp.arange(6, dtype=cp.float64)
    x = mv.from_cuda_array_interface(src) if route == "CUDA Array Interface" else mv.from_dlpack(src)
    assert x.ptr == src.data.ptr and x.tolist() == list(range(6))


@on_gpu
def test_torch_both_ways():
    torch = need("torch")
    d = mv.arange(6, dtype="float32", device="cuda")
    t = torch.from_dlpack(d)
    assert t.data_ptr() == d.ptr and t.is_cuda
    t[0] = -1
    torch.cuda.synchronize()
    assert d[0] == -1
    h = mv.arange(4, dtype="int64")
    assert torch.from_dlpack(h).data_ptr() == h.ptr  # CPU tensors too
    src = torch.arange(5, device="cuda", dtype=torch.float32)
    x = mv.from_dlpack(src)
    assert x.ptr == src.data_ptr() and x.tolist() == [0, 1, 2, 3, 4]
    y = mv.from_cuda_array_interface(src)
    assert y.ptr == src.data_ptr()


@on_gpu
def test_numba_cuda_both_ways():
    cuda = need("numba.cuda")
    d = mv.arange(4, dtype="float64", device="cuda")
    n = cuda.as_cuda_array(d)
    assert n.__cuda_array_interface__["data"][0] == d.ptr
    n[1:2].copy_to_device(np.array([-5.0]))
    cuda.synchronize()
    assert d[1] == -5
    src = cuda.to_device(np.arange(3.0))
    x = mv.from_cuda_array_interface(src)
    assert x.tolist() == [0, 1, 2]


@on_gpu
def test_jax_gpu_both_ways():
    jax = need("jax")
    if not any(dev.platform == "gpu" for dev in jax.devices()):
        pytest.skip("JAX sees no GPU (CPU-only jaxlib)")
    d = mv.arange(8, dtype="float32", device="cuda")
    j = jax.dlpack.from_dlpack(d)
    assert j.unsafe_buffer_pointer() == d.ptr
    import jax.numpy as jnp
    src = jax.device_put(jnp.arange(4, dtype=jnp.float32), jax.devices("gpu")[0])
    x = mv.from_dlpack(src)
    assert x.ptr == src.unsafe_buffer_pointer() and x.tolist() == [0, 1, 2, 3]
    gc.collect()
