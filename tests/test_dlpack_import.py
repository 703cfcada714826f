"""mv.from_dlpack of host tensors, made in C without Go (pyext/proto_dlpack_import.c):
the tensor's deleter runs exactly once in whatever order the array, its views,
release(), exports and Go let go of the memory; the base is the producer; the
layout (strides, byte_offset, 0-d, empty) and the read-only flag are the
tensor's; Go code handed such an array works on the producer's memory; and bad
tensors are refused as on the Go path, the capsule left unconsumed."""
import gc
import pickle

import numpy as np
import pytest

import memview as mv
from _dlpack_ctypes import (BOOL, CAPSULE_NAME, COMPLEX, FLOAT, INT, READ_ONLY, UINT, Producer)

needs_sigproc = pytest.mark.skipif("sigproc" not in mv.go_packages(),
                                   reason="examples/sigproc is built in by python3 build.py test")


def floats(n=6):
    return bytearray(np.arange(float(n)).tobytes())


def address(buf):
    return np.frombuffer(buf, np.uint8).ctypes.data


def collect():
    gc.collect()
    gc.collect()


def test_no_go_handle_is_made():
    x = np.arange(6.0)
    before = mv.live_handles()
    a = mv.from_dlpack(x)
    v = a[::-2]
    assert mv.live_handles() == before  # neither the import nor its C-level view made a Go array
    assert a.ptr == x.ctypes.data and v.tolist() == [5.0, 3.0, 1.0]


# Each order takes keep = {"a": the array} and returns the steps that let go of
# everything in keep, one by one; nothing but keep holds the arrays.
def _views_first(keep):
    keep["v"] = keep["a"][::-1]
    return [lambda: keep.pop("a"), lambda: keep.pop("v")]


def _array_first(keep):
    keep["v"] = keep["a"][1:]
    return [lambda: keep.pop("v"), lambda: keep.pop("a")]


def _release(keep):
    return [lambda: keep.pop("a").release()]


def _release_with_view(keep):
    keep["v"] = keep["a"][::2]

    def check_and_drop():
        assert keep.pop("v").tolist() == [0.0, 2.0, 4.0]  # the view still reads the producer's memory
    return [lambda: keep["a"].release(), lambda: keep.pop("a"), check_and_drop]


def _memoryview(keep):
    keep["m"] = memoryview(keep["a"])
    return [lambda: keep.pop("a"), lambda: keep.pop("m").release()]


def _numpy_dlpack(keep):
    keep["n"] = np.from_dlpack(keep["a"])
    return [lambda: keep.pop("a"), lambda: keep.pop("n")]


def _view_of_view(keep):
    keep["w"] = keep["a"][1:][::-1][1:]
    return [lambda: keep.pop("a"), lambda: keep.pop("w")]


ORDERS = {"view, then array": _views_first, "array, then view": _array_first, "release()": _release,
          "release() with a view alive": _release_with_view, "memoryview": _memoryview,
          "np.from_dlpack": _numpy_dlpack, "view of a view": _view_of_view}


@pytest.mark.parametrize("order", list(ORDERS))
@pytest.mark.parametrize("versioned", [True, False])
def test_deleter_runs_once_in_every_order(order, versioned):
    p = Producer(floats(), (6,), (1,), FLOAT, 64, versioned_=versioned)
    keep = {"a": mv.from_dlpack(p)}
    assert keep["a"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] and keep["a"].base is p
    steps = ORDERS[order](keep)
    for i, step in enumerate(steps):
        collect()
        assert p.deleted == 0, f"the deleter ran before step {i} ({order})"
        step()
    assert not keep
    collect()
    assert p.deleted == 1
    collect()
    assert p.deleted == 1


def test_release_runs_the_deleter_at_once():
    p = Producer(floats(), (6,), (1,), FLOAT, 64)
    a = mv.from_dlpack(p)
    a.release()
    assert p.deleted == 1 and a.released  # as on the Go path: the memory goes with release()
    a.release()
    del a
    collect()
    assert p.deleted == 1


def test_views_keep_the_tensor_after_release():
    # the keeper is the owner the array and its C-level views share: the
    # deleter waits for the last of them, and Go gets the memory from the keeper
    p = Producer(floats(), (6,), (1,), FLOAT, 64)
    a = mv.from_dlpack(p)
    v = a[1::2]
    w = v[::-1]
    a.release()
    assert a.released and not v.released and p.deleted == 0
    n = np.from_dlpack(w)  # a DLPack export hands Go the view of a released import
    assert n.tolist() == [5.0, 3.0, 1.0]
    del n
    v.release()
    collect()
    assert p.deleted == 0  # w still uses it
    w[0] = 9.5
    assert w.tolist() == [9.5, 3.0, 1.0]
    del w
    collect()
    assert p.deleted == 1


@needs_sigproc
def test_go_code_handed_the_array():
    import sigproc
    x = np.arange(8.0)
    a = mv.from_dlpack(x)
    assert sigproc.Sum(a) == 28.0  # a []float64 over the producer's memory
    sigproc.Scale(a[::-2], 10)  # a *memview.Array of a strided C-level view
    assert x.tolist() == [0, 10, 2, 30, 4, 50, 6, 70]
    assert sigproc.Mean(a[::-1]) == sum(x) / 8


@needs_sigproc
@pytest.mark.parametrize("release", [False, True])
def test_deleter_waits_for_go(release):
    import sigproc
    buf = floats(3)
    p = Producer(buf, (3,), (1,), FLOAT, 64)
    a = mv.from_dlpack(p)
    assert sigproc.Sum(a) == 3.0
    sigproc.Tap(a)  # Go keeps its own reference to the memory
    if release:
        a.release()
    del a
    collect()
    assert p.deleted == 0
    sigproc.Emit(7.5)  # Go writes into the producer's memory
    assert np.frombuffer(buf)[0] == 7.5 and sigproc.Tapped() == 7.5
    sigproc.Untap()
    collect()
    assert p.deleted == 1


@needs_sigproc
def test_deleter_after_go_had_a_view():
    import sigproc
    p = Producer(floats(), (6,), (1,), FLOAT, 64)
    a = mv.from_dlpack(p)
    v = a[::2]
    assert sigproc.Mean(v) == 2.0
    del a
    collect()
    assert p.deleted == 0 and v.tolist() == [0.0, 2.0, 4.0]
    del v
    collect()
    assert p.deleted == 1


def test_base_is_the_producer():
    x = np.arange(12).reshape(3, 4)
    a = mv.from_dlpack(x)
    assert a.base is x and a[1:, ::-1].base is x and a.T.base is x
    p = Producer(floats(), (2, 3), (3, 1), FLOAT, 64)
    b = mv.from_dlpack(p)
    assert b.base is p and b[1].base is p
    q = Producer(floats(), (6,), (1,), FLOAT, 64)
    c = mv.from_dlpack(q.capsule)
    assert c.base is None and c[::2].base is c  # as for any array without a base
    del a, b, c
    collect()
    assert p.deleted == q.deleted == 1


def test_read_only_tensor_refuses_writes():
    buf = floats()
    p = Producer(buf, (6,), (1,), FLOAT, 64, flags=READ_ONLY)
    a = mv.from_dlpack(p)
    assert a.readonly and a[::2].readonly and memoryview(a).readonly
    assert not np.asarray(a).flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        a[0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        a.fill(1.0)
    with pytest.raises(BufferError):
        mv.from_buffer(a, writable=True)
    with pytest.raises(BufferError, match="read-only"):
        a.__dlpack__()  # the legacy form cannot say read-only
    if "sigproc" in mv.go_packages():
        import sigproc
        with pytest.raises(ValueError, match="read-only"):
            sigproc.Scale(a, 2)
    assert np.frombuffer(buf).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    del a
    collect()
    assert p.deleted == 1


def test_byte_offset_and_negative_strides():
    buf = bytearray(np.arange(10, dtype="<i4").tobytes())
    p = Producer(buf, (3,), (-2,), INT, 32, byte_offset=4 * 8)  # elements 8, 6, 4
    a = mv.from_dlpack(p)
    assert a.tolist() == [8, 6, 4] and a.strides == (-8,) and a.ptr == address(buf) + 32
    assert np.asarray(a).tolist() == [8, 6, 4] and a[::-1].tolist() == [4, 6, 8]
    a[1] = -6
    assert np.frombuffer(buf, "<i4")[6] == -6
    del a
    collect()
    assert p.deleted == 1


def test_column_major_and_strided_2d():
    buf = bytearray(np.arange(24, dtype="<u2").tobytes())
    p = Producer(buf, (3, 4), (1, 3), UINT, 16)  # Fortran order
    a = mv.from_dlpack(p)
    want = np.frombuffer(buf, "<u2")[:12].reshape(4, 3).T
    assert a.strides == (2, 6) and a.f_contiguous and not a.c_contiguous and a.tolist() == want.tolist()
    q = Producer(buf, (2, 3), (12, -2), UINT, 16, byte_offset=2 * 5)
    b = mv.from_dlpack(q)
    assert b.strides == (24, -4) and b.tolist() == [[5, 3, 1], [17, 15, 13]]
    del a, b
    collect()
    assert p.deleted == q.deleted == 1


def test_zero_d_and_empty():
    buf = bytearray(np.array([2.5, 7.0]).tobytes())
    p = Producer(buf, (), None, FLOAT, 64, byte_offset=8)
    a = mv.from_dlpack(p)
    assert a.shape == () and a.ndim == 0 and a.tolist() == 7.0 and a.ptr == address(buf) + 8
    e = Producer(buf, (0, 3), (3, 1), FLOAT, 64)
    b = mv.from_dlpack(e)
    assert b.shape == (0, 3) and b.size == 0 and b.tolist() == [] and memoryview(b).nbytes == 0
    n = Producer(None, (0,), (1,), FLOAT, 64)  # no data at all: allowed for size 0
    c = mv.from_dlpack(n)
    assert c.shape == (0,) and c.tolist() == []
    del a, b, c
    collect()
    assert p.deleted == e.deleted == n.deleted == 1


@pytest.mark.parametrize("code, bits, dtype", [
    (BOOL, 8, "bool"), (INT, 8, "int8"), (INT, 16, "int16"), (INT, 32, "int32"), (INT, 64, "int64"),
    (UINT, 8, "uint8"), (UINT, 16, "uint16"), (UINT, 32, "uint32"), (UINT, 64, "uint64"),
    (FLOAT, 16, "float16"), (FLOAT, 32, "float32"), (FLOAT, 64, "float64"),
    (COMPLEX, 64, "complex64"), (COMPLEX, 128, "complex128")])
def test_every_dtype_as_from_buffer_gives_it(code, bits, dtype):
    x = (np.arange(4) % 2).astype(dtype)
    buf = bytearray(x.tobytes())
    p = Producer(buf, (4,), (1,), code, bits)
    a = mv.from_dlpack(p)
    b = mv.from_buffer(x)
    assert (a.dtype, a.format, a.typestr, a.itemsize) == (b.dtype, b.format, b.typestr, b.itemsize) == (
        dtype, memoryview(x).format, x.dtype.str, x.itemsize)
    assert a.tolist() == x.tolist() and memoryview(a).format == memoryview(x).format
    del a
    collect()
    assert p.deleted == 1


def test_capsule_given_directly():
    buf = floats(4)
    p = Producer(buf, (2, 2), (2, 1), FLOAT, 64, versioned_=False)
    a = mv.from_dlpack(p.capsule)
    assert a.tolist() == [[0.0, 1.0], [2.0, 3.0]] and CAPSULE_NAME(p.capsule) == b"used_dltensor"
    with pytest.raises(BufferError, match="once"):
        mv.from_dlpack(p.capsule)
    v = a[1]
    del a
    collect()
    assert p.deleted == 0
    del v
    collect()
    assert p.deleted == 1


def test_arrays_made_so_travel():
    x = np.arange(6.0).reshape(2, 3)
    a = mv.from_dlpack(x)
    for protocol in (2, 5):
        b = pickle.loads(pickle.dumps(a[:, ::-1], protocol=protocol))
        assert b.tolist() == x[:, ::-1].tolist()
    c = a.copy()
    assert c.base is None and c.tolist() == x.tolist()
    assert mv.from_dlpack(a).base is a and np.from_dlpack(a).ctypes.data == x.ctypes.data


@pytest.mark.parametrize("shape, strides, kwargs, exc, match", [
    ((4,), (1,), {"byte_offset": 2}, ValueError, "aligned"),
    ((-1,), (1,), {}, BufferError, "negative extent"),
    ((2,), (2 ** 62,), {}, BufferError, "out of range"),
])
def test_bad_tensors_refused_and_not_consumed(shape, strides, kwargs, exc, match):
    p = Producer(bytearray(64), shape, strides, INT, 32, **kwargs)
    with pytest.raises(exc, match=match):
        mv.from_dlpack(p)
    assert p.deleted == 0 and CAPSULE_NAME(p.capsule) == b"dltensor_versioned"  # still the producer's


def test_null_data_for_items_refused():
    p = Producer(None, (2,), (1,), FLOAT, 64)
    with pytest.raises(ValueError, match="null data"):
        mv.from_dlpack(p)
    assert p.deleted == 0


def test_errors_of_the_producer_pass_through():
    class Raises:
        def __dlpack__(self, **kwargs):
            raise AttributeError("inside __dlpack__")

    with pytest.raises(AttributeError, match="inside"):
        mv.from_dlpack(Raises())

    class Plain:
        pass

    with pytest.raises(TypeError, match="'Plain' object has no __dlpack__"):
        mv.from_dlpack(Plain())


@pytest.mark.parametrize("vectorcall", [True, False], ids=["vectorcall", "bound-method"])
def test_both_ways_of_asking_the_producer(vectorcall):
    """from_dlpack asks with PyObject_VectorcallMethod where the interpreter has it, and
    through a bound method and a keyword dict where it does not: the same results."""
    from memview import _core
    if not hasattr(_core, "_selftest_dlpack_vectorcall"):
        pytest.skip("needs the test build (build.py test): _selftest_dlpack_vectorcall")
    try:
        assert _core._selftest_dlpack_vectorcall(vectorcall) == vectorcall
        x = np.arange(6.0).reshape(2, 3)
        a = mv.from_dlpack(x)
        assert a.base is x and a.tolist() == x.tolist()

        class Legacy:  # a producer older than DLPack 1.0: no max_version
            def __dlpack__(self, stream=None):
                return x.__dlpack__()

        assert mv.from_dlpack(Legacy()).tolist() == x.tolist()

        class Raises:
            def __dlpack__(self, **kwargs):
                raise AttributeError("inside __dlpack__")

        with pytest.raises(AttributeError, match="inside"):
            mv.from_dlpack(Raises())
        with pytest.raises(TypeError, match="'object' object has no __dlpack__"):
            mv.from_dlpack(object())
        del a
    finally:
        _core._selftest_dlpack_vectorcall(True)
