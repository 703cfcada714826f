"""Basic indexing, views, reshape, transpose and copies agree with NumPy."""
import numpy as np
import pytest

import memview as mv

KEYS = [
    0, -1, 2, (1, 2), (1, 2, 3), (-1, -2, -3), slice(None), slice(1, 3), slice(None, None, -1),
    slice(None, None, 2), slice(-2, None), slice(5, 1, -2), slice(10, 20), slice(-100, 100, 3),
    (slice(None), 1), (Ellipsis, 0), (0, Ellipsis), (Ellipsis,), Ellipsis, (1, Ellipsis, 2),
    (None,), (None, 1), (slice(None), None, slice(None, None, -2)), (Ellipsis, None),
    (slice(None, None, -1), slice(None, None, -1), slice(None, None, -1)), (slice(2, 2),),
    (slice(1, 0),), (0, slice(None), None, slice(1, None, 2)), (), (slice(3, None, -1), 0),
]


def make_pair():
    """A NumPy array and a memview array with equal values (no fixture: the leak check
    must see every array gone)."""
    n = np.arange(3 * 4 * 5, dtype=np.float64).reshape(3, 4, 5)
    return n, mv.from_buffer(n.copy())


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_getitem_matches_numpy(key):
    n, a = make_pair()
    want = n[key]
    got = a[key]
    if np.ndim(want) == 0 and not isinstance(want, np.ndarray):
        assert not isinstance(got, mv.Array) and got == want
        return
    assert isinstance(got, mv.Array)
    assert got.shape == want.shape
    assert got.strides == want.strides
    assert got.tolist() == want.tolist()
    assert got.c_contiguous == want.flags.c_contiguous
    assert got.f_contiguous == want.flags.f_contiguous


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_setitem_matches_numpy(key):
    n, a = make_pair()
    n = n.copy()
    n[key] = -7
    a[key] = -7
    assert a.tolist() == n.tolist()


@pytest.mark.parametrize("key,exc", [
    (3, IndexError), (-4, IndexError), ((0, 4), IndexError), ((0, 0, 5), IndexError),
    ((0, 0, 0, 0), IndexError), ((Ellipsis, Ellipsis), IndexError), (slice(None, None, 0), ValueError),
    (1.5, IndexError), ("a", IndexError), (True, IndexError), ([0, 1], IndexError),
    (slice("a", None), TypeError), (1 << 70, IndexError),
])
def test_bad_indexes(key, exc):
    n, a = make_pair()
    before = a.tolist()
    with pytest.raises(exc):
        a[key]
    with pytest.raises(exc):
        a[key] = 1.0
    assert a.tolist() == before


def test_scalars_and_zero_d():
    a = mv.arange(6, dtype="int32").reshape(2, 3)
    assert a[1, 2] == 5 and isinstance(a[1, 2], int)
    z = a[1, 2, ...]
    assert isinstance(z, mv.Array) and z.ndim == 0 and z.shape == () and z.strides == ()
    assert z.item() == 5 and z.tolist() == 5 and z[()] == 5
    z[()] = 9
    assert a[1, 2] == 9
    with pytest.raises(TypeError):
        len(z)
    assert len(a) == 2 and [r.tolist() for r in a] == [[0, 1, 2], [3, 4, 9]]


def test_transpose_and_T():
    n = np.arange(24, dtype=np.int16).reshape(2, 3, 4)
    a = mv.from_buffer(n)
    for axes in [(), (1, 0, 2), (2, 0, 1), (-1, 0, 1)]:
        want = n.transpose(*axes) if axes else n.T
        got = a.transpose(*axes)
        assert got.shape == want.shape and got.strides == want.strides
        assert got.tolist() == want.tolist()
    assert a.T.tolist() == n.T.tolist()
    assert a.transpose((2, 1, 0)).shape == (4, 3, 2)
    for bad in [(0, 0, 1), (0, 1), (0, 1, 3)]:
        with pytest.raises(ValueError):
            a.transpose(*bad)


def test_reshape_view_or_refuse():
    n = np.arange(24, dtype=np.float32)
    a = mv.from_buffer(n)
    r = a.reshape(2, 3, 4)
    assert r.ptr == a.ptr and r.tolist() == n.reshape(2, 3, 4).tolist()
    assert a.reshape((4, -1)).shape == (4, 6)
    t = r[:, :, ::2].reshape(6, 2)  # merging compatible strided axes is still a view
    assert t.ptr == a.ptr and t.strides == (16, 8)
    assert t.tolist() == n.reshape(2, 3, 4)[:, :, ::2].reshape(6, 2).tolist()
    with pytest.raises(ValueError, match="copy"):
        r[:, ::2, :].reshape(2, 8)  # NumPy would copy here; memview refuses
    with pytest.raises(ValueError, match="copy"):
        r.T.reshape(24)  # needs a copy: refused, never silent
    assert r.T.copy().reshape(24).tolist() == n.reshape(2, 3, 4).T.reshape(24).tolist()
    for bad in [(5, 5), (-1, -1), (7, -1)]:
        with pytest.raises(ValueError):
            a.reshape(*bad)
    assert a[3:4].reshape(()).item() == 3.0


def test_copy_orders():
    n = np.arange(12, dtype=np.float64).reshape(3, 4)[::-1, ::2]
    a = mv.from_buffer(n)
    for order in "CFAK":
        c = a.copy(order=order)
        want = n.copy(order=order)
        assert c.tolist() == want.tolist()
        assert c.c_contiguous == want.flags.c_contiguous or order in "AK"
        assert not c.readonly and c.base is None
    with pytest.raises(ValueError):
        a.copy(order="X")


def _copy_views():
    """NumPy views whose copies NumPy lays out differently per order (non-empty)."""
    from numpy.lib.stride_tricks import as_strided
    n = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    f = np.asfortranarray(n)
    return {
        "transposed": n.T, "axes 1 0 2": n.transpose(1, 0, 2), "reversed": n[::-1, :, ::-1],
        "reversed then transposed": n[:, ::-1].T, "stepped": n[:, ::2, 1:],
        "new axis": n[:, None, :, 0], "F": f, "F sliced": f[:, 1:], "F reversed": f[::-1],
        "F middle reversed": f[:, ::-1], "1-d reversed": n.reshape(24)[::-3], "0-d": n[1, 2, 3, ...],
        "broadcast row": np.broadcast_to(np.arange(3.0), (4, 3)),
        "equal strides and 0": as_strided(n, (2, 3, 2), (8, 0, 8), writeable=False),
        "4-d mixed": as_strided(n, (2, 2, 3, 2), (8, 96, 16, 48), writeable=False),
    }


@pytest.mark.parametrize("name", list(_copy_views()))
@pytest.mark.parametrize("order", "CFAK")
def test_copy_strides_match_numpy(name, order):
    n = _copy_views()[name]
    a = mv.from_buffer(n)
    c = a.copy(order)
    want = np.copy(n, order=order)
    assert c.strides == want.strides
    assert c.shape == want.shape and np.array_equal(np.asarray(c), want)
    assert not c.readonly and c.base is None


def test_large_strided_assignment_matches_numpy():
    """Copies large enough to be tiled and split over goroutines."""
    n = np.arange(1024 * 1536, dtype=np.float64).reshape(1024, 1536)
    a = mv.from_buffer(n.copy())
    for src_key in [(Ellipsis,), (slice(None, None, -1),), (slice(None), slice(None, None, -1))]:
        d = mv.zeros((1024, 1536))
        d[...] = a[src_key]
        assert np.array_equal(np.asarray(d), n[src_key])
    t = mv.zeros((1536, 1024))
    t[...] = a.T
    assert np.array_equal(np.asarray(t), n.T)
    h = mv.zeros((512, 1536))
    h[...] = a[::2]
    assert np.array_equal(np.asarray(h), n[::2])
    h.fill(2.5)
    assert (np.asarray(h) == 2.5).all()
    a[1:] = a[:-1]  # overlapping views of one buffer
    m = n.copy()
    m[1:] = m[:-1].copy()
    assert np.array_equal(np.asarray(a), m)
    a[...] = a.T.copy().T  # a no-op copy through a fresh array
    assert np.array_equal(np.asarray(a), m)


def test_tobytes_and_tolist_every_dtype():
    for dtype in mv.DTYPES:
        n = (np.arange(12) % 2 == 1).reshape(3, 4) if dtype == "bool" else \
            np.arange(12).astype(dtype).reshape(3, 4)
        a = mv.from_buffer(n)
        v, w = a[::-1, 1::2], n[::-1, 1::2]
        assert v.tolist() == w.tolist(), dtype
        for order in "CFA":
            assert v.tobytes(order) == w.tobytes(order if order != "A" else "C"), (dtype, order)


def test_fill_and_broadcast_assignment():
    a = mv.zeros((3, 4), "int64")
    a.fill(3)
    assert a.tolist() == [[3] * 4] * 3
    a[1] = [1, 2, 3, 4]
    a[:, 0] = mv.full((3,), -1, "int64")
    a[2, 1:] = np.array([7, 8, 9])
    assert a.tolist() == [[-1, 3, 3, 3], [-1, 2, 3, 4], [-1, 7, 8, 9]]
    a[...] = mv.arange(4, dtype="int64")  # broadcast a row to every row
    assert a.tolist() == [[0, 1, 2, 3]] * 3
    f = mv.zeros(3, "float32")
    f[:] = np.array([1.5, 2.5, 3.5])  # float64 source converted, as NumPy does
    assert f.tolist() == [1.5, 2.5, 3.5]
    with pytest.raises(ValueError):
        a[0] = [1, 2, 3]  # wrong length
    with pytest.raises(ValueError):
        a[...] = [[1, 2], [3]]  # ragged
    with pytest.raises(OverflowError):
        mv.zeros(2, "uint8").fill(256)
    with pytest.raises(TypeError):
        a[0] = object()


def test_overlapping_assignment():
    n = np.arange(10, dtype=np.int32)
    a = mv.arange(10, dtype="int32")
    a[1:] = a[:-1]
    n[1:] = n[:-1].copy()
    assert a.tolist() == n.tolist()
    a = mv.arange(10, dtype="int32")
    a[:] = a[::-1]
    assert a.tolist() == list(range(9, -1, -1))


def test_repr_and_hash():
    a = mv.arange(3, dtype="float32")
    assert repr(a) == "memview.Array([0.0, 1.0, 2.0], shape=(3,), dtype='float32')"
    assert "elements" in repr(mv.zeros(5000))
    with pytest.raises(TypeError):
        hash(a)
    with pytest.raises(TypeError):
        mv.Array()
