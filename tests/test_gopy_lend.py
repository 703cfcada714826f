"""Python memory to Go: bound Go functions take NumPy arrays, memview arrays and
any buffer where Go takes []T or *memview.Array, and get that very memory; what
cannot be served exactly is refused, never copied (tests/gopkg)."""
import threading
import time

import numpy as np
import pytest

import memview as mv

if "gopkg" not in mv.go_packages():  # built in? (not just a directory of that name)
    pytest.skip("tests/gopkg is built in by the test build (python3 build.py test)", allow_module_level=True)
import gopkg  # noqa: E402

INCS = [("IncBools", "bool"), ("IncInt8s", "int8"), ("IncInt16s", "int16"), ("IncInt32s", "int32"),
        ("IncInt64s", "int64"), ("IncInts", "int64"), ("IncUint8s", "uint8"), ("IncUint16s", "uint16"),
        ("IncUint32s", "uint32"), ("IncUint64s", "uint64"), ("IncUints", "uint64"),
        ("IncFloat32s", "float32"), ("IncFloat64s", "float64"), ("IncComplex64s", "complex64"),
        ("IncComplex128s", "complex128"), ("IncBytes", "uint8"), ("IncRunes", "int32")]


@pytest.mark.parametrize("inc,dtype", INCS)
def test_numpy_array_where_go_takes_a_slice(inc, dtype):
    n = np.arange(6).astype(dtype).reshape(2, 3)  # contiguous: Go gets it flat, in C order
    before = n.copy()
    getattr(gopkg, inc)(n)
    want = ~before if dtype == "bool" else before + 1
    assert (n == want).all()
    m = mv.zeros(3, dtype)  # memview memory the same way
    getattr(gopkg, inc)(m)
    assert m.tolist() == ([True] * 3 if dtype == "bool" else [1] * 3)


def test_same_memory_no_copy():
    n = np.arange(4.0)
    assert gopkg.SliceAddress(n) == n.ctypes.data
    m = n.reshape(2, 2).T  # any strides for *memview.Array
    assert gopkg.Address(m) == m.ctypes.data
    assert gopkg.Describe(m) == "float64 [2 2] [8 16] readonly=false"
    r = n[::-1]
    assert gopkg.Address(r) == r.ctypes.data and gopkg.Describe(r) == "float64 [4] [-8] readonly=false"
    ro = np.arange(3.0)
    ro.flags.writeable = False
    assert gopkg.Describe(ro) == "float64 [3] [8] readonly=true"  # read-only respected
    with pytest.raises(ValueError, match="read-only"):
        gopkg.Fill(ro, 1.0)
    assert gopkg.Describe(bytearray(8)) == "uint8 [8] [1] readonly=false"
    assert gopkg.Describe(mv.arange(6, dtype="int16")[::2]) == "int16 [3] [4] readonly=false"


def test_ctypes_objects_reach_go_with_their_types_layout():
    import ctypes

    class Pair(ctypes.Structure):
        _fields_ = [("a", ctypes.c_int32), ("b", ctypes.c_double)]

    x = (Pair * 3)()  # ctypes' own format leaves the padding out
    assert gopkg.Address(x) == ctypes.addressof(x)
    assert gopkg.Describe(x) == "<T{i:a:4xd:b:} [3] [16] readonly=false"
    d = (ctypes.c_double * 3)(1.0, 2.0, 3.0)
    gopkg.IncFloat64s(d)
    assert list(d) == [2.0, 3.0, 4.0]
    with pytest.raises(TypeError, match="bitfield"):
        class Bits(ctypes.Structure):
            _fields_ = [("a", ctypes.c_uint32, 3)]
        gopkg.Describe((Bits * 2)())


def test_two_arguments_keywords_and_methods():
    x, y = np.arange(3.0), np.ones(3)
    assert gopkg.Dot(x, y) == 3.0
    assert gopkg.Dot(x=x, y=mv.full(3, 2.0)) == 6.0
    assert gopkg.Dot(x, y=y) == 3.0
    acc = gopkg.NewAcc()
    assert acc.Add(np.ones(4)) == 4.0
    acc.AddArray(np.full((2, 2), 0.5)[:, ::-1])
    assert acc.Total() == 6.0
    assert gopkg.Len(np.zeros(0)) == 0


def test_refusals_change_nothing():
    n = np.arange(4.0)
    with pytest.raises(TypeError, match="needs an array of float64, not float32"):
        gopkg.Dot(n, n.astype(np.float32))
    with pytest.raises(ValueError, match="contiguous"):
        gopkg.Dot(n[::2], n[::2])
    with pytest.raises(ValueError, match="contiguous"):
        gopkg.IncFloat64s(np.arange(6.0).reshape(2, 3).T)
    ro = np.arange(2.0)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        gopkg.IncFloat64s(ro)
    with pytest.raises(ValueError, match="read-only"):
        gopkg.IncBytes(b"abc")  # bytes are read-only; bytearray works
    for bad in ([1.0, 2.0], 3.5, "abc"):  # (None is a nil slice: test_gopy_results.py)
        with pytest.raises(TypeError):
            gopkg.Len(bad)
    with pytest.raises(TypeError, match=r"argument 'y'"):
        gopkg.Dot(n, "y")  # the first argument, already lent, is given back (fixture)
    assert n.tolist() == [0.0, 1.0, 2.0, 3.0] and ro.tolist() == [0.0, 1.0]


def test_go_releases_the_gil_with_memory_lent():
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    t = threading.Thread(target=tick)
    t.start()
    try:
        time.sleep(0.01)
        before = len(ticks)
        assert gopkg.Sleep(np.zeros(7), 200) == 7  # Go sleeps 200 ms with NumPy memory lent
        during = len(ticks) - before
    finally:
        stop.set()
        t.join()
    assert during > 20, f"the other thread ran {during} times while Go slept: the GIL was held"


@pytest.mark.skipif(mv.cuda.is_available(), reason="a made-up device pointer is only accepted without a CUDA driver")
def test_cuda_memory_reaches_go_as_an_array_never_as_a_slice():
    class Producer:  # a CAI producer of made-up device memory, never dereferenced
        def __init__(self):
            self.__cuda_array_interface__ = {"shape": (2, 3), "typestr": "<f8", "data": (0x7F00_0000_0000, False),
                                             "version": 3}

    assert gopkg.Describe(Producer()) == "float64 [2 3] [24 8] readonly=false"  # Go sees a device array
    with pytest.raises(ValueError, match="cannot view memory on cuda:0"):
        gopkg.Len(Producer())  # a Go slice cannot point at device memory
    with pytest.raises(ValueError, match="on cuda:0"):
        gopkg.Fill(Producer(), 1.0)  # and Go's View refuses to touch it
