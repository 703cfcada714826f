"""Record fields by name, as NumPy has them: a["b"] is a view of one field,
a[["a", "c"]] a multi-field view, and an element reads as a memview.record that
takes a field name or a position. Each is compared with NumPy on the same
memory: layouts, values, writes (byte for byte) and errors."""
import numpy as np
import pytest

import memview as mv

DT = np.dtype([("a", "<u4"), ("b", "<f8"), ("c", "<i2"), ("d", "<f4", (2, 3)), ("e", [("x", "u1"), ("y", "<i8")])])


def _pair(shape=(5,)):
    base = np.zeros(shape, DT)
    flat = base.reshape(-1)
    for i in range(flat.size):
        flat[i] = (i, i + 0.5, -i, np.arange(6).reshape(2, 3) + i, (i % 256, 10 * i))
    return base, mv.from_buffer(base)


@pytest.mark.parametrize("name", ["a", "b", "c", "d", "e"])
def test_one_field_is_numpys_view(name):
    n, m = _pair((3, 4))
    f, nf = m[name], n[name]
    assert (f.shape, f.strides, f.ptr - m.ptr) == (nf.shape, nf.strides, nf.ctypes.data - n.ctypes.data)
    assert np.asarray(f).tolist() == nf.tolist()
    assert np.shares_memory(np.asarray(f), n)
    f[...] = np.ones(nf.shape, nf.dtype) * 7 if nf.dtype.names is None else np.ones(nf.shape, nf.dtype)
    want = n.copy()
    want[name] = np.ones(nf.shape, nf.dtype) * 7 if nf.dtype.names is None else np.ones(nf.shape, nf.dtype)
    assert n.tobytes() == want.tobytes()  # only that field's bytes changed
    f.release()


def test_views_of_fields_of_views():
    n, m = _pair((6,))
    v, nv = m[::-2]["b"], n[::-2]["b"]
    assert v.tolist() == nv.tolist() and v.strides == nv.strides
    v[1] = -1.0
    assert n["b"][3] == -1.0
    e, ne = m["e"]["y"], n["e"]["y"]
    assert e.tolist() == ne.tolist() and (e.ptr - m.ptr) == ne.ctypes.data - n.ctypes.data


def test_multi_field_views_are_numpys():
    n, m = _pair()
    for names in (["a", "c"], ["b"], ["a", "d", "e"], ["b", "e"]):
        v, nv = m[names], n[names]
        assert v.itemsize == nv.itemsize and v.dtype.names == nv.dtype.names, names
        assert all(np.array_equal(np.asarray(v)[f], nv[f]) for f in names), names
        before = n.copy()
        v[0] = nv[1]               # writes only the selected fields
        before[names][0] = nv[1]
        assert n.tobytes() == before.tobytes(), names
    # NumPy's views of fields out of their offsets' order have no PEP 3118 format
    with pytest.raises(ValueError, match="not in the order of their offsets"):
        m[["c", "a"]]


def test_elements_are_records_with_names():
    n, m = _pair()
    r = m[2]
    assert isinstance(r, mv.record) and isinstance(r, tuple)
    assert r[:3] == n[2].item()[:3] and r[3] == n[2]["d"].tolist()
    assert r["a"] == 2 and r[0] == 2 and r["b"] == 2.5 and r[-1] == (2, 20)
    assert r.names == DT.names and dict(zip(r.keys(), r))["c"] == -2
    m[0] = r                       # an element of this layout: its bytes, exactly
    assert n[0].tobytes() == n[2].tobytes()
    with pytest.raises(KeyError, match="no field 'z'"):
        r["z"]


@pytest.mark.parametrize("key, exc, match", [
    ("z", ValueError, "no field of name z"),
    (["a", "z"], KeyError, "no field of name z"),
    (["a", "a"], ValueError, "duplicate"),
])
def test_bad_field_names_raise_as_numpy(key, exc, match):
    n, m = _pair()
    with pytest.raises(exc):
        n[key]
    with pytest.raises(exc, match=match):
        m[key]
    with pytest.raises(exc):
        m[key] = 0
    assert np.asarray(m).tobytes() == n.tobytes()


def test_names_on_arrays_without_fields_are_not_indices():
    a = mv.zeros(3)
    for key in ("a", ["a"]):
        with pytest.raises(IndexError, match="only integers"):
            a[key]
        with pytest.raises(IndexError, match="only integers"):
            a[key] = 1
    with pytest.raises(IndexError):
        np.zeros(3)["a"]
    a.release()


def test_field_views_release_memory():
    pool = mv.default_pool()
    before = pool.bytes_allocated
    r = mv.zeros(4, "T{<I:id:>d:height:}")
    h = r["height"]
    r.release()                    # the field's view keeps the memory
    h[:] = [1.0, 2.0, 3.0, 4.0]
    assert h.tolist() == [1.0, 2.0, 3.0, 4.0] and h.format == ">d"
    h.release()
    assert pool.bytes_allocated == before
