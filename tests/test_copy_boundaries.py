"""Explicit copy boundaries: copy orders as NumPy's, ascontiguous only copies when it
must, tobytes/frombytes are PyBuffer_ToContiguous/FromContiguous, and a[...] = b
copies between any two layouts, overlapping views included."""
import numpy as np
import pytest

import memview as mv

LAYOUTS = {
    "C": lambda n: n,
    "F": lambda n: np.asfortranarray(n),
    "transposed": lambda n: n.T,
    "reversed": lambda n: n[::-1, ::-2],
    "sliced": lambda n: n[1:, ::3],
}


@pytest.mark.parametrize("name", list(LAYOUTS))
@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
def test_copy_orders_match_numpy(name, order):
    n = LAYOUTS[name](np.arange(4 * 6, dtype=np.float64).reshape(4, 6))
    a = mv.from_buffer(n)
    c = a.copy(order)
    want = n.copy(order=order)
    assert c.strides == want.strides and c.tolist() == want.tolist()


@pytest.mark.parametrize("name", list(LAYOUTS))
@pytest.mark.parametrize("order", ["C", "F", "A"])
def test_tobytes_and_frombytes_are_inverse(name, order):
    n = LAYOUTS[name](np.arange(4 * 6, dtype=np.int32).reshape(4, 6))
    a = mv.from_buffer(n.copy(order="K") if name == "C" else n)
    data = a.tobytes(order)
    assert data == n.tobytes(order=order)
    dst = mv.zeros(a.shape, "int32", order="F" if name == "F" else "C")
    dst.frombytes(data, order)
    if order == "A" and (dst.f_contiguous != a.f_contiguous):
        return  # 'A' follows each array's own layout
    assert dst.tolist() == n.tolist()


def test_frombytes_refuses_bad_input_and_changes_nothing():
    a = mv.arange(6, dtype="int16").reshape(2, 3)
    for data, order, exc in [(b"\0" * 11, "C", ValueError), (b"\0" * 12, "K", ValueError), (3, "C", TypeError)]:
        with pytest.raises(exc):
            a.frombytes(data, order)
    assert a.tolist() == [[0, 1, 2], [3, 4, 5]]
    ro = mv.from_buffer(bytes(12), writable=False)
    with pytest.raises(ValueError, match="read-only"):
        ro.frombytes(b"\1" * 12)


def test_ascontiguous_copies_only_when_it_must():
    a = mv.arange(12).reshape(3, 4)
    assert a.ascontiguous() is a and a.to_row_major() is a
    t = a.T
    c = t.ascontiguous()
    assert c is not t and c.c_contiguous and c.tolist() == t.tolist()


def test_overlapping_assignments_as_numpy():
    n = np.arange(30.0).reshape(5, 6)
    a = mv.from_buffer(n.copy())
    ref = n.copy()
    for dst, src in [((slice(1, None), slice(None)), (slice(None, -1), slice(None))),
                     ((slice(None), slice(None, None, -1)), (slice(None), slice(None))),
                     ((slice(None, None, 2), 0), (slice(None, None, -2), 5))]:
        ref[dst] = ref[src]
        a[dst] = a[src]
        assert a.tolist() == ref.tolist()
