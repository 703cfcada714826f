"""NumPy reads every array memview makes with memview's item size and field offsets.
NumPy's PEP 3118 reader differs from struct's: it reads the whole item as a record and
pads it to its alignment under '@' (struct.calcsize("ix") is 5, NumPy makes "ix" 8
bytes), and it has no 'n', 'N' or 'P' in records and no whitespace. memview keeps
struct's item size, the one PEP 3118 gives (itemsize == struct.calcsize(format)) and
every CPython exporter states. Arrays memview makes export a spelling both read alike
("<i1x"); imported arrays export their exporter's format as it is written
(tests/test_format_passthrough.py), and memview's own way into NumPy
(memview._core.numpy_view, under __array__) reads them alike.

The differential fuzz at the end makes random record formats, from struct's grammar and
from NumPy's, checks NumPy's reading of every export against memview's, and writes into
NumPy arrays of those dtypes through memview and through NumPy on two copies of the
same memory: every byte must agree, the gaps between fields included.
MEMVIEW_RECORD_CASES sets the number of formats (default 2000), MEMVIEW_RECORD_SEED the
random seed."""
import math
import os
import random
import struct

import numpy as np
import pytest
from numpy._core._internal import _dtype_from_pep3118

import memview as mv
from memview import _core

tb = pytest.importorskip("_testbuffer", reason="CPython's _testbuffer test module is not built")

CASES = int(os.environ.get("MEMVIEW_RECORD_CASES", "2000"))
SEED = int(os.environ.get("MEMVIEW_RECORD_SEED", "3118"))


def np_leaves(dt, base=0, out=None):
    """The leaves of a NumPy dtype holding bytes: (offset, element size), one per element."""
    out = [] if out is None else out
    if dt.fields is not None:
        for name in dt.names:
            t, off = dt.fields[name][:2]
            np_leaves(t, base + off, out)
    elif dt.subdtype is not None:
        sub, shape = dt.subdtype
        for i in range(math.prod(shape)):
            np_leaves(sub, base + i * sub.itemsize, out)
    elif dt.itemsize:
        out.append((base, dt.itemsize))
    return out


def mv_leaves(desc, base=0, out=None):
    """The same of a memview item descriptor (mv.item_desc)."""
    out = [] if out is None else out
    for f in desc["fields"]:
        for i in range(f["repeat"]):
            off = base + f["offset"] + i * f["size"]
            if f["record"] is not None:
                mv_leaves(f["record"], off, out)
            elif f["code"] == "w":
                out.extend((off + 4 * k, 4) for k in range(f["size"] // 4))  # NumPy's U is 4-byte leaves
            elif f["size"]:
                out.append((off, f["size"]))
    return out


def _flat(leaves):
    """Leaves split into bytes: NumPy's 'S3' is one leaf, memview's '3c' three."""
    return sorted((o + k, 1) for o, n in leaves for k in range(n)) if leaves else []


def _plain(v):
    """NumPy's tolist() leaves sub-array fields as ndarrays; memview gives lists."""
    if isinstance(v, tuple):
        return tuple(_plain(x) for x in v)
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, np.ndarray):
        return _plain(v.tolist())
    return v


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
        out += [(name + "." + n, o, k) for n, o, k in _offsets(t, base + off)]
    return out


def check_read_alike(a):
    """NumPy reads a's export as memview reads a: item size, leaves, the bytes, no copy."""
    with memoryview(a) as m:
        fmt, itemsize, raw = m.format, m.itemsize, m.tobytes()
    assert itemsize == a.itemsize
    theirs = _dtype_from_pep3118(fmt)
    assert theirs.itemsize == a.itemsize, (fmt, theirs)
    assert np_leaves(theirs) == mv_leaves(mv.item_desc(a)) or \
        _flat(np_leaves(theirs)) == _flat(mv_leaves(mv.item_desc(a))), (fmt, theirs)
    n = np.asarray(a)
    assert n.tobytes() == raw and n.dtype.itemsize == a.itemsize or n.shape[:a.ndim] == a.shape
    if a.size:
        assert n.__array_interface__["data"][0] == a.ptr
    del n
    return fmt


def check_numpy_view(a):
    """check_read_alike of the view memview reads a into NumPy through (a itself
    where a's own spelling is the one memview makes); its format."""
    nv = _core.numpy_view(a)
    try:
        return check_read_alike(nv)
    finally:
        if nv is not a:
            nv.release()


# formats whose item NumPy pads and struct does not, and others NumPy reads otherwise
DIFFER = ["ix", "ib", "i:a:b:b:", "db", "qe", "3ix", "bib", "lx", "Pb", "nb", "i2s", "Zdb", "gb", "T{i:a:b:b:}b",
          "(2)ib", "i 2x d", " d ", "N", "e="]


@pytest.mark.parametrize("fmt", DIFFER)
def test_made_arrays_are_read_by_numpy_alike(fmt):
    a = mv.zeros((2, 3), dtype=fmt)
    out = check_read_alike(a)
    if fmt in ("ix", "ib", "db", "qe", "3ix", "bib", "lx", "Pb", "nb", "i2s", "i 2x d", " d ", "N"):
        assert struct.calcsize(out) == struct.calcsize(fmt) == a.itemsize  # still struct's grammar
    # writes through NumPy's view are memview's
    n = np.asarray(a)
    n.view(np.uint8).reshape(-1)[:] = np.arange(n.nbytes, dtype=np.uint8) % 251
    with memoryview(a) as m:
        assert m.tobytes() == n.tobytes()
    del n
    a.release()


def test_the_issue_example():
    with mv.zeros(4, dtype="ix") as a:
        n = np.asarray(a)
        assert n.dtype.itemsize == 5 and n.dtype.names == ("f0",) and n.dtype.fields["f0"][1] == 0
        assert a.itemsize == struct.calcsize("ix") == 5
        with memoryview(a) as m:
            assert m.format == "<i1x" and m.itemsize == 5 and m.nbytes == 20
        del n


STRUCT_SOURCES = [("ix", (7,)), ("ib", (-3, 4)), ("3ix", (1, 2, 3)), ("db", (2.5, 9)), ("qe", (-1, 0.5)),
                  ("bib", (1, -2, 3)), ("lx", (1 << 40,)), ("Pb", (4096, 1)), ("nb", (-5, 6)), ("i2s", (8, b"ab")),
                  ("hd", (1, 2.5))]


@pytest.mark.parametrize("fmt, item", STRUCT_SOURCES, ids=[f for f, _ in STRUCT_SOURCES])
def test_testbuffer_sources_are_read_by_numpy_alike(fmt, item):
    ref = tb.ndarray([item] * 4, shape=[4], format=fmt, flags=tb.ND_WRITABLE)
    a = mv.from_buffer(ref)
    with memoryview(a) as m:
        assert m.format == fmt  # the exporter's spelling, byte for byte
    out = check_numpy_view(a)  # memview's own way into NumPy: a spelling NumPy reads alike
    assert struct.calcsize(out) == struct.calcsize(fmt)
    with memoryview(a) as m, memoryview(ref) as r:
        assert m.tobytes() == r.tobytes() and m.itemsize == r.itemsize == struct.calcsize(out)
        assert struct.unpack_from(out, m, a.itemsize) == struct.unpack_from(fmt, r, ref.itemsize)
    n = a.__array__()
    assert a.tolist() == _plain(n.tolist())  # the values NumPy reads: records of struct's values
    n[1] = n[0]  # NumPy writes the exporter's memory
    with memoryview(ref) as r:
        assert r.tobytes()[ref.itemsize:2 * ref.itemsize] == r.tobytes()[:ref.itemsize]
    del n
    n = a.__array__()
    again = mv.from_buffer(n)  # and memview reads NumPy's reading back (NumPy names the fields)
    assert again.itemsize == a.itemsize and mv_leaves(mv.item_desc(again)) == mv_leaves(mv.item_desc(a))
    assert again.tolist() == a.tolist()
    again.release()
    del again, n
    a.release()


NUMPY_SOURCES = [
    np.dtype({"names": ["a"], "formats": ["<i4"], "itemsize": 5}),
    np.dtype({"names": ["a", "b"], "formats": ["<f8", "u1"], "offsets": [0, 8], "itemsize": 16}),
    np.dtype({"names": ["a", "b"], "formats": ["<f8", "u1"], "offsets": [0, 8], "itemsize": 12}),
    np.dtype({"names": ["b", "a"], "formats": ["u1", "<i4"], "offsets": [0, 4], "itemsize": 9}),
    np.dtype([("a", "<i4"), ("b", "u1")], align=True),
    np.dtype([("a", "<i4"), ("b", "u1")]),
    np.dtype([("a", "u1"), ("r", np.dtype([("x", "<f8"), ("y", "u1")], align=True), (2,)), ("z", "<i2")]),
    np.dtype([("a", ">i4"), ("p", "V3"), ("s", "S3"), ("u", "<U2")], align=True),
]


@pytest.mark.parametrize("dt", NUMPY_SOURCES, ids=str)
def test_numpy_structured_sources_come_back_alike(dt):
    x = np.zeros((3, 2), dt)
    x.view(np.uint8)[...] = np.arange(x.nbytes, dtype=np.uint8).reshape(x.view(np.uint8).shape) % 200
    a = mv.from_buffer(x)
    check_numpy_view(a)
    back = a.__array__()
    assert back.tobytes() == x.tobytes() and back.dtype.itemsize == dt.itemsize
    # NumPy's own reading of its format where that has the item size: NumPy writes an aligned
    # record inside a packed one without its padding ("T{=d:x:B:y:}" for 16 bytes); else
    # the dtype itself, whose padding at the end NumPy's format leaves out ("T{=i:a:}" for 5)
    with memoryview(x) as m:
        own = _numpy_reading(m.format)
    want = own if own is not None and own.itemsize == dt.itemsize else dt
    assert back.dtype == want or _offsets(back.dtype) == _offsets(want)  # NumPy may tell aligned records apart
    with a[::-1, 1] as v:  # views too
        assert v.__array__().dtype == back.dtype and _plain(v.__array__().tolist()) == _plain(back[::-1, 1].tolist())
    del back
    a.release()


# -- the differential fuzz
STRUCT_CODES = "?cbBhHiIlLqQnNefdsxP"
NP_CODES = ["?", "b", "B", "h", "H", "i", "I", "l", "L", "q", "Q", "e", "f", "d", "Zf", "Zd", "s", "c", "x", "g",
            "Zg", "w"]


def struct_format(r):
    """A random format of struct's grammar: one prefix, counts, codes, sometimes spaces."""
    items = []
    for _ in range(r.randint(1, 5)):
        code = r.choice(STRUCT_CODES)
        items.append(r.choice(["", "", "", "0", "1", "2", "3"]) + code)
    return r.choice(["", "", "@", "=", "<", ">", "!"]) + r.choice(["", "", " "]).join(items)


def record_items(r, depth, names):
    """Random items of NumPy's grammar: a shape, then a prefix, a count, a code or
    a record, a name."""
    parts = []
    for _ in range(r.randint(1, 4)):
        item = ""
        if r.random() < 0.2:
            item += "(" + ",".join(str(r.randint(1, 3)) for _ in range(r.randint(1, 2))) + ")"
        prefix = r.choice("@=<>!^") if r.random() < 0.35 else ""
        count = str(r.choice([0, 1, 2, 3])) if r.random() < 0.35 else ""
        if depth < 3 and r.random() < 0.2:
            body = "T{" + record_items(r, depth + 1, set()) + "}"
        else:
            body = r.choice(NP_CODES)
            if body in ("g", "Zg") and prefix not in ("@", "^"):
                prefix = r.choice("@^")  # NumPy reads long doubles with native sizes only
        item += prefix + count + body
        if r.random() < 0.6:
            name = "n%d" % len(names)
            names.add(name)
            item += ":" + name + ":"
        parts.append(item)
    return "".join(parts)


def _struct_items(fmt):
    """One item of a struct format for _testbuffer, from zero bytes."""
    vals = struct.unpack(fmt, bytes(struct.calcsize(fmt)))
    return vals if len(vals) != 1 else vals[0]


def test_records_fuzz_against_numpy():
    r = random.Random(SEED)
    checked = {"struct": 0, "records": 0, "respelled": 0, "unrepresentable": 0, "numpy": 0, "numpy padded": 0,
               "numpy refused": 0, "writes": 0}
    for k in range(CASES):
        if k % 3 == 0:
            fmt = struct_format(r)
            try:
                size = struct.calcsize(fmt)
            except struct.error:
                continue
            if size == 0:
                continue
            items = _struct_items(fmt)
            if items == ():
                continue  # padding only: no values for _testbuffer
            src = tb.ndarray([items] * 3, shape=[3], format=fmt, flags=tb.ND_WRITABLE)
            a = mv.from_buffer(src)
            kind = "struct"
        else:
            fmt = record_items(r, 0, set())
            theirs = _numpy_reading(fmt)
            if theirs is not None and theirs.itemsize:
                check_numpy_source(np.zeros(4, theirs), checked, r)
            try:
                a = mv.zeros(3, dtype=fmt)
            except TypeError:
                continue  # items of 0 bytes
            src, kind = None, "records"
        try:
            if kind == "records" and _numpy_reading(fmt) is None and _numpy_reading(a.format) is None:
                # a layout NumPy has no dtype for (a sub-array of empty strings): no differential
                checked["unrepresentable"] += 1
                continue
            if kind == "struct":
                with memoryview(a) as m, memoryview(src) as s:
                    assert m.format == fmt and m.tobytes() == s.tobytes()  # the exporter's spelling
                out = check_numpy_view(a)
                assert struct.calcsize(out) == a.itemsize, (fmt, out)
            else:
                out = check_read_alike(a)  # a made array: a spelling NumPy reads alike
            checked[kind] += 1
            checked["respelled"] += out != fmt
        finally:
            a.release()
    assert checked["struct"] > CASES // 5 and checked["records"] > CASES // 3 and checked["respelled"] > CASES // 20, \
        checked
    assert checked["unrepresentable"] < CASES // 50 and checked["numpy"] > CASES // 4, checked
    assert checked["numpy refused"] < CASES // 20 and checked["writes"] > CASES // 5, checked
    print(checked)


def check_numpy_source(x, checked, r):
    """A NumPy array of the dtype NumPy reads from a random format: memview imports it
    keeping its format (or, where the format misstates the item size, a corrected
    spelling NumPy reads alike), NumPy reads memview's own view of it alike, and
    writes through memview change the bytes NumPy's writes change and no others.
    Where NumPy cannot read its own export (it writes some records of mixed
    alignment with less padding than it reads back, or without the padding at their
    end, or a record of padding alone as "T{}"), memview adds the padding left out at
    the end, or refuses the format."""
    with memoryview(x) as m:
        fmt = m.format
        own = _numpy_reading(fmt)
    try:
        b = mv.from_buffer(x)
    except (ValueError, TypeError):
        assert own is None or own.itemsize != x.dtype.itemsize, x.dtype
        checked["numpy refused"] += 1
        return
    try:
        with memoryview(b) as m:
            mine = _size_read(fmt)
            assert m.format == fmt if mine == x.dtype.itemsize else _numpy_reading(m.format) is not None, \
                (fmt, m.format)
        check_numpy_view(b)
        back = b.__array__()
        assert back.dtype.itemsize == x.dtype.itemsize and back.tobytes() == x.tobytes()
        if own is not None and own.itemsize == x.dtype.itemsize:
            assert _flat(np_leaves(back.dtype)) == _flat(np_leaves(own))
        else:
            checked["numpy padded"] += 1
        del back
        checked["numpy"] += 1
    finally:
        b.release()
    if own is not None and own == x.dtype:
        # (where NumPy's format misstates its own dtype's fields, memview reads what the format says)
        check_writes(x.dtype, r)
        checked["writes"] += 1


def _size_read(fmt):
    try:
        return mv.item_desc(fmt)["size"]
    except (ValueError, TypeError):
        return None


def _kinds(dt, base=0, out=None):
    """(offset, kind) of every bool and UCS-4 character of a NumPy dtype's items."""
    out = [] if out is None else out
    if dt.fields is not None:
        for name in dt.names:
            t, off = dt.fields[name][:2]
            _kinds(t, base + off, out)
    elif dt.subdtype is not None:
        sub, shape = dt.subdtype
        for i in range(math.prod(shape)):
            _kinds(sub, base + i * sub.itemsize, out)
    elif dt.kind == "b":
        out.append((base, "b"))
    elif dt.kind == "U":
        out += [(base + 4 * k, "U") for k in range(dt.itemsize // 4)]
    return out


def _valid(dt, n, r):
    """Random bytes for n items of dt, with the bools 0 or 1 and the characters code
    points (other bytes are no values of those types: NumPy itself cannot read them)."""
    raw = bytearray(r.randrange(256) for _ in range(n * dt.itemsize))
    for i in range(n):
        for off, kind in _kinds(dt, i * dt.itemsize):
            if kind == "b":
                raw[off] &= 1
            else:
                raw[off + 2:off + 4] = b"\0\0"
                raw[off + 1] &= 0x7f  # below the surrogates
    return bytes(raw)


def check_writes(dt, r):
    """Random writes that move bytes — element copies, overlapping slices, np.void
    and ndarray sources, broadcasts, multi-field views — done by NumPy and by memview
    on two copies of one random buffer of items of dt: every byte must agree."""
    n = 5
    raw = _valid(dt, n, r)
    bases = [np.frombuffer(bytearray(raw), dt) for _ in range(2)]
    names = [nm for nm in (dt.names or ()) if dt.fields[nm][0].itemsize]
    if len(names) >= 2 and r.random() < 0.5:
        pick = sorted(r.sample(range(len(names)), r.randint(1, len(names) - 1)))
        try:
            views = [b[[names[i] for i in pick]] for b in bases]
        except (ValueError, KeyError):
            views = list(bases)
    else:
        views = list(bases)
    nv, mbase = views
    try:
        m = mv.from_buffer(mbase)
    except (ValueError, TypeError):
        return  # a format memview refuses (NumPy's own misstated ones): checked above
    other = np.frombuffer(_valid(nv.dtype, n, r), nv.dtype)
    i, j = r.randrange(n), r.randrange(n)
    ops = [
        lambda v, src: v.__setitem__(i, v[j]),
        lambda v, src: v.__setitem__(slice(None), v[::-1]),
        lambda v, src: v.__setitem__(slice(1, None), v[:-1]),
        lambda v, src: v.__setitem__(slice(0, 4, 2), src[1::2]),
        lambda v, src: v.__setitem__(i, other[j]),
        lambda v, src: v.__setitem__(Ellipsis, other[j]),
        lambda v, src: v.__setitem__(Ellipsis, src),
    ]
    if nv.dtype.names is None:
        # elements of a plain dtype are Python numbers (a long double's the nearest
        # float, as documented): its writes that move bytes are the slices'
        ops = ops[1:4] + ops[6:]
    try:
        with mv.from_buffer(other) as mo:
            for op in r.sample(ops, 3):
                op(nv, other)
                op(m, mo)
                a, b = (x.view(np.uint8).tobytes() for x in bases)
                assert a == b, (dt, nv.dtype, [k for k in range(len(a)) if a[k] != b[k]][:8])
    finally:
        m.release()


def _numpy_reading(fmt):
    try:
        return _dtype_from_pep3118(fmt)
    except (ValueError, TypeError, KeyError, IndexError, NotImplementedError, RuntimeError):
        return None
