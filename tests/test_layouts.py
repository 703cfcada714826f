"""Item layouts: every format memview accepts is fully usable (made, read,
written back, copied, described), spellings of one layout are one dtype, and
item descriptors never reinterpret a format silently."""
import json
import pathlib
import struct

import numpy as np
import pytest

import memview as mv

GOLDEN = json.loads((pathlib.Path(__file__).parent.parent / "memview" / "testdata" / "formats.json").read_text())
STRUCT_FORMATS = sorted({c["format"] for c in GOLDEN["struct"]})
RECORD_FORMATS = sorted({c["format"] for c in GOLDEN["records"]})


def _struct_size(fmt):
    try:
        return struct.calcsize(fmt)
    except struct.error:
        return None


#: formats struct reads, with items of at least one byte
STRUCT_OK = [f for f in STRUCT_FORMATS if _struct_size(f)]
AMBIGUOUS = {p + c for p in "<>=!" for c in "lL"}

# formats a new user tried that were accepted, then broke
ONCE_BROKEN = ["x:a:i", "i0pi", "Ze", "c", "1d", "e=", "d ", ">L ", "(2,3)f", "3c", "(2)c", "0p:z:b",
               "T{(2)T{i:a:}:r:}", "p", "255p", "300p", "x:v:", "(2)3x:v:", ">Ze", "T{Ze:z:}", "?", "P", "n"]


def _usable(fmt):
    """Make an array of fmt and use it every way; nothing may fail."""
    try:
        a = mv.zeros(2, fmt)
    except TypeError:
        return None  # refused at creation: fine (a format memview does not take)
    with a:
        assert a.itemsize == mv.item_desc(fmt)["size"] == mv.item_desc(a)["size"]
        values = a.tolist()
        a[:] = values  # what tolist gives can be written back
        a[0] = a[1]
        a[1] = values[0]
        assert a.tolist() == values
        a.fill(values[0])
        with a.copy() as c, a[::-1] as r:
            assert c.tolist() == values and r.tolist() == values[::-1]
            c[...] = r
        b = mv.zeros(2, a.dtype)  # the dtype's name makes the same layout
        with b:
            b[:] = a
            assert b.tolist() == values and b.dtype == a.dtype and b.itemsize == a.itemsize
        assert repr(a)
        with memoryview(a) as m, mv.zeros(1, m.format) as again:
            assert again.dtype == a.dtype and m.itemsize == a.itemsize  # the export describes the layout
    return True


@pytest.mark.parametrize("fmt", ONCE_BROKEN)
def test_once_broken_formats_are_usable(fmt):
    assert _usable(fmt)


def test_every_golden_format_is_usable_or_refused_at_creation():
    made = 0
    for fmt in STRUCT_FORMATS + RECORD_FORMATS:
        if _usable(fmt):
            made += 1
        elif fmt in STRUCT_FORMATS:  # refused: struct refuses it too, its items have no bytes, or
            assert not _struct_size(fmt) or fmt in AMBIGUOUS, fmt  # NumPy and struct read it differently
    assert made > 1100


def test_item_desc_size_is_struct_calcsize():
    for fmt in STRUCT_OK + ["p", "5p", "P", "n", "N", "c", "3c", "?", "x", "3x", "<l", "!L", "=l"]:
        assert mv.item_desc(fmt)["size"] == struct.calcsize(fmt), fmt


def test_pascal_strings_read_and_write_as_struct():
    a = mv.zeros(3, "4p")
    a[0] = b"ab"
    a[1] = b"abcdef"  # truncated to 3 bytes, as struct does
    assert a.tolist() == [b"ab", b"abc", b""]
    assert bytes(memoryview(a))[:8] == struct.pack("4p4p", b"ab", b"abcdef")
    z = mv.zeros(2, "i0pi")
    z[0] = (1, b"ignored", 2)
    assert z.tolist() == [(1, b"", 2), (0, b"", 0)]


def test_void_fields_are_bytes():
    a = mv.zeros(2, "x:a:i")
    a[0] = (b"\x07", 5)
    assert a.tolist() == [(b"\x07", 5), (b"\x00", 0)]
    with pytest.raises(ValueError, match="void field"):
        a[1] = (b"toolong", 1)
    assert a.tolist() == [(b"\x07", 5), (b"\x00", 0)]


def test_complex32():
    a = mv.full(3, 1.5 - 2j, "Ze")
    assert a.dtype == "<c4" and a.tolist() == [1.5 - 2j] * 3
    b = mv.zeros(3, "<c4")
    b[:] = a
    assert b.tolist() == a.tolist() and mv.zeros(1, ">c4").format == ">Ze"


@pytest.mark.parametrize("spellings, name", [
    (["float64", "d", "1d", "d ", "<d", "=d", "@d", "<f8", "f8", "double"], "float64"),
    (["float16", "e", "e=", "<e"], "float16"),
    ([">u4", ">L ", ">I", "!I", "!L "], ">u4"),
    (["|S1", "S1", "c", "1s", "s"], "|S1"),
    (["|S3", "3s", "3c"], "|S3"),
    (["int64", "q", "l", "n", "<q", "=q"], "int64"),
    (["uint64", "Q", "L", "N", "P"], "uint64"),
    (["int32", "i", "<l ", "=l "], "int32"),
    (["T{<i:a:<d:b:}", "<i:a:<d:b:", "T{i:a:=d:b:}"], "<T{i:a:d:b:}"),
    (["(3)d", "3d"], "<(3)d"),
])
def test_spellings_of_one_layout_are_one_dtype(spellings, name):
    arrays = [mv.zeros(2, s) for s in spellings]
    try:
        assert {a.dtype for a in arrays} == {name}
        first = arrays[0]
        first.fill(first.tolist()[0])
        for a in arrays[1:]:
            a[:] = first  # copies between spellings: the same item type
            first[...] = a
            assert a.tolist() == first.tolist()
    finally:
        for a in arrays:
            a.release()


def test_different_layouts_are_not_one_dtype():
    for x, y in [("d", ">d"), ("d", "T{d}"), ("2i", "ii"), ("3s", "3p"), ("T{i:a:}", "T{i:b:}"), ("Zf", "2f")]:
        a, b = mv.zeros(2, x), mv.zeros(2, y)
        assert a.dtype != b.dtype
        a.release()
        b.release()


def test_issue_assignments():
    c = mv.zeros(3, "c")
    c[:] = [b"a", b"b", b"c"]
    assert c.tolist() == [b"a", b"b", b"c"]
    for fmt in ("1d", "e=", "d "):
        a = mv.zeros(3, fmt)
        a[:] = [1.0, 2.0, 3.0]
        assert a.tolist() == [1.0, 2.0, 3.0]
    u = mv.zeros(3, ">L ")
    u[:] = [1, 2, 3]
    assert np.asarray(u).tolist() == [1, 2, 3] and np.asarray(u).dtype == np.dtype(">u4")
    s = mv.zeros(2, "(2,3)f")
    s[0] = [[1, 2, 3], [4, 5, 6]]
    s[1] = 7  # a scalar broadcasts into the sub-array, as in NumPy
    assert s.tolist() == [[[1, 2, 3], [4, 5, 6]], [[7] * 3] * 2]
    s[:] = s.tolist()[::-1]
    assert s.tolist() == [[[7] * 3] * 2, [[1, 2, 3], [4, 5, 6]]]
    s[:] = [[1, 2, 3]]  # broadcast into every element
    assert s.tolist() == [[[1, 2, 3]] * 2] * 2
    n = np.zeros(2, [("m", "<f4", (2, 3))])
    v = mv.from_buffer(n)
    v[1] = ([[1, 2, 3], [4, 5, 6]],)
    assert n["m"][1].tolist() == [[1, 2, 3], [4, 5, 6]]
    del v


@pytest.mark.skipif("sigproc" not in mv.go_packages(),
                    reason="examples/sigproc is not built in (python3 build.py test builds it with memview)")
def test_go_functions_read_any_spelling_of_a_number():
    import sigproc
    a = mv.full(3, 2.0, "1d")
    sigproc.Scale(a, 3)  # a *memview.Array: memview.NewView[float64]
    assert sigproc.Sum(a) == 18.0  # a []float64: lent when the layout is float64's, however spelled
    assert sigproc.Mean(mv.full(2, 4.0, "<d")) == 4.0
    sigproc.Tap(mv.zeros(2, "d "))
    sigproc.Emit(1.5)
    assert sigproc.Tapped() == 1.5
    sigproc.Untap()


@pytest.mark.skipif("gopkg" not in mv.go_packages(), reason="tests/gopkg is built in by python3 build.py test")
@pytest.mark.parametrize("fn, spelling", [("IncInt32s", "=i"), ("IncUint32s", "=I"), ("IncInt64s", "<q"),
                                          ("IncInt16s", "=h"), ("IncUint8s", "B"), ("IncBools", "?"),
                                          ("IncFloat32s", "1f"), ("IncComplex128s", "Zd")])
def test_go_slices_take_any_spelling_of_their_type(fn, spelling):
    import gopkg
    a = mv.zeros(3, spelling)
    getattr(gopkg, fn)(a)  # Go's []T over the array's memory
    want = [True] * 3 if spelling == "?" else [1] * 3
    assert a.tolist() == want


@pytest.mark.skipif("gopkg" not in mv.go_packages(), reason="tests/gopkg is built in by python3 build.py test")
@pytest.mark.parametrize("fn, spelling", [("IncUint32s", ">L "), ("IncInt64s", ">q"), ("IncUint16s", "c"),
                                          ("IncInt32s", "=I"), ("IncFloat64s", "T{d:x:}")])
def test_go_slices_refuse_other_layouts(fn, spelling):
    import gopkg
    a = mv.zeros(3, spelling)
    before = a.tobytes()
    with pytest.raises(TypeError, match=rf"gopkg\.{fn}\(\) argument 'x': Go takes a \[\]\w+ here, which needs an array of"):
        getattr(gopkg, fn)(a)
    assert a.tobytes() == before


@pytest.mark.parametrize("spelling", ["<l", ">l", "=l", "!l", "<L", ">L", "=L", "!L"])
def test_numpy_and_struct_readings_that_differ_are_refused_as_dtypes(spelling):
    # NumPy reads "<l" as a C long (8 bytes), struct as a standard long (4)
    with pytest.raises(TypeError, match="ambiguous"):
        mv.zeros(2, spelling)
    assert mv.item_desc(spelling)["size"] == struct.calcsize(spelling) == 4  # a format: struct's reading
    assert mv.item_desc(spelling + " ")["size"] == 4  # unambiguously a format
    # a buffer in that format imports, and copies, as its 4-byte items
    import _testbuffer
    ref = _testbuffer.ndarray([1, 2, 3], shape=[3], format=spelling)
    a = mv.from_buffer(ref)
    with mv.from_buffer(ref, copy=True) as c:
        assert a.itemsize == c.itemsize == 4 and a.tolist() == c.tolist() == [1, 2, 3]
        c.frombytes(bytes(memoryview(ref)))
    del a


def test_item_desc_refuses_nul():
    with pytest.raises(TypeError, match="NUL"):
        mv.item_desc("d\x00junk")
    assert mv.item_desc("d")["size"] == 8
