"""Arrays of any PEP 3118 format: NumPy structured and byte-swapped arrays import
without a copy, export back with the same dtype, and their elements read and write
as NumPy's do (records as tuples, sub-arrays as lists, bytes fields as bytes)."""
import struct

import numpy as np
import pytest

import memview as mv

tb = pytest.importorskip("_testbuffer", reason="CPython's _testbuffer test module is not built")

STRUCTURED = {
    "packed": [("a", "<i4"), ("b", "<f8")],
    "aligned": np.dtype([("a", "u1"), ("b", "<f8"), ("c", "<i2")], align=True),
    "big endian fields": [("x", ">i2"), ("y", ">f4"), ("z", ">c16")],
    "nested": [("id", "<u4"), ("pos", [("x", "<f4"), ("y", "<f4")]), ("ok", "?")],
    "nested aligned": np.dtype([("id", "u1"), ("pos", np.dtype([("x", "<f8"), ("k", "u1")], align=True))],
                               align=True),
    "sub-arrays": [("m", "<f4", (2, 3)), ("v", "u1", (4,))],
    "bytes": [("name", "S5"), ("n", "<i8")],
    "half and complex": [("h", "<f2"), ("c", "<c8")],
}


def _plain(v):
    """NumPy's tolist() leaves sub-array fields as ndarrays; memview gives lists."""
    if isinstance(v, tuple):
        return tuple(_plain(x) for x in v)
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, np.ndarray):
        return _plain(v.tolist())
    return v


def _filled(dt, shape):
    n = np.zeros(shape, dt)
    raw = n.view(np.uint8).reshape(-1)
    rng = np.random.default_rng(7)
    raw[:] = rng.integers(0, 256, raw.size, dtype=np.uint8)
    # keep floats finite and bools 0/1 so values compare equal
    for name in dt.names:
        f = n[name]
        base = f.dtype.base
        if base.names:
            continue
        if base.kind in "fc":
            n[name] = rng.integers(-100, 100, f.shape).astype(base)
        elif base.kind == "b":
            n[name] = rng.integers(0, 2, f.shape).astype(bool)
    for name in dt.names:
        if dt[name].names:
            for sub in dt[name].names:
                if dt[name][sub].kind in "fc":
                    n[name][sub] = rng.integers(-50, 50, n.shape)
    return n


@pytest.mark.parametrize("name", list(STRUCTURED))
def test_structured_round_trip(name):
    dt = np.dtype(STRUCTURED[name])
    n = _filled(dt, (4, 3))
    a = mv.from_buffer(n)
    assert a.format == memoryview(n).format and a.itemsize == dt.itemsize
    # the dtype is the layout's canonical format, the same for every spelling of it
    assert str(a.dtype)[1:3] == "T{" and a.typestr == f"|V{dt.itemsize}"
    assert np.dtype(a.dtype) == dt and a.dtype == dt
    with mv.zeros(1, a.dtype) as again, mv.zeros(1, a.format) as spelled:
        assert again.dtype == spelled.dtype == a.dtype and again.itemsize == a.itemsize
    back = np.asarray(a)
    assert back.dtype == dt  # the same dtype, through memview's own export
    assert back.__array_interface__["data"][0] == n.__array_interface__["data"][0]  # no copy
    assert a.tolist() == _plain(n.tolist())
    v = a[::-2, 1:]
    assert np.asarray(v).dtype == dt and v.tolist() == _plain(n[::-2, 1:].tolist())
    c = a.copy()  # Go-owned, same format
    assert np.asarray(c).dtype == dt and c.tolist() == a.tolist()
    # mutation both ways
    rec = _plain(n[3, 2].tolist())
    a[0, 0] = rec
    assert _plain(n[0, 0].tolist()) == rec
    n[1, 1] = n[2, 2]
    assert a[1, 1] == _plain(n[2, 2].tolist())
    del back, v


def test_records_by_dict_and_errors_change_nothing():
    n = np.zeros(3, [("a", "<i4"), ("b", ">f8")])
    a = mv.from_buffer(n)
    a[1] = {"a": 5, "b": -2.5}
    a[2] = (9, 1.5)
    assert n.tolist() == [(0, 0.0), (5, -2.5), (9, 1.5)]
    before = n.tobytes()
    bad = [((1, 2, 3), ValueError), ({"a": 1}, ValueError), (("x", 1.0), ValueError), ((None, 1.0), TypeError),
           ((1 << 40, 0.0), OverflowError), (1 + 2j, TypeError), ([9, 1.5], ValueError)]
    for value, exc in bad:
        with pytest.raises(exc):
            a[0] = value
    assert n.tobytes() == before
    a[:2] = [(1, 1.0), (2, 2.0)]  # a list of records
    assert n.tolist()[:2] == [(1, 1.0), (2, 2.0)]
    a.fill((4, 4.0))
    assert n.tolist() == [(4, 4.0)] * 3
    a[1] = 1.5  # a number sets every field, as in NumPy
    assert n.tolist()[1] == (1, 1.5)


BYTE_SWAPPED = [">i2", ">u2", ">i4", ">u4", ">i8", ">u8", ">f2", ">f4", ">f8", ">c8", ">c16", "<f8"]


@pytest.mark.parametrize("dt", BYTE_SWAPPED)
def test_byte_swapped_round_trip(dt):
    n = (np.arange(12) % 5 - 2).astype(dt).reshape(3, 4)
    if n.dtype.kind == "u":
        n = np.abs(n.astype(np.int64)).astype(dt)
    a = mv.from_buffer(n)
    back = np.asarray(a)
    assert back.dtype == np.dtype(dt) and back.tolist() == n.tolist()
    assert a.tolist() == n.tolist() and a[2, 3] == n[2, 3]
    a[0, ::-1] = [1, 2, 3, 4]
    assert n[0].tolist() == [4, 3, 2, 1]
    a.fill(1)
    assert (n == 1).all()
    made = mv.full((2, 2), 3, dtype=dt)
    assert np.asarray(made).dtype == np.dtype(dt) and np.asarray(made).tolist() == [[3, 3], [3, 3]]
    del back


@pytest.mark.parametrize("fmt, items", [
    (">d", [1.5, -2.0, 3.25]), ("<h", [1, -2, 3]), ("!I", [1, 2, 3]), ("3s", [b"ab", b"c", b"xyz"]),
    ("hd", [(1, 2.0), (3, 4.0), (5, 6.0)]), ("=q", [1, 2, 3]), ("c", [b"a", b"b", b"c"]),
])
def test_memoryview_and_struct_as_on_cpythons_exporter(fmt, items):
    ref = tb.ndarray(items, shape=[3], format=fmt, flags=tb.ND_WRITABLE)
    a = mv.from_buffer(ref)
    m, r = memoryview(a), memoryview(ref)
    assert (m.itemsize, m.shape, m.strides, m.nbytes) == (r.itemsize, r.shape, r.strides, r.nbytes)
    # the exporter's format string is passed on unchanged, as memoryview does
    assert m.format == r.format
    assert m.tobytes() == r.tobytes() and m.cast("B").tolist() == r.cast("B").tolist()
    assert bytes(m.cast("B")[::-1]) == bytes(r.cast("B")[::-1])
    for k in range(3):
        assert struct.unpack_from(a.format, m, k * a.itemsize) == struct.unpack_from(fmt, r, k * ref.itemsize)
    # a memoryview cast of memview's export works as one of _testbuffer's
    if struct.calcsize(fmt) == 8:
        assert m.cast("B").cast("q").tolist() == r.cast("B").cast("q").tolist()
    del m, r


def test_go_made_record_arrays_export_to_numpy():
    a = mv.zeros((2, 2), dtype="T{<i:a:>d:b:(2)B:c:}")
    a[0, 1] = (1, 2.5, [3, 4])
    n = np.asarray(a)
    assert n.dtype == np.dtype([("a", "<i4"), ("b", ">f8"), ("c", "u1", (2,))])
    assert n[0, 1]["a"] == 1 and n[0, 1]["b"] == 2.5 and n[0, 1]["c"].tolist() == [3, 4]
    n[1, 0]["b"] = -1.0
    assert a[1, 0] == (0, -1.0, [0, 0])
    del n


def test_zero_strides_are_read_only():
    n = np.broadcast_to(np.arange(3.0), (4, 3))
    a = mv.from_buffer(n)
    assert a.strides == (0, 8) and a.readonly
    with pytest.raises(ValueError, match="read-only"):
        a[0, 0] = 1.0
    with pytest.raises(BufferError, match="read-only"):  # NumPy says ValueError; memview says BufferError
        mv.from_buffer(n, writable=True)
    assert np.asarray(a).strides == (0, 8)


@pytest.mark.parametrize("bad", ["T{i", "(2", "Zq", "T{}", "i:x", ">"])
def test_malformed_formats_refused(bad):
    with pytest.raises(TypeError, match="format|dtype"):
        mv.empty(3, dtype=bad)


def test_item_descriptors():
    d = mv.item_desc("T{<i:a:>d:b:(2,3)B:c:}")
    rec = d["fields"][0]["record"]
    assert d["size"] == 4 + 8 + 6
    assert [(f["name"], f["code"], f["order"], f["offset"], f["size"], f["repeat"], f["shape"])
            for f in rec["fields"]] == [("a", "i", "little", 0, 4, 1, None),
                                        ("b", "d", "big", 4, 8, 1, None),
                                        ("c", "B", "big", 12, 1, 6, [2, 3])]  # ">" stays in force
    assert [f["native"] for f in rec["fields"]] == [False, False, False]  # '<' and '>': standard sizes
    assert mv.item_desc("bi")["size"] == struct.calcsize("bi") == 8  # native alignment
    assert all(f["native"] for f in mv.item_desc("bi")["fields"])
    assert mv.item_desc(mv.zeros(2, "float64"))["fields"][0]["code"] == "d"
    with pytest.raises(TypeError):
        mv.item_desc("T{i")


def test_bytes_are_an_item_of_a_bytes_dtype_and_a_buffer_otherwise():
    s = mv.zeros(2, dtype="3s")
    s[0] = b"ab"
    s[1] = "xyz"
    assert s.tolist() == [b"ab", b"xyz"] and bytes(memoryview(s)) == b"ab\x00xyz"
    u = mv.zeros(3, "uint8")
    u[:] = b"\x01\x02\x03"  # a bytes object is a buffer of three uint8 items
    assert u.tolist() == [1, 2, 3]
