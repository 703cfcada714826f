"""Imported memory is re-exported with its exporter's format string, byte for byte, as
CPython's memoryview does: memoryview(mv.from_buffer(x)).format is memoryview(x).format,
for the array and every view of it, whatever the spelling — any byte-order prefix or
none, 'n', 'N', 'P', repeat counts, records, padding as written, whitespace, what
ctypes writes ("<P", "<u") — and a.format is that string too. A consumer that cannot
read the string (NumPy on 'P', "3n" or "ix") fails on memview's export as it fails on
the exporter's.

The one exception is a format that disagrees with its exporter's own item size
(NumPy's "T{xxh:x:}" for 8-byte items, a ctypes structure's format without its
padding, a _pack_ed structure's "B"): memview exports a corrected spelling that NumPy
reads with the exporter's item size, field names and offsets.

Arrays memview makes (from a dtype, copies, unpickling) use one spelling of their
layout that struct and NumPy both read alike, and memview's own ways into NumPy
(__array__, ufuncs) work for every format it imports."""
import array
import ctypes
import itertools
import math
import pickle
import random
import struct
import warnings

import numpy as np
import pytest
from numpy._core._internal import _dtype_from_pep3118

import memview as mv
from memview import _cdata
from test_ctypes import _objects as ctypes_objects

tb = pytest.importorskip("_testbuffer", reason="CPython's _testbuffer test module is not built")

# Every code of struct's grammar with every prefix it takes, with a count, and a few
# multi-item and spaced spellings: (format, one item's values for struct.pack).
_CODES = {"?": True, "c": b"x", "b": -3, "B": 200, "h": -300, "H": 60000, "i": -7, "I": 7, "l": -9, "L": 9,
          "q": -(1 << 40), "Q": 1 << 60, "e": 1.5, "f": -2.25, "d": 3.125, "s": b"ab", "p": b"pq"}
_NATIVE_ONLY = {"n": -11, "N": 11, "P": 0x1000}
STRUCT_FORMATS = []
for code, v in _CODES.items():
    for prefix in ("", "@", "=", "<", ">", "!"):
        STRUCT_FORMATS.append((prefix + code, (v,)))
    STRUCT_FORMATS.append(("3" + code, (v,) if code in "sp" else (v, v, v)))
for code, v in _NATIVE_ONLY.items():
    STRUCT_FORMATS += [(code, (v,)), ("@" + code, (v,)), ("3" + code, (v, v, v)), ("@2" + code, (v, v))]
STRUCT_FORMATS += [("hd", (1, 2.5)), ("<hd", (1, 2.5)), ("i 2x d", (4, 0.5)), (">bhiq", (1, 2, 3, 4)),
                   ("?3sqd", (True, b"abc", 5, 6.5)), ("xxh", (8,)), (" d ", (1.0,)), ("ix", (7,)),
                   ("ib", (1, 2)), ("nb", (-5, 6)), ("Pb", (4096, 1)), ("=ixx", (3,)), ("3ix", (1, 2, 3))]


def _numpy_outcome(x):
    """What NumPy's PEP 3118 reader makes of exporter x: its dtype, or the type of the
    error it raises (through a memoryview: NumPy takes its own arrays as they are)."""
    try:
        with memoryview(x) as m:
            return np.asarray(m).dtype
    except (ValueError, TypeError, RuntimeError, NotImplementedError, BufferError) as e:
        return type(e)


def _struct_reads(fmt):
    try:
        return struct.calcsize(fmt)
    except struct.error:
        return None


def _size_memview_reads(fmt):
    """The item size memview's parser gives fmt, or None where it refuses it."""
    try:
        return mv.item_desc(fmt)["size"]
    except (ValueError, TypeError):
        return None


def check_views(a, want):
    """a and each of its views export the format want, and say so in a.format."""
    views = [a, a[...], a[None]]
    if a.ndim:
        views += [a[1:], a[::-1], a[::2], a.T, a.reshape(-1) if a.c_contiguous else a[..., :]]
    for v in views:
        with memoryview(v) as vm:
            assert vm.format == want == v.format, (vm.format, want, v.format)
    with memoryview(tb.ndarray(a, getbuf=tb.PyBUF_FULL_RO)) as again:  # a re-export of the re-export
        assert again.format == want


def check_made(a):
    """a copy is new memory: the spelling memview gives its layout, which struct and
    NumPy read with a's item size where they read the layout at all."""
    with a.copy() as c, memoryview(c) as cm:
        assert c.itemsize == a.itemsize and c.tobytes() == a.tobytes()
        assert c.dtype == a.dtype and cm.format == c.format
        made = c.format
        with mv.zeros(1, dtype=a.dtype) as z:
            assert z.format == made  # one spelling per layout
    try:
        readable = _dtype_from_pep3118(made).itemsize == a.itemsize
        assert readable, made
    except (ValueError, NotImplementedError, KeyError):
        assert "p" in made or "Ze" in made, made  # layouts NumPy has no dtype for
        return
    # memview's own way into NumPy works whatever the exporter's spelling
    n = a.__array__()  # NumPy makes a sub-array item ("3b") dimensions of the array
    assert n.shape[:a.ndim] == a.shape and n.nbytes == a.nbytes and n.tobytes() == a.tobytes()
    if a.size:
        assert n.__array_interface__["data"][0] == a.ptr
    del n


@pytest.mark.parametrize("fmt, values", STRUCT_FORMATS, ids=[f for f, _ in STRUCT_FORMATS])
def test_testbuffer_formats_are_re_exported_verbatim(fmt, values):
    items = [values if len(values) > 1 else values[0]] * 3
    ref = tb.ndarray(items, shape=[3], format=fmt, flags=tb.ND_WRITABLE)
    a = mv.from_buffer(ref)
    with memoryview(a) as m, memoryview(ref) as r:
        assert r.format == fmt == m.format == a.format
        assert (m.itemsize, m.shape, m.strides, m.tobytes()) == (r.itemsize, r.shape, r.strides, r.tobytes())
        assert struct.unpack_from(m.format, m, a.itemsize) == struct.unpack_from(fmt, r, ref.itemsize)
    check_views(a, fmt)
    # NumPy fails on memview's export exactly where it fails on the exporter's
    assert _numpy_outcome(a) == _numpy_outcome(ref)
    check_made(a)
    a.release()


#: array's type codes, 'u' (deprecated from Python 3.13, to go in 3.16) while it has it
ARRAY_TYPECODES = list(array.typecodes)


@pytest.mark.parametrize("code", ARRAY_TYPECODES)
def test_array_module_formats_are_re_exported_verbatim(code):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # 'u'
        x = array.array(code, "abc" if code in "uw" else [1, 2, 3])
    a = mv.from_buffer(x)
    with memoryview(a) as m, memoryview(x) as r:
        assert m.format == r.format == a.format and m.tobytes() == r.tobytes()
    check_views(a, memoryview(x).format)
    assert _numpy_outcome(a) == _numpy_outcome(x)
    check_made(a)
    a.release()


def _simple_ctypes():
    ct = ctypes
    kinds = [ct.c_bool, ct.c_char, ct.c_byte, ct.c_ubyte, ct.c_short, ct.c_ushort, ct.c_int, ct.c_uint, ct.c_long,
             ct.c_ulong, ct.c_longlong, ct.c_ulonglong, ct.c_size_t, ct.c_ssize_t, ct.c_float, ct.c_double,
             ct.c_longdouble, ct.c_void_p, ct.c_wchar, ct.c_int16.__ctype_be__, ct.c_double.__ctype_be__,
             ct.c_uint32.__ctype_le__]
    return [(f"{t.__name__} * 3", (t * 3)()) for t in kinds]


CTYPES = ctypes_objects() + _simple_ctypes()


@pytest.mark.parametrize("name, x", CTYPES, ids=[n for n, _ in CTYPES])
def test_ctypes_formats_are_re_exported_verbatim_where_they_state_the_item_size(name, x):
    with memoryview(x) as r:
        own, itemsize = r.format, r.itemsize
    a = mv.from_buffer(x)
    with memoryview(a) as m:
        assert m.itemsize == itemsize and m.tobytes() == bytes(x) and m.format == a.format
    if _size_memview_reads(own) == itemsize:
        want = own  # "<i", "<P", "<u", a structure without padding
        assert _cdata.item_format(x) is None
    else:
        # a misstated size: the layout of the ctypes type, in a spelling NumPy reads
        # with the exporter's item size, names and offsets, as it reads the type
        want = _cdata.item_format(x)
        assert want == a.format != own
        t = type(x)
        while issubclass(t, ctypes.Array):
            t = t._type_
        theirs = _dtype_from_pep3118(want)
        assert theirs.itemsize == itemsize
        top = [(n, o, k) for n, o, k in _offsets(theirs) if "." not in n and "[" not in n]
        assert top == _ctypes_fields(t), (want, theirs)
    check_views(a, want)
    check_made(a)
    a.release()


def _ctypes_fields(t):
    """The (name, offset, size) of a ctypes structure's fields, its bases' first."""
    out = []
    for cls in reversed(t.__mro__):
        for entry in vars(cls).get("_fields_", ()):
            out.append((entry[0], getattr(cls, entry[0]).offset, ctypes.sizeof(entry[1])))
    return out


def _offsets(dt, base=0):
    """Every field's (name path, offset, itemsize) of a NumPy dtype, nested, sub-arrays unrolled."""
    out = []
    if dt.names is None:
        if dt.subdtype is not None:
            sub, shape = dt.subdtype
            for i in range(math.prod(shape)):
                out += [(f"[{i}]" + n, o, k) for n, o, k in _offsets(sub, base + i * sub.itemsize)]
        return out
    for name in dt.names:
        t, off = dt.fields[name][:2]
        out.append((name, base + off, t.itemsize))
        out += [(name + "." + n, o, k) for n, o, k in _offsets(t, base + off)]
    return out


NUMPY_DTYPES = [
    "?", "i1", "u1", "<i2", ">u2", "i4", ">i4", "=i8", "q", "l", "n", "N", "p", "P", "<f2", ">f4", "f8", "g", "c8",
    ">c16", "G", "S1", "S7", "U1", "U5", ">U3", "V1", "V6",
    np.dtype([("a", "i1"), ("b", "<f8")]),
    np.dtype([("a", "i1"), ("b", "<f8")], align=True),
    np.dtype([("a", ">i2"), ("s", "S3"), ("u", "U2"), ("v", "V3"), ("m", "<f4", (2, 3))]),
    np.dtype([("k", "g"), ("kx", "G"), ("m", "U4"), ("p", "e")]),
    np.dtype([("id", "u1"), ("pos", np.dtype([("x", "<f8"), ("k", "u1")], align=True))], align=True),
    np.dtype(("<f8", (2, 2))),
    np.dtype({"names": ["x"], "formats": ["<i2"], "offsets": [2], "itemsize": 8}),  # "T{xxh:x:}", 8 bytes
    np.dtype({"names": ["a"], "formats": ["<i4"], "itemsize": 5}),
    np.dtype({"names": ["a", "b"], "formats": ["<f8", "u1"], "offsets": [0, 8], "itemsize": 12}),
    np.dtype({"names": ["b", "a"], "formats": ["u1", "<i4"], "offsets": [0, 4], "itemsize": 9}),
    np.dtype([("a", "u1"), ("r", np.dtype([("x", "<f8"), ("y", "u1")], align=True), (2,)), ("z", "<i2")]),
    np.dtype([("a", ">i4"), ("p", "V3"), ("s", "S3"), ("u", "<U2")], align=True),
]


@pytest.mark.parametrize("dt", NUMPY_DTYPES, ids=str)
def test_numpy_formats_are_re_exported_verbatim_where_they_state_the_item_size(dt):
    x = np.zeros((2, 3), dt)
    x.view(np.uint8)[...] = np.arange(x.nbytes, dtype=np.uint8).reshape(x.view(np.uint8).shape) % 251
    with memoryview(x) as r:
        own, itemsize = r.format, r.itemsize
    a = mv.from_buffer(x)
    with memoryview(a) as m:
        assert (m.itemsize, m.shape, m.strides, m.tobytes()) == (itemsize, x.shape, x.strides, x.tobytes())
    if _size_memview_reads(own) == itemsize:
        want = own
        assert _numpy_outcome(a) == _numpy_outcome(x)
    else:
        # NumPy writes a format its own reader does not give this item size: the
        # corrected spelling, which NumPy reads with x's item size, names and offsets
        want = a.format
        assert want != own
        theirs = _dtype_from_pep3118(want)
        assert theirs.itemsize == itemsize and _offsets(theirs) == _offsets(dt), (own, want, theirs)
        assert np.asarray(a).tobytes() == x.tobytes()
    check_views(a, want)
    check_made(a)
    a.release()


def test_the_issue_examples():
    for fmt, items in [("n", [1, 2, 3]), ("N", [1, 2, 3]), ("@n", [1, 2, 3]), ("3n", [(1, 2, 3)] * 2),
                       ("@2n", [(1, 2)] * 2), ("P", [1, 2, 3])]:
        ref = tb.ndarray(items, shape=[len(items)], format=fmt)
        with mv.from_buffer(ref) as a, memoryview(a) as m:
            assert m.format == fmt and a.format == fmt
            assert [memoryview(v).format for v in (a[1:], a[::-1])] == [fmt, fmt]
    x = np.zeros(2, np.dtype({"names": ["x"], "formats": ["<i2"], "offsets": [2], "itemsize": 8}))
    assert memoryview(x).format == "T{xxh:x:}"
    with mv.from_buffer(x) as a:
        assert a.format == "T{xxh:x:4x}"  # NumPy's reader makes the exporter's "T{xxh:x:}" 4 bytes
    with mv.from_buffer(tb.ndarray([7, 8], shape=[2], format="ix")) as a:
        assert a.format == "ix"  # struct's size of "ix" is the exporter's (5): no exception


def test_one_layout_in_many_spellings_keeps_each():
    """One int64 layout imported as 'l', 'q', '<q', '=q', 'n' and '@n' in random orders
    in one process: every array and view re-exports its own spelling, and all are one
    dtype."""
    spellings = ["l", "q", "<q", "=q", "n", "@n", "@l", "int64"]
    r = random.Random(3118)
    for _ in range(20):
        order = spellings[:]
        r.shuffle(order)
        arrays = []
        for s in order:
            x = np.arange(4, dtype=np.int64) if s == "int64" else \
                tb.ndarray([1, 2, 3, 4], shape=[4], format=s, flags=tb.ND_WRITABLE)
            a = mv.from_buffer(x)
            want = memoryview(x).format
            arrays.append((a, want))
        for a, want in r.sample(arrays, len(arrays)):
            check_views(a, want)
            assert a.dtype == "int64"
        first = arrays[0][0]
        for a, _ in arrays[1:]:
            a[:] = first  # one layout, however spelled: a copy
            assert a.tolist() == first.tolist()
        for a, _ in arrays:
            a.release()
    # a standard-size long is 4 bytes: another type
    with mv.from_buffer(tb.ndarray([1, 2], shape=[2], format="<l")) as i4:
        assert i4.dtype == "int32" and i4.dtype != "int64" and i4.format == "<l"


def test_sameness_is_layout_not_spelling():
    for one, _other in itertools.combinations(["q", "<q", "=q", "l", "@l", "n", "int64", "<i8"], 2):
        x = tb.ndarray([1, 2, 3], shape=[3], format=one, flags=tb.ND_WRITABLE) if one not in ("int64", "<i8") \
            else np.arange(3, dtype=np.int64)
        y = np.array([7, 8, 9], dtype=np.int64)
        a, b = mv.from_buffer(x), mv.from_buffer(y)
        assert a.dtype == b.dtype == "int64"
        a[:] = b  # a copy, not a conversion through Python values
        assert a.tolist() == [7, 8, 9]
        a.release()
        b.release()


def test_made_arrays_have_one_spelling_per_layout():
    for spelling in ("q", "<q", "=q", "<i8", "int64", "l", "n", "@n"):
        with mv.zeros(2, dtype=spelling) as z, memoryview(z) as m:
            assert m.format == "l" == z.format and z.dtype == "int64"
    with mv.zeros(2, dtype="<d") as z, memoryview(z) as m:
        assert m.format == "d"
    for spelling in ("ix", "<i1x", "=ix"):
        with mv.zeros(2, dtype=spelling) as z:
            assert z.format == "<i1x" and struct.calcsize(z.format) == 5 == _dtype_from_pep3118(z.format).itemsize
    # unpickling in band (protocols 2-4) makes new memory too; protocol 5 (the default
    # from Python 3.14) rebuilds over the pickled bytes, an import of them with the
    # array's own format, which it passes on as it was
    src = tb.ndarray([1, 2, 3], shape=[3], format="n", flags=tb.ND_WRITABLE)
    with mv.from_buffer(src) as a:
        for protocol, want in ((2, "l"), (4, "l"), (5, "n")):
            b = pickle.loads(pickle.dumps(a, protocol=protocol))
            assert (b.format, b.tolist()) == (want, [1, 2, 3]), protocol
            b.release()


@pytest.mark.parametrize("dt", NUMPY_DTYPES, ids=str)
def test_numpy_extension_formats_through_testbuffer(dt):
    """NumPy's extensions of the grammar (long doubles, UCS-4, '^', named void
    fields, sub-arrays, records) served by _testbuffer re-exporting a NumPy array."""
    x = np.zeros(2, dt)
    x.view(np.uint8)[...] = np.arange(x.nbytes, dtype=np.uint8).reshape(x.view(np.uint8).shape)
    ref = tb.ndarray(x, getbuf=tb.PyBUF_FULL_RO)
    a = mv.from_buffer(ref)
    with memoryview(a) as m:
        if _size_memview_reads(ref.format) == ref.itemsize:
            assert m.format == ref.format == memoryview(x).format
        assert m.tobytes() == x.tobytes() and m.format == a.format
    with memoryview(a[::-1]) as m:
        assert m.format == a.format
    a.release()
