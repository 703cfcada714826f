"""Every buffer request against CPython's reference exporter, _testbuffer.ndarray.

For each layout, a memview array and an _testbuffer.ndarray with the same shape,
strides, format, read-only flag and values are asked for the same request; both
must succeed or both fail, and on success fill the same Py_buffer fields.
"""
import itertools

import numpy as np
import pytest

import memview as mv

tb = pytest.importorskip("_testbuffer", reason="CPython's _testbuffer test module is not built")

BASE_REQUESTS = {
    name: getattr(tb, name)
    for name in ("PyBUF_SIMPLE", "PyBUF_ND", "PyBUF_STRIDES", "PyBUF_INDIRECT",
                 "PyBUF_C_CONTIGUOUS", "PyBUF_F_CONTIGUOUS", "PyBUF_ANY_CONTIGUOUS",
                 "PyBUF_FULL", "PyBUF_FULL_RO", "PyBUF_RECORDS", "PyBUF_RECORDS_RO",
                 "PyBUF_STRIDED", "PyBUF_STRIDED_RO", "PyBUF_CONTIG", "PyBUF_CONTIG_RO")
}
MODIFIERS = {"": 0, "|WRITABLE": tb.PyBUF_WRITABLE, "|FORMAT": tb.PyBUF_FORMAT,
             "|WRITABLE|FORMAT": tb.PyBUF_WRITABLE | tb.PyBUF_FORMAT}
REQUESTS = {b + m: BASE_REQUESTS[b] | MODIFIERS[m] for b in BASE_REQUESTS for m in MODIFIERS}


def _layouts():
    """name -> function making the memview array to test (fresh each call)."""
    def c2d():
        return mv.arange(12, dtype="float64").reshape(3, 4)

    def f2d():
        return mv.arange(12, dtype="float64").reshape(4, 3).T

    def fortran_empty():
        a = mv.empty((3, 5), "int32", order="F")
        a[...] = mv.arange(15, dtype="int32").reshape(3, 5)
        return a

    def neg():
        return mv.arange(24, dtype="float64").reshape(4, 6)[::-1, ::2]

    def neg1d():
        return mv.arange(10, dtype="int64")[::-2]

    def step1d():
        return mv.arange(10, dtype="uint8")[1::3]

    def zero_d():
        return mv.full((), 3.5)

    def size0():
        return mv.empty((7, 0, 7), "float32")

    def ones_12():
        return mv.arange(12, dtype="int16").reshape(1, 12, 1)

    def readonly_c():
        return mv.from_buffer(np.arange(6, dtype=np.float64).reshape(2, 3), writable=False)

    def readonly_bytes():
        return mv.from_buffer(b"abcdef")

    def readonly_neg():
        base = np.arange(24, dtype=np.float64).reshape(4, 6)
        base.flags.writeable = False
        return mv.from_buffer(base[::-1, ::2])

    def bools():
        return mv.from_buffer(np.array([[True, False, True], [False, True, True]]))

    def int8_transposed():
        return mv.arange(24, dtype="int8").reshape(2, 3, 4).transpose(1, 0, 2)

    def newaxis():
        return mv.arange(12, dtype="int64").reshape(2, 6)[:, None, ::2]

    def big_endian_reversed():
        return mv.from_buffer(np.arange(10, dtype=">f8"))[::-2]

    def struct_pairs():
        nd = tb.ndarray([(i, i / 2) for i in range(6)], shape=[2, 3], format="hd", flags=tb.ND_WRITABLE)
        return mv.from_buffer(nd)[:, ::-1]

    def byte_strings():
        return mv.from_buffer(tb.ndarray([b"abc", b"de", b"f", b""], shape=[4], format="3s"))

    def broadcast():
        return mv.from_buffer(np.broadcast_to(np.arange(3.0), (4, 3)))

    def dims_64():
        return mv.arange(2, dtype="int16").reshape((1,) * 63 + (2,))

    def record_strided():
        n = np.zeros((4, 3), dtype=[("a", "<i4"), ("b", ">f8"), ("c", "u1", (2,))])
        n["a"] = np.arange(12).reshape(4, 3)
        return mv.from_buffer(n)[::-2, 1:]

    def record_aligned():
        return mv.full(5, (7, 2.5), dtype="T{B:x:7xd:y:}")

    return dict(locals())


LAYOUTS = _layouts()


def _span(shape, strides, itemsize):
    if 0 in shape:
        return 0, 0
    lo = sum(s * (n - 1) for n, s in zip(shape, strides) if s < 0)
    hi = sum(s * (n - 1) for n, s in zip(shape, strides) if s > 0)
    return lo, hi + itemsize


def is_record(a):
    return a.dtype.names is not None


def reference(a):
    """An _testbuffer.ndarray with a's layout, values and read-only flag. The struct
    module (hence _testbuffer) has no records: for those, items of a's size as
    byte strings ("<itemsize>s"), so that everything but the format is compared."""
    flags = 0 if a.readonly else tb.ND_WRITABLE
    if is_record(a):
        fmt = f"{a.itemsize}s"
        lo, hi = _span(a.shape, a.strides, a.itemsize)
        items = [b""] * max(1, (hi - lo) // a.itemsize)
        for idx in itertools.product(*(range(n) for n in a.shape)):
            pos = (sum(i * s for i, s in zip(idx, a.strides)) - lo) // a.itemsize
            items[pos] = a[tuple(slice(i, i + 1) for i in idx)].tobytes()
        return tb.ndarray(items, shape=list(a.shape), strides=list(a.strides), offset=-lo,
                          format=fmt, flags=flags)
    if a.ndim == 0:
        return tb.ndarray(a.item(), shape=[], format=a.format, flags=flags)
    lo, hi = _span(a.shape, a.strides, a.itemsize)
    zero = False if a.format == "?" else 0
    items = [zero] * max(1, (hi - lo) // a.itemsize)
    for idx in itertools.product(*(range(n) for n in a.shape)):
        pos = (sum(i * s for i, s in zip(idx, a.strides)) - lo) // a.itemsize
        items[pos] = a[idx]
    return tb.ndarray(items, shape=list(a.shape), strides=list(a.strides), offset=-lo,
                      format=a.format, flags=flags)


FIELDS = ("ndim", "shape", "strides", "suboffsets", "itemsize", "nbytes", "format",
          "readonly", "c_contiguous", "f_contiguous", "contiguous")


def _get(exporter, flags):
    try:
        return tb.ndarray(exporter, getbuf=flags), None
    except BufferError as e:
        return None, e


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_reference_has_same_layout(layout):
    a = LAYOUTS[layout]()
    ref = reference(a)
    got = tb.ndarray(a, getbuf=tb.PyBUF_FULL_RO)
    assert got.shape == ref.shape == a.shape
    assert got.strides == ref.strides == a.strides
    if is_record(a) or a.format.endswith("s"):
        # bytes fields read as NumPy reads them (trailing NULs dropped), struct keeps them
        assert got.tobytes() == ref.tobytes() == a.tobytes()
    else:
        assert got.tolist() == ref.tolist() == a.tolist()
    del got


@pytest.mark.parametrize("request_name", list(REQUESTS))
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_request_matches_testbuffer(layout, request_name):
    flags = REQUESTS[request_name]
    a = LAYOUTS[layout]()
    ref = reference(a)
    want, want_err = _get(ref, flags)
    got, got_err = _get(a, flags)
    assert (got_err is None) == (want_err is None), (
        f"{layout} {request_name}: _testbuffer {'fails: ' + str(want_err) if want_err else 'succeeds'}, "
        f"memview {'fails: ' + str(got_err) if got_err else 'succeeds'}")
    if got is None:
        assert a._exports == 0
        return
    for field in FIELDS:
        if field == "format" and is_record(a):
            assert got.format == (a.format if flags & tb.PyBUF_FORMAT else want.format)
            continue
        assert getattr(got, field) == getattr(want, field), f"{layout} {request_name}: {field}"
    assert got.obj is a
    assert got.tobytes() == want.tobytes()
    if want.format and not is_record(a):  # tolist needs a format struct knows
        assert got.tolist() == want.tolist()
    assert a._exports == 1
    del got
    assert a._exports == 0
