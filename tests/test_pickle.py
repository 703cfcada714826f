"""Arrays that travel: pickle protocol 5 out of band (no copy with a
buffer_callback; rebuilt in place, read-only over read-only buffers), protocols
2–4 in band, copy and deepcopy, and worker processes."""
import copy
import gc
import multiprocessing
import pickle

import numpy as np
import pytest

import memview as mv

LAYOUTS = {"C": lambda a: a, "F": lambda a: a.T.copy("C").T, "strided": lambda a: a[::2, ::-3],
           "0-d": lambda a: a[1, 2, ...], "empty": lambda a: a[2:2]}
DTYPES = ["float64", "int8", "bool", "complex64", "float16", "T{<i:a:>d:b:}", ">i4", "(2)H", "3s"]


def sample(dtype):
    a = mv.zeros((6, 5), dtype=dtype)
    np.asarray(a).view("u1")[...] = np.arange(a.nbytes, dtype="u1").reshape(np.asarray(a).view("u1").shape) % 7
    return a


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip_in_band(protocol, layout, dtype):
    a = LAYOUTS[layout](sample(dtype))
    b = pickle.loads(pickle.dumps(a, protocol=protocol))
    assert isinstance(b, mv.Array) and b.shape == a.shape and b.dtype == a.dtype
    assert b.tobytes() == a.tobytes() and b.ptr != a.ptr and not b.readonly


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_protocol_5_out_of_band_without_a_copy(layout):
    a = LAYOUTS[layout](sample("float64"))
    buffers = []
    data = pickle.dumps(a, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) == 1 and len(data) < 200  # the elements are not in the pickle
    raw = buffers[0].raw()
    if a.c_contiguous or a.f_contiguous:
        assert raw.nbytes == a.nbytes and (a.size == 0 or np.frombuffer(raw, "u1").ctypes.data == a.ptr)
    b = pickle.loads(data, buffers=buffers)
    assert b.tobytes() == a.tobytes() and b.shape == a.shape and b.dtype == a.dtype
    if a.size and (a.c_contiguous or a.f_contiguous):
        assert b.ptr == a.ptr  # rebuilt over the same memory, in process
    del raw


def test_read_only_buffers_give_read_only_arrays():
    a = mv.arange(12.0).reshape(3, 4)
    buffers = []
    data = pickle.dumps(a, protocol=5, buffer_callback=buffers.append)
    frozen = [memoryview(bytes(b.raw())) for b in buffers]  # what a transport hands back (read-only)
    b = pickle.loads(data, buffers=frozen)
    assert b.readonly and b.tolist() == a.tolist() and b.ptr == np.frombuffer(frozen[0], "u1").ctypes.data
    with pytest.raises(ValueError, match="read-only"):
        b[0, 0] = 1
    c = b.copy()  # a writable copy when the caller asks for one
    c[0, 0] = 7
    assert c[0, 0] == 7 and b[0, 0] == 0
    w = pickle.loads(data, buffers=[bytearray(b.raw()) for b in buffers])  # writable memory: writable
    assert not w.readonly


def test_read_only_source_stays_read_only():
    r = mv.from_buffer(np.arange(4.0), writable=False)
    buffers = []
    b = pickle.loads(pickle.dumps(r, protocol=5, buffer_callback=buffers.append), buffers=buffers)
    assert b.readonly and b.tolist() == [0, 1, 2, 3]
    assert pickle.loads(pickle.dumps(r, protocol=4)).readonly is False  # an in-band copy is new memory


def test_misaligned_buffer_is_copied():
    a = mv.arange(4.0)
    buffers = []
    data = pickle.dumps(a, protocol=5, buffer_callback=buffers.append)
    raw = bytearray(b"\0" + bytes(buffers[0].raw()))
    shifted = memoryview(raw)[1:]  # data at an odd address
    b = pickle.loads(data, buffers=[shifted])
    assert b.tolist() == [0.0, 1.0, 2.0, 3.0] and b.ptr % 8 == 0


def test_wrong_buffer_size_is_refused():
    a = mv.arange(4.0)
    buffers = []
    data = pickle.dumps(a, protocol=5, buffer_callback=buffers.append)
    with pytest.raises(ValueError, match="bytes"):
        pickle.loads(data, buffers=[b"\0" * 8])


def test_released_arrays_do_not_pickle():
    a = mv.zeros(2)
    a.release()
    with pytest.raises(ValueError, match="released"):
        pickle.dumps(a, protocol=5)


def test_copy_and_deepcopy_are_independent_go_memory():
    a = mv.arange(6.0).reshape(2, 3)[:, ::-1]
    before = mv.default_pool().num_live
    for c in (copy.copy(a), copy.deepcopy(a), copy.deepcopy({"x": [a]})["x"][0]):
        assert c.tolist() == a.tolist() and c.ptr != a.ptr and c.base is None
        c[0, 0] = -1
        assert a[0, 0] == 2.0
    del c
    gc.collect()
    assert mv.default_pool().num_live == before


def _total(a):
    return float(np.asarray(a).sum()), mv.arange(3.0)


def test_worker_processes():
    ctx = multiprocessing.get_context("spawn")  # a fresh interpreter, as Dask and Ray use
    with ctx.Pool(1) as pool:
        total, back = pool.apply(_total, (mv.arange(10.0)[::2],))
    assert total == 20.0 and back.tolist() == [0.0, 1.0, 2.0]


def test_device_arrays_pickle_through_the_host():
    class FakeDevice:
        __cuda_array_interface__ = {"shape": (2,), "typestr": "<f8", "data": (0x7F0000000000, False), "version": 3}

    d = mv.from_cuda_array_interface(FakeDevice())
    if not mv.cuda.is_available():
        with pytest.raises(mv.cuda.CUDAError):
            pickle.dumps(d, protocol=5)  # the host copy needs a driver: a clear error, not garbage
