"""Go memory to Python: memview views what gopy hands Python for a Go slice of
every element type, a *memview.Array and a memview.Exporter, without a copy
(tests/gopkg, built together with memview by python3 build.py test)."""
import numpy as np
import pytest

import memview as mv

if "gopkg" not in mv.go_packages():  # built in? (not just a directory of that name)
    pytest.skip("tests/gopkg is built in by the test build (python3 build.py test)", allow_module_level=True)
import gopkg  # noqa: E402
from memview._ext import go  # noqa: E402  (gopy's classes of Go slice types)

# (maker, increment, dtype) for every Go element type memview has.
KINDS = [("Bools", "IncBools", "bool"), ("Int8s", "IncInt8s", "int8"), ("Int16s", "IncInt16s", "int16"),
         ("Int32s", "IncInt32s", "int32"), ("Int64s", "IncInt64s", "int64"), ("Ints", "IncInts", "int64"),
         ("Uint8s", "IncUint8s", "uint8"), ("Uint16s", "IncUint16s", "uint16"),
         ("Uint32s", "IncUint32s", "uint32"), ("Uint64s", "IncUint64s", "uint64"),
         ("Uints", "IncUints", "uint64"), ("Float32s", "IncFloat32s", "float32"),
         ("Float64s", "IncFloat64s", "float64"), ("Complex64s", "IncComplex64s", "complex64"),
         ("Complex128s", "IncComplex128s", "complex128"), ("Bytes", "IncBytes", "uint8"),
         ("Runes", "IncRunes", "int32")]


def expected(dtype, n):
    if dtype == "bool":
        return [i % 2 == 1 for i in range(n)]
    if dtype.startswith("complex"):
        return [complex(i, 1) for i in range(n)]
    return list(range(n))


@pytest.mark.parametrize("maker,inc,dtype", KINDS)
def test_every_go_slice_type(maker, inc, dtype):
    s = getattr(gopkg, maker)(5)  # a gopy object: Go memory
    a = mv.asarray(s)
    assert a.dtype == dtype and a.shape == (5,) and not a.readonly
    assert a.tolist() == expected(dtype, 5)
    n = np.asarray(a)
    assert n.dtype == np.dtype(dtype) and n.ctypes.data == a.ptr  # NumPy sees Go's memory
    getattr(gopkg, inc)(s)  # Go writes through its own slice ...
    want = [not v for v in expected(dtype, 5)] if dtype == "bool" else [v + 1 for v in expected(dtype, 5)]
    assert n.tolist() == want  # ... and NumPy sees it, with no copy in between
    n[0] = n[1]  # NumPy writes; Go's slice has it
    assert mv.asarray(s)[0] == mv.asarray(s)[1]


def test_empty_and_named_slices():
    assert mv.asarray(gopkg.Float64s(0)).shape == (0,)
    samples = gopkg.NamedSamples(3)  # type Samples []float64
    assert mv.asarray(samples).tolist() == [0.0, 1.0, 2.0]


def test_go_owned_memview_array():
    pool = mv.default_pool()
    before = pool.bytes_allocated
    g = gopkg.Owned(4)  # *memview.Array that Go keeps
    a = mv.asarray(g)  # a new view, with a reference of its own
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0] and a.ptr == gopkg.Address(g)
    gopkg.DropOwned()  # Go releases its own array: Python's view still holds the memory
    del g
    np.asarray(a)[:] = 9
    assert a.tolist() == [9.0] * 4 and pool.bytes_allocated > before
    del a
    assert pool.bytes_allocated == before  # the last reference gave the memory back


def test_exporter_read_only_and_views():
    ro = gopkg.NewReadOnly(4)
    a = mv.asarray(ro)  # lent read-only: the Go side says so
    assert a.readonly and a.tolist() == [0, 1, 2, 3] and ro.Views() == 1
    with pytest.raises(ValueError, match="read-only"):
        np.asarray(a)[0] = 1
    with pytest.raises(BufferError):
        mv.from_go(ro, writable=True)
    assert ro.Views() == 1
    v = a[1:]
    del a
    assert ro.Views() == 1  # the view keeps the lent array
    del v
    assert ro.Views() == 0  # ReleaseView ran when the last view went


def test_what_has_no_memory():
    with pytest.raises(TypeError, match="no memory memview can view"):
        mv.asarray(gopkg.NewCount())
    with pytest.raises(TypeError, match="Go value bound by gopy"):
        mv.from_go(b"bytes")
    with pytest.raises(ValueError, match="handle"):
        mv.asarray(go.Slice_float64(handle=10**12))  # a handle gopy does not know
    with pytest.raises(TypeError):
        mv.from_go(gopkg.Float64s(1), writable=1)


def test_gopy_objects_still_pass_as_they_are():
    s = go.Slice_float64([1.0, 2.0, 3.0])  # gopy's own slice, built element by element
    assert gopkg.Len(s) == 3 and gopkg.Dot(s, s) == 14.0
    with pytest.raises(TypeError, match=r"a Go \[\]float64 is needed, not a gopy Slice_int64"):
        gopkg.Len(go.Slice_int64([1, 2, 3]))  # gopy would have crashed on the wrong type


def test_go_packages():
    pkgs = mv.go_packages()
    g = pkgs["gopkg"]
    assert g["path"] == "github.com/memview/memview/tests/gopkg"
    assert g["functions"] == g["bound"] + len(g["left_out"]) and g["fast"] <= g["bound"]
    assert "CountBoxes" not in g["left_out"]  # variadic: gopy's path
    assert "SumOf" in g["left_out"] and "generic" in g["left_out"]["SumOf"]
    import json
    import pathlib

    import gopkg
    on_disk = json.loads((pathlib.Path(mv.__file__).parent.parent / "gopkg" / "_memview_bindings.json").read_text())
    assert on_disk == g
    import memview._ext.gopkg as ext
    assert ext is gopkg  # one module, bound alike however it is imported
