"""Indexing, transpose and reshape in C (pyext/core_layouts.c, ops_views.c) against
the Go core's (memview.Array.Index / Transpose / Reshape, reached through the test
build's _core._go_view, _go_transpose and _go_reshape), over random layouts and
keys: one set of layout rules, kept in two languages, checked both ways.

Where C computes a layout, Go must succeed with the same shape, strides, offset
and contiguity; where C raises, Go must raise an error of the same type. Element
writes are checked against NumPy's. MEMVIEW_VIEW_CASES raises the number of
random cases (CI runs the default, then 20,000). The C layouts are read through
_core._c_layout, a function of the test build (pyext/selftest.c)."""
import operator
import os
import random

import numpy as np
import pytest

import memview as mv
from memview import _core

CASES = int(os.environ.get("MEMVIEW_VIEW_CASES", "1500"))
#: the C layout functions are reached through a function of the test build (build.py test)
needs_selftest = pytest.mark.skipif(not hasattr(_core, "_c_layout"), reason="needs the test build (_core._c_layout)")
_BIG = 1 << 62  # slice bounds beyond this are clamped; they mean "to the end" anyway


def _clamp(v):
    return None if v is None else max(-_BIG, min(_BIG, operator.index(v)))


def encode_key(key, ndim: int):
    """A basic-indexing key as the Go oracle takes it (_core._go_view: one
    7-int tuple a key item), and whether it selects one element."""
    if not isinstance(key, tuple):
        key = (key,)
    out, nint, scalar = [], 0, True
    for k in key:
        if k is Ellipsis:
            out.append((2, 0, 0, 0, 0, 0, 0))
            scalar = False
        elif k is None:
            out.append((3, 0, 0, 0, 0, 0, 0))
            scalar = False
        elif isinstance(k, slice):
            start, stop, step = _clamp(k.start), _clamp(k.stop), _clamp(k.step)
            if step == 0:
                raise ValueError("slice step cannot be zero")
            out.append((1, 0, start or 0, stop or 0, step or 0, int(start is not None), int(stop is not None)))
            scalar = False
        else:
            i = operator.index(k)
            if not -_BIG <= i <= _BIG:
                raise IndexError(f"index {i} is out of bounds")
            out.append((0, i, 0, 0, 0, 0, 0))
            nint += 1
    return tuple(out), scalar and nint == ndim
DTYPES = ["float64", "float32", "int8", "int16", "uint32", "int64", "uint64", "bool", "complex64",
          "complex128", ">f8", "float16", "3s"]


def _layout(v, base):
    return (v.shape, v.strides, v.ptr - base.ptr, v.c_contiguous, v.f_contiguous)


def _random_array(rng):
    """An array with a random layout, made through Go: a random shape, then
    random slices, a transpose or an import of a NumPy view."""
    nd = rng.randint(0, 4)
    shape = tuple(rng.choice([0, 1, 1, 2, 3, 4, 5]) for _ in range(nd))
    dtype = rng.choice(DTYPES)
    root = mv.zeros(shape, dtype)
    a = root
    if nd and rng.random() < 0.6:
        key = tuple(slice(rng.choice([None, 0, 1, -1]), rng.choice([None, 3, -1]), rng.choice([None, 1, 2, -1, -2]))
                    for _ in range(nd))
        a = _core._go_view(a, encode_key(key, nd)[0])
    if nd > 1 and rng.random() < 0.4:
        axes = list(range(nd))
        rng.shuffle(axes)
        a = _core._go_transpose(a, tuple(axes))
    if rng.random() < 0.15 and dtype in ("float64", "int16"):
        n = np.arange(24, dtype=dtype).reshape(2, 3, 4)[::-1, ::2, 1:]
        a = mv.from_buffer(n)
    return a


def _random_int(rng, n):
    return rng.choice([0, 1, -1, n - 1, -n, n, -n - 1, rng.randint(-2 * n - 2, 2 * n + 2), 2**62, -(2**62) - 1])


def _random_slice(rng, n):
    def bound():
        return rng.choice([None, None, 0, 1, -1, n, -n, n + 3, -n - 3, rng.randint(-n - 2, n + 2), 2**70, -(2**70)])
    return slice(bound(), bound(), rng.choice([None, None, 1, 2, 3, -1, -2, -5, 2**62, -(2**62), 2**70, 0]))


def _random_key(rng, nd):
    items = []
    for _ in range(rng.randint(0, nd + 2)):
        r = rng.random()
        if r < 0.35:
            items.append(_random_int(rng, 4))
        elif r < 0.75:
            items.append(_random_slice(rng, 4))
        elif r < 0.87:
            items.append(None)
        else:
            items.append(Ellipsis)
    if len(items) == 1 and rng.random() < 0.5:
        return items[0]
    return tuple(items)


def _go_index(a, key):
    try:
        enc, scalar = encode_key(key, a.ndim)
        return _core._go_view(a, enc), scalar, None
    except (IndexError, ValueError, TypeError) as e:
        return None, None, e


@needs_selftest
def test_index_c_matches_go():
    rng = random.Random(1313)
    fast = 0
    for _ in range(CASES):
        a = _random_array(rng)
        for _ in range(4):
            key = _random_key(rng, a.ndim)
            try:
                c, cerr = _core._c_layout(a, "index", key), None
            except (IndexError, ValueError, TypeError) as e:
                c, cerr = None, e
            g, scalar, err = _go_index(a, key)
            if cerr is not None:
                # C refuses the key: Go refuses it too, with an error of the same type
                assert err is not None and type(err) is type(cerr), (a.shape, key, cerr, err)
                with pytest.raises(type(cerr)):
                    a[key]
                continue
            fast += 1
            assert err is None, f"{a.shape} {a.strides}[{key!r}]: C gave a layout, Go raised {err!r}"
            shape, strides, offset, c_scalar, cc, fc = c
            assert (shape, strides, offset, cc, fc) == _layout(g, a), (a.shape, a.strides, key)
            assert c_scalar == scalar, key
            r = a[key]
            if scalar:
                if a.device == "cpu":
                    assert r == g.item() or (r != r and g.item() != g.item()), key
            else:
                assert _layout(r, a) == _layout(g, a)
                assert (r.dtype, r.format, r.readonly, r.base is not None) == (g.dtype, g.format, g.readonly, True)
                assert r.tobytes() == g.tobytes()
            g.release()
    assert fast > CASES  # most keys select something


@needs_selftest
def test_transpose_and_reshape_c_match_go():
    rng = random.Random(1314)
    for _ in range(CASES):
        a = _random_array(rng)
        nd = a.ndim
        axes = list(range(nd))
        rng.shuffle(axes)
        if rng.random() < 0.2 and nd:
            axes[0] = rng.choice([nd, -nd - 1, axes[-1]])  # out of range or repeated
        elif rng.random() < 0.5:
            axes = [x - nd if rng.random() < 0.3 else x for x in axes]
        for arg in ([], axes):
            try:
                c = _core._c_layout(a, "transpose", arg)
            except ValueError:
                c = None
            try:
                g = _core._go_transpose(a, tuple(arg))
            except ValueError:
                assert c is None, (a.shape, arg)
                with pytest.raises(ValueError):
                    a.transpose(arg)
                continue
            assert c is not None, (a.shape, arg)
            assert c[:3] + c[4:] == _layout(g, a)
            assert _layout(a.transpose(*arg), a) == _layout(g, a)
            g.release()
        size = a.size
        divisors = [d for d in range(1, size + 1) if size % d == 0] or [0, 1]
        shape = []
        left = size
        for _ in range(rng.randint(0, 4)):
            d = rng.choice([d for d in divisors if left % d == 0] if left else [0, 1, 3])
            shape.append(d)
            left = left // d if d else left
        shape.append(left)
        if rng.random() < 0.3:
            shape[rng.randrange(len(shape))] = -1
        if rng.random() < 0.1:
            shape.append(rng.choice([2, -1, -3]))
        try:
            c = _core._c_layout(a, "reshape", shape)
        except ValueError:
            c = None
        try:
            g = _core._go_reshape(a, tuple(shape))
        except ValueError:
            assert c is None, (a.shape, a.strides, shape)
            with pytest.raises(ValueError):
                a.reshape(shape)
            continue
        assert c is not None, (a.shape, a.strides, shape)
        assert c[:3] + c[4:] == _layout(g, a), (a.shape, a.strides, shape)
        assert _layout(a.reshape(shape), a) == _layout(g, a)
        g.release()


VALUES = [0, 1, -1, 127, 128, 255, 256, -129, 2**31, 2**63 - 1, 2**63, 2**64, -(2**63) - 1, 1.5, -2.5, 1e300,
          -1e300, float("inf"), float("nan"), True, False, 1 + 2j, complex(1e300, 1), np.float64(2.5), np.int8(3), "7"]


@pytest.mark.parametrize("dtype", ["float64", "float32", "int8", "uint8", "int16", "uint16", "int32", "uint32",
                                   "int64", "uint64", "bool", "complex64", "complex128", "float16", ">i4"])
def test_element_writes_match_numpy(dtype):
    """A Python value written to one element, to a slice (the engine's broadcast
    path) and with fill gives NumPy's bytes, or an error of the type NumPy raises."""
    for v in VALUES:
        n = np.zeros(3, dtype)
        try:
            with np.errstate(all="ignore"):
                n[1] = v
            nerr = None
        except (TypeError, ValueError, OverflowError) as e:
            nerr = e
        for write in (lambda a: a.__setitem__(1, v), lambda a: a[1:2].__setitem__(Ellipsis, v),
                      lambda a: a[1:2].fill(v)):
            a = mv.zeros(3, dtype)
            try:
                write(a)
                err = None
            except (TypeError, ValueError, OverflowError) as e:
                err = e
            if nerr is None and err is None:
                assert a.tobytes() == n.tobytes(), (dtype, v)
                got = a[1]
                assert got == n[1].item() or (got != got and n[1] != n[1]), (dtype, v)
            else:  # memview's checked conversion refuses what NumPy refuses, as NumPy does
                assert type(err) is type(nerr), (dtype, v, nerr, err)
                assert a.tobytes() == bytes(a.nbytes), (dtype, v)  # nothing written
            a.release()


def test_views_of_views_keep_memory_and_release():
    pool = mv.default_pool()
    before = pool.bytes_allocated
    a = mv.arange(24.0)
    v = a.reshape(4, 6)[1:, ::2].T[::-1]
    a.release()  # the views keep the memory, as Go views do
    assert a.released and not v.released
    assert v.tolist() == np.arange(24.0).reshape(4, 6)[1:, ::2].T[::-1].tolist()
    n = np.asarray(v)  # exports of a C-level view
    with memoryview(v) as m:
        assert m.tolist() == n.tolist()
    del n
    w = v.copy()  # Go is handed the view: base + layout
    assert w.tolist() == v.tolist()
    v[0, 0] = 99.0
    assert v[0, 0] == 99.0 and w[0, 0] != 99.0
    v.release()
    with pytest.raises(ValueError, match="released"):
        v[0]
    w.release()
    del v
    assert pool.bytes_allocated == before


def test_iteration_len_and_errors():
    a = mv.arange(6, dtype="int32").reshape(2, 3)
    assert [r.tolist() for r in a] == [[0, 1, 2], [3, 4, 5]]
    assert list(a[1]) == [3, 4, 5] and len(a) == 2 and len(a.T) == 3
    with pytest.raises(TypeError, match="0-d"):
        iter(a[0, 0:1].reshape(()))
    with pytest.raises(TypeError, match="unsized"):
        len(a.reshape(6)[0:1].reshape(()))
    with pytest.raises(ValueError, match="delete"):
        del a[0]
    ro = mv.from_buffer(b"abcd")
    with pytest.raises(ValueError, match="read-only"):
        ro[0] = 1
    assert ro[::-1].tolist() == [100, 99, 98, 97]
    a.release()


def _exporters(rng):
    """NumPy arrays of many item types and layouts, some that memview refuses."""
    dtypes = ["f8", "f4", "i1", "u2", "<i4", ">f8", "c16", "?", "S3", "V5", "i8,f4", [("a", "u1"), ("b", "<f8")],
              "(2,3)f4", "e", "l", "q", "g", "U2"]
    for _ in range(300):
        dt = np.dtype(rng.choice(dtypes))
        shape = tuple(rng.randint(0, 4) for _ in range(rng.randint(0, 3)))
        n = np.zeros(shape, dt)
        if n.ndim and rng.random() < 0.5:
            n = n[tuple(slice(None, None, rng.choice([1, 2, -1])) for _ in range(n.ndim))]
        if n.ndim > 1 and rng.random() < 0.3:
            n = n.T
        if rng.random() < 0.2:  # misaligned data
            n = np.ndarray(shape, dt, buffer=np.zeros(int(np.prod(shape)) * dt.itemsize + 1, np.uint8), offset=1)
        if rng.random() < 0.2:
            n.flags.writeable = False
        yield n
    # strides that are not whole items, a field of a record, memoryview casts
    rec = np.zeros(4, [("a", "u1"), ("b", "<i4")])
    yield rec["b"]
    yield memoryview(bytearray(12)).cast("i", (3,))
    yield bytearray(b"abc")
    yield b"xyz"


def _meta(a):
    return (a.shape, a.strides, a.format, a.dtype, a.typestr, a.itemsize, a.readonly, a.ptr, a.c_contiguous,
            a.f_contiguous, a.base, a.nbytes, a.device)


def test_from_buffer_c_matches_go():
    rng = random.Random(1315)
    fast = 0
    for x in _exporters(rng):
        for writable in (-1, 0, 1):
            try:
                g = _core.from_buffer(x, writable, True)
            except (ValueError, BufferError, TypeError, NotImplementedError) as e:
                with pytest.raises(type(e)):
                    _core.from_buffer(x, writable)
                continue
            handles = mv.live_handles()
            c = _core.from_buffer(x, writable)
            fast += mv.live_handles() == handles  # made without Go
            assert _meta(c) == _meta(g), x
            assert c.tobytes() == g.tobytes()
            if c.ndim:  # Go handed the import: a view of it copied by Go
                v = c[::-1]
                w = v.copy()
                assert w.tobytes() == g[::-1].tobytes()
                w.release()
            c.release()
            g.release()
    assert fast > 300


def test_from_buffer_c_import_lifetime():
    n = np.arange(12.0)
    a = mv.from_buffer(n)
    v = a[2:8].reshape(2, 3)
    a.release()  # the views keep the exporter's buffer
    assert a.released and v.tolist() == [[2.0, 3.0, 4.0], [5.0, 6.0, 7.0]]
    with pytest.raises(ValueError, match="released"):
        a[0]
    c = v.T.copy()  # Go gets the import now, from the released array's buffer
    assert c.tolist() == np.arange(12.0)[2:8].reshape(2, 3).T.tolist()
    v[0, 0] = -1.0
    assert n[2] == -1.0
    c.release()
    del v
    ba = bytearray(8)
    b = mv.from_buffer(ba)
    with pytest.raises(BufferError):
        ba.extend(b"x")  # exported while the array lives
    b.release()
    ba.extend(b"x")  # released: the exporter's buffer was given back
    b2 = mv.from_buffer(ba)
    b2.copy().release()  # Go took its own buffer; the copy's release gives nothing back early
    with pytest.raises(BufferError):
        ba.extend(b"x")
    b2.release()
    ba.extend(b"x")


def test_from_buffer_c_after_many_formats():
    """The C import's cache of formats replaces old entries once full: a program that
    has seen many item types still imports new ones without Go."""
    for i in range(200):
        n = np.zeros(2, [(f"field{i}", "u1"), ("x", "<i2")])
        a = mv.from_buffer(n)
        assert a.format == memoryview(n).format
        a.release()
    n = np.zeros(3, [("late", "<f8")])
    mv.from_buffer(n).release()  # the miss asks Go once
    handles = mv.live_handles()
    a = mv.from_buffer(n)
    assert mv.live_handles() == handles  # made in C
    assert a.tolist() == [(0.0,), (0.0,), (0.0,)]
    a.release()
