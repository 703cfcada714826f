"""Writes into record arrays touch only the bytes of fields, as NumPy's do: a record's
gaps may be other fields of the same memory (NumPy's multi-field views, dtypes with
offsets, overlapping views of one buffer), so memview never writes them.

A differential test against NumPy on the same memory: every kind of write — an
element from a tuple, a dict or an np.void record scalar, record assignment from
memview arrays and NumPy arrays (same dtype, multi-field views, other record dtypes
by position), fills with a record, a number broadcast into every field, copies onto
overlapping views — is done once by NumPy and once by memview on two copies of one
random base buffer, and every byte of the two bases, gaps included, must agree.

This is an acceptance test of the C engine that does host writes: it must pass
unchanged whichever engine moves the bytes."""
import random

import numpy as np
import pytest

import memview as mv

FULL = np.dtype([("a", "<u4"), ("b", "<u2"), ("c", "<u2")])
DTYPES = {
    "multi-field view": (FULL, ["a", "c"]),
    "offsets": (np.dtype({"names": ["x", "y"], "formats": ["<i2", ">f8"], "offsets": [2, 8], "itemsize": 20}), None),
    "aligned": (np.dtype([("k", "u1"), ("d", "<f8"), ("h", ">i2")], align=True), None),
    # NumPy leaves a nested record's trailing padding out of its format: one without any
    "nested": (np.dtype({"names": ["id", "pos", "z"], "offsets": [0, 4, 13], "itemsize": 15,
                         "formats": ["u1", np.dtype({"names": ["x", "k"], "formats": [">f4", "u1"], "offsets": [0, 6],
                                                     "itemsize": 7}), ">i2"]}), None),
    "sub-arrays": (np.dtype({"names": ["m", "s"], "formats": [("<i2", (2, 3)), "S3"], "offsets": [4, 20],
                             "itemsize": 28}), None),
    "byte-swapped": (np.dtype({"names": ["p", "q"], "formats": [">u4", ">f4"], "offsets": [0, 8], "itemsize": 16}),
                     None),
    "multi-field of nested": (np.dtype([("a", "<i4"), ("r", [("x", "<i2"), ("y", "u1")]), ("b", "<f8")]),
                              ["a", "b"]),
}


def _pair(dt, names, n=6, seed=0):
    """Two identical random bases of n items of dt and, over each, the array
    written to: the whole items, or the multi-field view of names."""
    r = np.random.default_rng(seed)
    raw = r.integers(0, 256, n * dt.itemsize, dtype=np.uint8).tobytes()
    bases = [np.frombuffer(bytearray(raw), dt) for _ in range(2)]
    views = [b[names] if names else b for b in bases]
    return bases, views


def _values(view, k):
    """k records of view's dtype with plain, exactly representable values."""
    out = np.zeros(k, view.dtype)
    raw = out.view(np.uint8).reshape(k, -1)
    for name in view.dtype.names:
        f = out[name]
        if f.dtype.kind in "iu":
            f[...] = np.arange(1, k + 1).reshape((k,) + (1,) * (f.ndim - 1)) * 3
        elif f.dtype.kind == "f":
            f[...] = np.arange(k).reshape((k,) + (1,) * (f.ndim - 1)) + 0.5
        elif f.dtype.kind == "S":
            f[...] = [b"x%d" % i for i in range(k)]
        elif f.dtype.names:
            for sub in f.dtype.names:
                f[sub] = np.arange(k) + 7
    del raw
    return out


def _field_bytes(dt: np.dtype) -> list[bool]:
    """For each byte of an item of dt, whether a field (at any depth) holds it."""
    mask = [False] * dt.itemsize
    if dt.names is None:
        if dt.subdtype is not None and dt.subdtype[0].names is not None:
            inner = _field_bytes(dt.subdtype[0])
            return inner * (dt.itemsize // max(len(inner), 1))
        return [True] * dt.itemsize
    for name in dt.names:
        t, off = dt.fields[name][:2]
        mask[off:off + t.itemsize] = _field_bytes(t)
    return mask


def _same(bases, what):
    """The two bases agree byte for byte. NumPy 2.5 copies an aligned struct's
    padding along with its fields where source and target have that dtype (from
    wherever the source's padding came, uninitialised memory included); memview
    writes only field bytes, so there the fields are compared, and
    _gaps_kept checks that memview left the padding alone."""
    a, b = (x.view(np.uint8).tobytes() for x in bases)
    dt = bases[0].dtype
    if a != b and dt.isalignedstruct:
        keep = _field_bytes(dt) * len(bases[0])
        a, b = (bytes(x for x, k in zip(v, keep) if k) for v in (a, b))
    assert a == b, f"{what}: bytes differ at {[i for i in range(len(a)) if a[i] != b[i]][:8]}"


def _gaps_kept(base, raw: bytes, view_dt: np.dtype, what: str):
    """Every byte of base that no field of the written view's dtype holds is as it was."""
    keep = _field_bytes(view_dt) + [False] * (base.dtype.itemsize - view_dt.itemsize)
    now = base.view(np.uint8).tobytes()
    moved = [i for i in range(len(now)) if not keep[i % len(keep)] and now[i] != raw[i]]
    assert not moved, f"{what}: memview wrote gap bytes {moved[:8]}"


WRITES = {
    "element from a tuple": lambda v, src: v.__setitem__(1, src[0].item()),
    "element from an np.void": lambda v, src: v.__setitem__(2, src[1]),
    "element from another element": lambda v, src: v.__setitem__(0, v[3]),
    "rows from an ndarray": lambda v, src: v.__setitem__(slice(1, 4), src[:3]),
    "broadcast a record": lambda v, src: v.__setitem__(Ellipsis, src[0]),
    "a number into every field": lambda v, src: v.__setitem__(slice(None, None, 2), 5),
    "reversed onto itself": lambda v, src: v.__setitem__(slice(None), v[::-1]),
    "shifted onto itself": lambda v, src: v.__setitem__(slice(1, None), v[:-1]),
    "strided from strided": lambda v, src: v.__setitem__(slice(None, None, 2), v[1::2]),
}


@pytest.mark.parametrize("write", WRITES, ids=list(WRITES))
@pytest.mark.parametrize("kind", DTYPES, ids=list(DTYPES))
def test_writes_touch_only_field_bytes(kind, write):
    dt, names = DTYPES[kind]
    bases, (nv, mbase) = _pair(dt, names)
    src = _values(nv, 4)
    m = mv.from_buffer(mbase)
    raw = bases[1].view(np.uint8).tobytes()
    WRITES[write](nv, src)
    WRITES[write](m, src)
    _same(bases, f"{kind}: {write}")
    _gaps_kept(bases[1], raw, nv.dtype, f"{kind}: {write}")
    m.release()


@pytest.mark.parametrize("kind", DTYPES, ids=list(DTYPES))
def test_fills_and_memview_sources(kind):
    dt, names = DTYPES[kind]
    bases, (nv, mbase) = _pair(dt, names, seed=1)
    src = _values(nv, 6)
    m = mv.from_buffer(mbase)
    nv.fill(src[2])
    m.fill(src[2].item())
    _same(bases, f"{kind}: fill with a tuple")
    # a memview array of the same dtype as the source: a copy, gaps left alone
    s = mv.from_buffer(src)
    nv[...] = src
    m[...] = s
    _same(bases, f"{kind}: from a memview array")
    # a dict names every field
    d = {n: src[3].item()[k] for k, n in enumerate(nv.dtype.names)}
    nv[4] = src[3]
    m[4] = d
    _same(bases, f"{kind}: element from a dict")
    s.release()
    m.release()


def test_other_record_dtypes_assign_by_position():
    bases, (nv, mbase) = _pair(FULL, ["a", "c"], seed=2)
    other = np.array([(1, 2.0), (3, 4.0), (5, 6.0), (7, 8.0), (9, 10.0), (11, 12.0)], [("p", "<i8"), ("q", "<f4")])
    m = mv.from_buffer(mbase)
    nv[...] = other
    m[...] = other
    _same(bases, "by position from an ndarray")
    with mv.from_buffer(other) as o:
        nv[::-1] = other
        m[::-1] = o
    _same(bases, "by position from a memview array")
    m.release()


def test_the_issue_example():
    full = np.zeros(2, FULL)
    full["b"] = 7
    m = mv.from_buffer(full[["a", "c"]])
    m[0] = (5, 6)
    assert full["b"][0] == 7 and full[0].tolist() == (5, 7, 6)
    m.release()


def test_overlapping_record_views():
    """Two views of one buffer whose items are offset by less than the item size:
    NumPy copies as if through a temporary, and writes only field bytes."""
    dt = np.dtype({"names": ["a", "c"], "formats": ["<u2", "<u2"], "offsets": [0, 6], "itemsize": 8})
    for shift in (1, 2, 3, 5, 7):
        raw = bytes(random.Random(shift).randrange(256) for _ in range(8 * 9))
        bases = [np.frombuffer(bytearray(raw), np.uint8) for _ in range(2)]
        views = [(np.ndarray((8,), dt, b, 0, (8,)), np.ndarray((8,), dt, b, shift, (8,))) for b in bases]
        (n0, n1), (m0, m1) = views
        a0, a1 = mv.from_buffer(m0), mv.from_buffer(m1)
        n0[...] = n1
        a0[...] = a1
        _same(bases, f"shift {shift}: forwards")
        n1[::-1] = n0
        a1[::-1] = a0
        _same(bases, f"shift {shift}: reversed")
        a0.release()
        a1.release()


def test_size_zero_record_assignment():
    dt = np.dtype([("a", "<i4"), ("b", "<f8")])
    other = np.dtype([("p", "<i2"), ("q", "<f4")])
    with mv.zeros((4, 5, 3, 4), dtype=dt) as a:
        a[3, :0:2] = np.zeros((0, 3, 4), other)  # another record dtype: converted, shape kept
        a[3, :0:2] = np.zeros((0, 3, 4), dt)
        n = np.zeros((4, 5, 3, 4), dt)
        said = []
        for x in (n, a):
            try:
                x[3, :0:2] = np.zeros((0,), other)
            except ValueError as e:
                said.append(str(e).removeprefix("memview: "))
        assert said == ["could not broadcast input array from shape (0,) into shape (0,3,4)"] * 2


@pytest.mark.parametrize("value", [5, 2.5, True, -3])
def test_numbers_into_records_and_strings_as_numpy(value):
    """A number assigned to a record sets every field to it (a string field to its
    text), as NumPy does."""
    dt = np.dtype({"names": ["a", "s", "m", "r"], "offsets": [0, 4, 8, 16], "itemsize": 40,
                   "formats": ["<i4", "S3", ("<f4", (2,)), [("x", "<i2"), ("y", "<f8")]]})
    bases, (nv, mbase) = _pair(dt, None, n=3, seed=3)
    m = mv.from_buffer(mbase)
    nv[1] = value
    m[1] = value
    _same(bases, f"element = {value!r}")
    nv.fill(value)
    m.fill(value)
    _same(bases, f"fill({value!r})")
    m.release()
    s = np.zeros(3, "S4")
    with mv.from_buffer(s.copy()) as ms:
        s[0] = value
        ms[0] = value
        assert ms.tobytes() == s.tobytes()


def test_record_reads_and_writes_back_exactly():
    """a[i] of a record array is a memview.record: a tuple of its fields that takes
    their names, and keeps the element's bytes, so that assigning it back copies them
    exactly (a bool byte that is not 0 or 1, a long double, a NaN's payload)."""
    dt = np.dtype([("ok", "?"), ("g", "g"), ("f", "<f4"), ("s", "S2")])
    x = np.zeros(3, dt)
    raw = x.view(np.uint8)
    raw[:] = np.arange(raw.size, dtype=np.uint8) * 7 % 251
    ref = x.copy()
    with mv.from_buffer(x) as a:
        rec = a[1]
        assert isinstance(rec, mv.record) and isinstance(rec, tuple)
        assert rec == a.tolist()[1] and rec["f"] == rec[2] and rec.names == dt.names
        assert dict(zip(rec.keys(), rec)) == {n: rec[n] for n in dt.names}
        assert rec.tobytes() == ref[1].tobytes() and rec.dtype == a.dtype
        with pytest.raises(KeyError, match="no field 'z'"):
            rec["z"]
        import pickle
        assert pickle.loads(pickle.dumps(rec)).tobytes() == rec.tobytes()
        a[0] = rec
        ref[0] = ref[1]
        assert x.tobytes() == ref.tobytes()


def test_record_writes_in_a_forked_child():
    """A forked child writes records in C: only the bytes of fields, as in the parent."""
    from test_fork import run
    out = run("""
        full = np.zeros(4, [("a", "<u4"), ("b", "<u2"), ("c", "<u2")])
        full["b"] = 7
        m = mv.from_buffer(full[["a", "c"]])
        m.tolist()  # the parent read the records once (the child cannot ask Go what they are)
        def child():
            m[...] = (5, 6)                      # a fill with a record
            m[1:] = m[:-1]                       # an overlapping copy
            m.fill((1, 2))
            m[::2] = mv.from_buffer(full[["a", "c"]][1::2].copy())
            return full.tolist()
        print(in_child(child))
        ref = np.zeros(4, [("a", "<u4"), ("b", "<u2"), ("c", "<u2")])
        ref["b"] = 7
        v = ref[["a", "c"]]
        v[...] = np.array((5, 6), v.dtype)
        v[1:] = v[:-1].copy()
        v[...] = np.array((1, 2), v.dtype)
        v[::2] = v[1::2].copy()
        print(ref.tolist())
    """)
    child, parent = out.splitlines()
    assert child == parent and "7" in child, out
