"""ctypes objects import without a copy with the layout of their type: before
Python 3.14 ctypes exports a structure's format without its padding
("T{<i:a:<d:b:}" for a 16-byte struct of an int and a double), a union or a _pack_ed
structure as "B", so memview reads the field offsets from the ctypes type, as NumPy
does. NumPy then reads memview's export as it reads the ctypes object. What no
format describes (bitfields, unions, pointers) is refused with TypeError, and
nothing is left behind."""
import ctypes
import warnings

import numpy as np
import pytest

import memview as mv
from memview import _core


class Pair(ctypes.Structure):
    _fields_ = [("a", ctypes.c_int32), ("b", ctypes.c_double)]


class Tail(ctypes.Structure):  # padding at the end only
    _fields_ = [("d", ctypes.c_double), ("c", ctypes.c_char)]


class Nested(ctypes.Structure):
    _fields_ = [("x", ctypes.c_char), ("p", Pair), ("pairs", Pair * 2), ("m", ctypes.c_int16 * 3 * 2),
                ("name", ctypes.c_char * 5), ("k", ctypes.c_uint8)]


class Packed(ctypes.Structure):
    _layout_ = "ms"  # what _pack_ gives on every Python; 3.14 warns if it is left implicit
    _pack_ = 1
    _fields_ = [("a", ctypes.c_int8), ("b", ctypes.c_double), ("c", ctypes.c_uint16)]


class Pack2(ctypes.Structure):
    _layout_ = "ms"
    _pack_ = 2
    _fields_ = [("a", ctypes.c_int8), ("b", ctypes.c_double), ("c", ctypes.c_int8)]


class Big(ctypes.BigEndianStructure):
    _fields_ = [("a", ctypes.c_int32), ("b", ctypes.c_double), ("c", ctypes.c_int16), ("v", ctypes.c_uint16 * 3)]


class BigOfLittle(ctypes.BigEndianStructure):
    _fields_ = [("h", ctypes.c_int16), ("pair", Pair)]


class Little(ctypes.LittleEndianStructure):
    _fields_ = [("a", ctypes.c_uint64), ("b", ctypes.c_float)]


class Derived(Pair):  # a base class's fields come first
    _fields_ = [("c", ctypes.c_int8), ("d", ctypes.c_int64)]


class Words(ctypes.Structure):
    _fields_ = [("p", ctypes.c_void_p), ("n", ctypes.c_size_t), ("l", ctypes.c_long), ("ok", ctypes.c_bool),
                ("f", ctypes.c_float)]


def _objects():
    """(name, ctypes object): arrays of structures, 2-D arrays, one structure, simple arrays."""
    return [
        ("Pair * 4", (Pair * 4)()),
        ("Tail * 3", (Tail * 3)()),
        ("Nested * 2", (Nested * 2)()),
        ("Packed * 3", (Packed * 3)()),
        ("Pack2 * 3", (Pack2 * 3)()),
        ("Big * 3", (Big * 3)()),
        ("BigOfLittle * 2", (BigOfLittle * 2)()),
        ("Little * 2", (Little * 2)()),
        ("Derived * 2", (Derived * 2)()),
        ("Words * 2", (Words * 2)()),
        ("Pair * 3 * 2", (Pair * 3 * 2)()),
        ("Pair()", Pair()),
        ("c_int16 * 3 * 2", (ctypes.c_int16 * 3 * 2)()),
        ("c_double * 4", (ctypes.c_double * 4)()),
        ("c_long * 3", (ctypes.c_long * 3)()),
    ]


OBJECTS = _objects()


def _fill(x):
    raw = (ctypes.c_uint8 * ctypes.sizeof(x)).from_buffer(x)
    for i in range(len(raw)):
        raw[i] = (i * 37 + 11) % 251


def _numpy_of(x):
    """NumPy's own reading of a ctypes object, from its type (it warns that the
    format ctypes exports is wrong), or None where it cannot read it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            return np.asarray(x)
        except (ValueError, RuntimeError):  # "<P" for c_void_p; a derived structure
            return None


def _expected(t):
    """The NumPy dtype of ctypes type t from its fields' offsets (NumPy's own
    reading of ctypes types drops a base class's fields)."""
    if issubclass(t, ctypes.Array):
        return np.dtype((_expected(t._type_), (t._length_,)))
    if issubclass(t, ctypes.Structure):
        fields = [f for cls in reversed(t.__mro__) for f in vars(cls).get("_fields_", [])]
        return np.dtype({"names": [f[0] for f in fields], "formats": [_expected(f[1]) for f in fields],
                         "offsets": [getattr(t, f[0]).offset for f in fields], "itemsize": ctypes.sizeof(t)})
    return np.dtype(t)


def _flat(dt):
    """dt with every sub-array of a sub-array merged into one: NumPy reads an array of
    arrays from a ctypes type as (('<i2', (3,)), (2,)), and from the format that
    Python 3.14's ctypes exports for the same object as ('<i2', (2, 3))."""
    if dt.names is not None:
        return np.dtype({"names": list(dt.names), "formats": [_flat(dt.fields[n][0]) for n in dt.names],
                         "offsets": [dt.fields[n][1] for n in dt.names], "itemsize": dt.itemsize})
    if dt.subdtype is None:
        return dt
    base, shape = dt.subdtype
    base = _flat(base)
    if base.subdtype is not None:
        return np.dtype((base.subdtype[0], shape + base.subdtype[1]))
    return np.dtype((base, shape))


def _offsets(dt, base=0):
    """Every field's (name path, offset, itemsize) of a NumPy dtype, nested."""
    out = []
    if dt.names is None:
        if dt.subdtype is not None:
            out += _offsets(dt.subdtype[0], base)
        return out
    for name in dt.names:
        t, off = dt.fields[name][:2]
        out.append((name, base + off, t.itemsize))
        out += [(name + "." + n, o, s) for n, o, s in _offsets(t, base + off)]
    return out


@pytest.mark.parametrize("name, x", OBJECTS, ids=[n for n, _ in OBJECTS])
def test_ctypes_objects_import_with_their_types_layout(name, x):
    _fill(x)
    a = mv.from_buffer(x)
    t = type(x)
    while issubclass(t, ctypes.Array):
        t = t._type_
    want = _expected(t)
    # no copy: memview views the ctypes memory, with the shape and item size ctypes states
    assert a.ptr == ctypes.addressof(x)
    with memoryview(x) as mx, memoryview(a) as m:
        assert (a.shape, a.itemsize) == (tuple(mx.shape), mx.itemsize)
        assert (m.shape, m.strides, m.itemsize, m.nbytes) == (mx.shape, mx.strides, mx.itemsize, mx.nbytes)
        assert m.tobytes() == mx.tobytes() == bytes(x)
    # NumPy reads memview's export with the ctypes type's fields, offsets and size, or,
    # where memview passes on a format NumPy cannot parse ("<P" for c_void_p, which
    # Python 3.14's ctypes writes with its padding, so that its size is the item's),
    # fails on it as on the ctypes object itself
    try:
        back = np.asarray(a)
    except ValueError:
        with memoryview(x) as mx, memoryview(a) as m:
            assert m.format == mx.format and "P" in m.format
        assert _numpy_of(x) is None
        a.release()
        return
    assert back.shape == a.shape
    assert _flat(back.dtype) == _flat(want) and _offsets(back.dtype) == _offsets(want) and back.dtype.itemsize == want.itemsize
    assert back.__array_interface__["data"][0] == ctypes.addressof(x)
    ref = _numpy_of(x)
    if ref is not None and t is not Derived:  # as it reads the ctypes object itself
        assert _flat(back.dtype) == _flat(ref.dtype) and _offsets(back.dtype) == _offsets(ref.dtype)
        assert back.shape == ref.shape and back.tobytes() == ref.tobytes()
    # memview's own reading of the values is NumPy's
    assert a.tolist() == _plain(back.tolist())
    del back, ref
    a.release()


def _plain(v):
    if isinstance(v, tuple):
        return tuple(_plain(x) for x in v)
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, np.ndarray):
        return _plain(v.tolist())
    return v


def test_structure_fields_read_and_write_both_ways():
    x = (Nested * 2)()
    a = mv.from_buffer(x)
    assert a.dtype.names == ("x", "p", "pairs", "m", "name", "k")
    assert {n: off for n, (_, off) in a.dtype.fields.items()} == \
        {n: getattr(Nested, n).offset for n in ("x", "p", "pairs", "m", "name", "k")}
    x[1].p.a, x[1].p.b, x[1].pairs[1].b, x[1].m[1][2], x[1].name, x[1].k = 7, 2.5, -1.25, 9, b"abc", 200
    got = a[1]
    assert got[1] == (7, 2.5) and got[2][1] == (0, -1.25) and got[3] == [[0, 0, 0], [0, 0, 9]]
    assert got[4] == [b"a", b"b", b"c", b"", b""] and got[5] == 200
    a[0] = (b"z", (1, 0.5), [(2, 1.5), (3, 2.5)], [[1, 2, 3], [4, 5, 6]], [b"q"] * 5, 17)
    assert x[0].x == b"z" and (x[0].p.a, x[0].p.b) == (1, 0.5) and x[0].pairs[1].a == 3
    assert [list(r) for r in x[0].m] == [[1, 2, 3], [4, 5, 6]] and x[0].name == b"qqqqq" and x[0].k == 17
    n = np.asarray(a)
    n[1]["pairs"]["a"] = [40, 41]
    assert (x[1].pairs[0].a, x[1].pairs[1].a) == (40, 41)
    del n
    a.release()


def test_big_endian_structure():
    x = (Big * 2)()
    x[1].a, x[1].b, x[1].c, x[1].v[2] = -5, 3.75, 300, 65535
    a = mv.from_buffer(x)
    assert a[1] == (-5, 3.75, 300, [0, 0, 65535])
    with memoryview(a) as m:
        assert m.format == "T{>i:a:4x>d:b:>h:c:(3)>H:v:}"  # ctypes writes "T{>i:a:>d:b:>h:c:(3)>H:v:}"
    n = np.asarray(a)
    assert n.dtype["a"] == np.dtype(">i4") and n[1]["b"] == 3.75
    del n
    a.release()


def test_memoryview_of_a_ctypes_object_and_its_copies():
    x = (Pair * 3)()
    x[2].a, x[2].b = 4, 8.5
    with memoryview(x) as m:
        a = mv.from_buffer(m)  # the memoryview's items are the type's: read from the type
        assert a[2] == (4, 8.5) and a.itemsize == 16 and a.ptr == ctypes.addressof(x)
        with m.cast("B") as raw:  # a cast is not: its own format
            b = mv.from_buffer(raw)
            assert b.dtype == "uint8" and b.shape == (48,)
            b.release()
        a.release()
    c = mv.from_buffer(x, copy=True)
    assert c.ptr != ctypes.addressof(x) and c.tolist() == [(0, 0.0), (0, 0.0), (4, 8.5)]
    d = mv.zeros(3, c.dtype)
    d[:] = x  # assignment from the ctypes array: the same layout
    assert d.tolist() == c.tolist()
    for arr in (c, d):
        arr.release()


def test_dtype_of_a_ctypes_type():
    for t in (Pair, Tail, Packed, Pack2, Big, Derived, Words, Pair * 3, ctypes.c_double, ctypes.c_uint16 * 4):
        d = mv.dtype(t)
        assert d.itemsize == ctypes.sizeof(t)
        assert np.dtype(d) == _expected(t), t
        if t is not Derived and t is not Words:  # NumPy reads these two otherwise (see _expected), or not
            assert np.dtype(d) == np.dtype(t), t
    assert mv.dtype(Nested).fields["m"][1] == Nested.m.offset


def test_the_stated_item_size_where_it_is_unambiguous():
    # Without the type (the Go core alone). Before Python 3.14, ctypes leaves the
    # padding out of its formats: padding at the end only is unambiguous, padding
    # that moves a field is not. From 3.14 on it writes the padding ("7x"), and
    # the format alone says where every field is.
    x = (Tail * 2)()
    x[1].d, x[1].c = 1.5, b"k"
    with memoryview(x) as m:
        padded = m.format == "T{<d:d:<c:c:7x}"
        assert (m.format, m.itemsize) == ("T{<d:d:<c:c:7x}" if padded else "T{<d:d:<c:c:}", 16)
    a = _core.from_buffer(x, -1)
    assert a.itemsize == 16 and a.tolist() == [(0.0, b""), (1.5, b"k")]
    with memoryview(a) as m:  # a format that says it all is passed on as it is; else
        assert m.format == "T{<d:d:<c:c:7x}"  # with the padding it left out, as 3.14 writes it
    assert np.asarray(a).dtype == _expected(Tail)
    a.release()
    y = (Pair * 2)()
    if padded:
        with memoryview(y) as m:
            assert m.format == "T{<i:a:4x<d:b:}"
        b = _core.from_buffer(y, -1)
        assert np.asarray(b).dtype == _expected(Pair) and b.tolist() == [(0, 0.0), (0, 0.0)]
        b.release()
    else:
        with pytest.raises(ValueError, match="at other offsets"):
            _core.from_buffer(y, -1)


class Union(ctypes.Union):
    _fields_ = [("i", ctypes.c_int32), ("d", ctypes.c_double)]


class WithUnion(ctypes.Structure):
    _anonymous_ = ("u",)
    _fields_ = [("k", ctypes.c_int8), ("u", Union)]


class Bits(ctypes.Structure):
    _fields_ = [("a", ctypes.c_uint32, 3), ("b", ctypes.c_uint32, 5), ("c", ctypes.c_int16)]


class Pointers(ctypes.Structure):
    _fields_ = [("n", ctypes.c_int), ("p", ctypes.POINTER(ctypes.c_int))]


class Objects(ctypes.Structure):
    _fields_ = [("o", ctypes.py_object)]


class Strings(ctypes.Structure):
    _fields_ = [("s", ctypes.c_char_p)]


@pytest.mark.parametrize("x, msg", [
    ((Union * 2)(), "union whose fields 'i' and 'd' overlap"),
    ((WithUnion * 2)(), r"Union \(field 'u' of WithUnion\) is a union"),
    ((Bits * 2)(), "field 'a' of Bits is a bitfield"),
    ((Pointers * 2)(), "field 'p' of Pointers is a pointer"),
    ((Objects * 2)(), "Python object references"),
    ((Strings * 2)(), "points outside the buffer"),
    ((ctypes.c_char_p * 2)(), "points outside the buffer"),
    (ctypes.pointer(ctypes.c_int(1)), "pointers"),
], ids=["union", "union inside", "bitfields", "pointer field", "py_object", "char pointer field",
        "char pointers", "pointer"])
def test_what_no_format_describes_is_refused(x, msg):
    before = bytes(memoryview(x)) if not isinstance(x, ctypes._Pointer) else None
    for copy in (False, None, True):
        with pytest.raises(TypeError, match=msg):
            mv.from_buffer(x, copy=copy)
    if not isinstance(x, ctypes._Pointer) and "Python object" not in msg:
        with mv.zeros(len(x), f"{ctypes.sizeof(x) // len(x)}x") as a:  # an assignment says why too
            with pytest.raises(TypeError, match=msg):
                a[:] = x
    if before is not None:
        assert bytes(memoryview(x)) == before


def test_ctypes_strings_and_addresses():
    w = (ctypes.c_wchar * 3)("a", "é", "z")  # wchar_t is UCS-4 here: NumPy's U
    if ctypes.sizeof(ctypes.c_wchar) != 4:
        pytest.skip("wchar_t is not 4 bytes")
    a = mv.from_buffer(w)
    assert a.tolist() == ["a", "é", "z"] and a.dtype == np.dtype("<U1") and a.__array__().dtype == np.dtype("<U1")
    assert a.format == memoryview(w).format == "<u"  # re-exported as ctypes writes it
    with pytest.raises(ValueError, match="not a valid PEP 3118"):  # which NumPy refuses
        np.asarray(memoryview(a))
    a.release()
    p = (ctypes.c_void_p * 2)(16, 32)  # '<P' as ctypes writes it: addresses as unsigned integers
    b = mv.from_buffer(p)
    assert b.dtype == "uint64" and b.tolist() == [16, 32] and b.format == "<P"
    assert b.__array__().tolist() == [16, 32]
    b.release()
