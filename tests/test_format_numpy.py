"""NumPy reads every array memview makes or exports with memview's item size and field
offsets. NumPy's PEP 3118 reader differs from struct's: it reads the whole item as a
record and pads it to its alignment under '@' (struct.calcsize("ix") is 5, NumPy makes
"ix" 8 bytes), and it has no 'n', 'N' or 'P' and no whitespace. memview keeps struct's
item size, the one PEP 3118 gives (itemsize == struct.calcsize(format)) and every CPython
exporter states, and where NumPy would read the format otherwise exports a spelling both
read alike ("<i1x"); memoryview sees the same bytes.

The differential fuzz at the end makes random record formats, from struct's grammar and
from NumPy's, and checks NumPy's reading of every export against memview's.
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
    out = check_read_alike(a)
    theirs = _numpy_reading(fmt)
    assert (out == fmt) == (theirs is not None and theirs.itemsize == struct.calcsize(fmt))
    with memoryview(a) as m, memoryview(ref) as r:
        assert m.tobytes() == r.tobytes() and m.itemsize == r.itemsize == struct.calcsize(out)
        assert struct.unpack_from(out, m, a.itemsize) == struct.unpack_from(fmt, r, ref.itemsize)
    n = np.asarray(a)
    assert a.tolist() == _plain(n.tolist())  # the values NumPy reads: records of struct's values
    n[1] = n[0]  # NumPy writes the exporter's memory
    with memoryview(ref) as r:
        assert r.tobytes()[ref.itemsize:2 * ref.itemsize] == r.tobytes()[:ref.itemsize]
    del n
    n = np.asarray(a)
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
    check_read_alike(a)
    back = np.asarray(a)
    assert back.tobytes() == x.tobytes() and back.dtype.itemsize == dt.itemsize
    # NumPy's own reading of its format where that has the item size: NumPy writes an aligned
    # record inside a packed one without its padding ("T{=d:x:B:y:}" for 16 bytes); else
    # the dtype itself, whose padding at the end NumPy's format leaves out ("T{=i:a:}" for 5)
    with memoryview(x) as m:
        own = _numpy_reading(m.format)
    want = own if own is not None and own.itemsize == dt.itemsize else dt
    assert back.dtype == want or _offsets(back.dtype) == _offsets(want)  # NumPy may tell aligned records apart
    with a[::-1, 1] as v:  # views too
        assert np.asarray(v).dtype == back.dtype and _plain(np.asarray(v).tolist()) == _plain(back[::-1, 1].tolist())
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
    checked = {"struct": 0, "records": 0, "rewritten": 0, "unrepresentable": 0, "numpy": 0, "numpy padded": 0, "numpy refused": 0}
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
                check_numpy_source(np.zeros(2, theirs), checked)
            try:
                a = mv.zeros(3, dtype=fmt)
            except TypeError:
                continue  # items of 0 bytes
            src, kind = None, "records"
        try:
            with memoryview(a) as m:
                out = m.format
            if kind == "records" and out == fmt and _numpy_reading(fmt) is None:
                # a layout NumPy has no dtype for (a sub-array of empty strings): no differential
                checked["unrepresentable"] += 1
                continue
            out = check_read_alike(a)
            if kind == "struct":
                assert struct.calcsize(out) == a.itemsize, (fmt, out)
                with memoryview(a) as m, memoryview(src) as s:
                    assert m.tobytes() == s.tobytes()
            checked[kind] += 1
            checked["rewritten"] += out != fmt
        finally:
            a.release()
    assert checked["struct"] > CASES // 5 and checked["records"] > CASES // 3 and checked["rewritten"] > CASES // 20, \
        checked
    assert checked["unrepresentable"] < CASES // 50 and checked["numpy"] > CASES // 4, checked
    assert checked["numpy refused"] < CASES // 20, checked
    print(checked)


def check_numpy_source(x, checked):
    """A NumPy array of the dtype NumPy reads from a random format: memview imports it
    as NumPy reads its export, and NumPy reads memview's export alike. Where NumPy
    cannot read its own export (it writes some records of mixed alignment with less
    padding than it reads back, or without the padding at their end, or a record of
    padding alone as "T{}"), memview adds the padding left out at the end, or refuses
    the format."""
    with memoryview(x) as m:
        own = _numpy_reading(m.format)
    try:
        b = mv.from_buffer(x)
    except (ValueError, TypeError):
        assert own is None or own.itemsize != x.dtype.itemsize, x.dtype
        checked["numpy refused"] += 1
        return
    try:
        check_read_alike(b)
        back = np.asarray(b)
        assert back.dtype.itemsize == x.dtype.itemsize and back.tobytes() == x.tobytes()
        if own is not None and own.itemsize == x.dtype.itemsize:
            assert _flat(np_leaves(back.dtype)) == _flat(np_leaves(own))
        else:
            checked["numpy padded"] += 1
        del back
        checked["numpy"] += 1
    finally:
        b.release()


def _numpy_reading(fmt):
    try:
        return _dtype_from_pep3118(fmt)
    except (ValueError, TypeError, KeyError, IndexError, NotImplementedError, RuntimeError):
        return None
