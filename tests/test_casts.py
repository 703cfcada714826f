"""Casts between the numeric item types (pyext/ops_cast.c) against NumPy's, in the
same run: every pair of bool, the integers, float16/32/64 and complex64/128, in
both byte orders, over values that reach every edge (NaN, infinities, values out
of the target's range, float16's subnormals and rounding ties), through
contiguous, strided and broadcast layouts.

An array or buffer source casts as np.copyto(dst, src, casting="unsafe") does:
the bytes must be NumPy's, and so must the warnings (RuntimeWarning for an invalid
or overflowing cast, ComplexWarning for complex to real), under NumPy's error
state. memview.copyto's casting rules are np.can_cast's. Python scalars and nested
lists keep the checked conversion (tests/test_views_c.py)."""
import platform
import warnings

import numpy as np
import pytest

import memview as mv

#: C leaves NaN and out-of-range float-to-integer casts undefined. On x86-64 memview's
#: loops and NumPy's are built by compilers that agree with the hardware's conversion;
#: elsewhere (aarch64, where memview's wheel is built by zig's clang and NumPy's by gcc)
#: the compilers choose differently, and only the defined casts are compared.
UNDEFINED_COMPARED = platform.machine() in ("x86_64", "AMD64")
NUMERIC = ["?", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16"]
SWAPPED = [">" + t for t in NUMERIC if t not in ("?", "i1", "u1")]


def _values(dt: np.dtype) -> np.ndarray:
    """Values of dt that reach every edge of a cast from it."""
    k = dt.kind
    if k == "b":
        return np.array([True, False, True, True, False], dt)
    if k in "iu":
        info = np.iinfo(dt)
        v = [0, 1, 2, 7, 100, 127, 128, 255, 256, 2049, 65504, 65519, 65520, 70000, 2**24 + 1, 2**31, 2**53 + 1,
             info.max, info.max - 1, info.min, info.min + 1]
        if k == "i":
            v += [-1, -2, -128, -129, -32769, -(2**31) - 1, -2049]
        return np.array([x for x in v if info.min <= x <= info.max], dt)
    real = [0.0, -0.0, 0.5, 1.5, 2.5, -2.5, 0.1, 1.0, -1.0, 127.5, 128.0, 255.9, 256.0, -128.9, -129.0,
            3e4, 65504.0, 65519.99, 65520.0, 65536.0, 70000.0, 2.0**31, -(2.0**31) - 1, 2.0**32, 2.0**63, 2.0**64,
            -(2.0**63), 1e20, -1e20, 3.5e38, 1e300, 6e-8, 3e-8, 2.98e-8, 5.96e-8, 6.1e-5, 1e-40, 1e-310,
            np.inf, -np.inf, np.nan, -np.nan, 2049.0, 2051.0, 4097.0]
    if k == "f":
        with np.errstate(all="ignore"):
            return np.array(real, dt)
    with np.errstate(all="ignore"):
        return np.array([complex(x, y) for x, y in zip(real, real[7:] + real[:7])], dt)


def _cast(src: np.ndarray, ddt: np.dtype, layout: str, who: str):
    """dst written from src by NumPy or memview through layout: the rows of the
    target as read back (one a source element each), and the warnings given."""
    n = src.shape[0]
    if layout == "strided":  # every other element of a reversed target, from a strided source
        base = np.zeros(2 * n, ddt)
        dst = base[::-2]
        s = np.zeros(3 * n, src.dtype)
        s[::3] = src
        s = s[::3]
    elif layout == "broadcast":
        base = dst = np.zeros((3, n), ddt)
        s = src
    else:
        base = dst = np.zeros(n, ddt)
        s = src
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if who == "numpy":
            np.copyto(dst, s, casting="unsafe")
        else:
            with mv.from_buffer(dst) as m:
                mv.copyto(m, s, casting="unsafe")
    if layout == "strided":
        assert not any(base[-2::-2].tobytes()), f"{who} wrote outside the target"
    return dst.reshape(-1, n).copy(), sorted({(w.category.__name__, str(w.message)) for w in caught})


def _out_of_range(src: np.ndarray, ddt: np.dtype) -> np.ndarray:
    """The elements of a float or complex src whose cast to integers ddt C leaves
    undefined: NaN, infinities and values whose integer part ddt cannot hold."""
    if src.dtype.kind not in "fc" or ddt.kind not in "iu":
        return np.zeros(src.shape, bool)
    with np.errstate(all="ignore"):
        re = src.real.astype("f8")
        t = np.trunc(re)
        info = np.iinfo(ddt)
        return ~np.isfinite(re) | (t < float(info.min)) | (t >= float(info.max) + 1)


def _check_cast(values: np.ndarray, ddt: np.dtype, layout: str, what: str):
    """memview's cast is NumPy's, element by element and warning by warning. Where C
    leaves a float-to-integer cast undefined, NumPy does not agree with itself:
    its contiguous loops on x86-64 vectorise some of these casts (float to uint32
    for one) and give other values than its strided loops, which are the plain C
    conversion, and a byte-swapped source takes the vectorised loop. There the
    result must be one of the values NumPy gives for that element."""
    want, nw = _cast(values, ddt, layout, "numpy")
    got, mw = _cast(values, ddt, layout, "memview")
    native = values.astype(values.dtype.newbyteorder("="))
    loops = [_cast(native, ddt.newbyteorder("="), lay, "numpy")[0][0] for lay in ("contiguous", "strided")]
    undefined = _out_of_range(values, ddt)
    for r in range(got.shape[0]):
        for i in range(got.shape[1]):
            g = got[r, i]
            if undefined[i]:
                if not UNDEFINED_COMPARED or any(g == loop[i] for loop in loops) or g == want[r, i]:
                    continue
                pytest.fail(f"{what} ({layout}): element {i} ({values[i]!r}) is {g!r}, none of NumPy's "
                            f"{[loop[i] for loop in loops] + [want[r, i]]} (undefined in C)")
            if g.tobytes() != want[r, i].tobytes():
                pytest.fail(f"{what} ({layout}): element {i} ({values[i]!r}) is {g!r}, NumPy's {want[r, i]!r}")
    assert mw == nw, f"{what} ({layout}): warnings {mw}, NumPy's {nw}"


@pytest.mark.parametrize("layout", ["contiguous", "strided", "broadcast"])
@pytest.mark.parametrize("src", NUMERIC)
def test_casts_are_numpys(src, layout):
    sdt = np.dtype(src)
    values = _values(sdt)
    for dst in NUMERIC:
        ddt = np.dtype(dst)
        if ddt != sdt:
            _check_cast(values, ddt, layout, f"{src} -> {dst}")


@pytest.mark.parametrize("layout", ["contiguous", "strided"])
@pytest.mark.parametrize("src", NUMERIC + SWAPPED)
def test_byte_swapped_casts_are_numpys(src, layout):
    sdt = np.dtype(src)
    values = _values(sdt.newbyteorder("=")).astype(sdt)
    for dst in NUMERIC + SWAPPED:
        ddt = np.dtype(dst)
        if ddt != sdt:
            _check_cast(values, ddt, layout, f"{src} -> {dst}")


def test_assignment_of_arrays_casts_as_copyto():
    """a[...] = array and a[key] = buffer are copyto(casting='unsafe'): NumPy's results."""
    src = np.array([1.5, -2.5, 300.0, 1e10, np.nan], "f8")
    n = np.zeros((2, 5), "i2")
    with np.errstate(all="ignore"):
        n[1] = src
    with mv.zeros((2, 5), "int16") as a, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a[1] = src                      # a NumPy array
        b = mv.from_buffer(src)
        a[0] = b                        # a memview array
        assert np.asarray(a)[1].tobytes() == n[1].tobytes()
        assert np.asarray(a)[0].tobytes() == n[1].tobytes()
        b.release()
    with mv.zeros(4, "float32") as a:
        a[:] = np.arange(4, dtype="i8") * 3
        assert np.asarray(a).tolist() == [0.0, 3.0, 6.0, 9.0]
        a[::2] = mv.arange(2, dtype="uint8")
        assert np.asarray(a).tolist() == [0.0, 3.0, 1.0, 9.0]


def test_complex_to_real_warns_with_numpys_class():
    assert mv.ComplexWarning is np.exceptions.ComplexWarning
    with mv.zeros(2, "float64") as a:
        with pytest.warns(np.exceptions.ComplexWarning, match="discards the imaginary part"):
            a[:] = np.array([1 + 2j, 3 - 1j])
        assert np.asarray(a).tolist() == [1.0, 3.0]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(np.exceptions.ComplexWarning):
                a[:] = np.array([5 + 1j, 6j])
        assert np.asarray(a).tolist() == [1.0, 3.0]  # a warning raised as an error writes nothing


def test_numpys_error_state_is_followed():
    src = np.array([np.nan, 1e300])
    with mv.zeros(2, "int32") as a:
        with np.errstate(invalid="raise"):
            with pytest.raises(FloatingPointError, match="invalid value encountered in cast"):
                a[:] = src
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("error")
            a[:] = src
    with mv.zeros(2, "float32") as a:
        with pytest.warns(RuntimeWarning, match="overflow encountered in cast"):
            a[:] = src
        assert np.isinf(np.asarray(a)[1])


CASTINGS = ["no", "equiv", "safe", "same_kind", "unsafe"]


@pytest.mark.parametrize("casting", CASTINGS)
def test_copyto_casting_rules_are_can_casts(casting):
    for s in NUMERIC + [">f8", ">i4"]:
        for d in NUMERIC + [">f8", ">i4"]:
            sdt, ddt = np.dtype(s), np.dtype(d)
            with mv.zeros(3, d) as dst:
                src = np.ones(3, sdt)
                allowed = np.can_cast(sdt, ddt, casting)
                if allowed:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        mv.copyto(dst, src, casting=casting)
                    n = np.zeros(3, ddt)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        np.copyto(n, src, casting="unsafe")
                    assert np.asarray(dst).tobytes() == n.tobytes(), (s, d, casting)
                else:
                    with pytest.raises(TypeError, match=f"according to the rule '{casting}'"):
                        mv.copyto(dst, src, casting=casting)
                    assert np.asarray(dst).tobytes() == bytes(dst.nbytes), (s, d, casting)


def test_copyto_python_scalars_follow_nep50():
    """Python numbers are weak: only their kind is checked, as np.copyto does."""
    for d in NUMERIC:
        ddt = np.dtype(d)
        for v in (True, 3, 2.5, 1 + 1j):
            n = np.zeros(2, ddt)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    np.copyto(n, v)
                nerr = None
            except TypeError as e:
                nerr = e
            with mv.zeros(2, d) as a:
                try:
                    mv.copyto(a, v)
                    err = None
                except TypeError as e:
                    err = e
                assert (err is None) == (nerr is None), (d, v, err, nerr)
                if err is None:
                    assert np.asarray(a).tobytes() == n.tobytes(), (d, v)


def test_copyto_bad_inputs():
    with mv.zeros(3) as a:
        with pytest.raises(ValueError, match="casting must be one of"):
            mv.copyto(a, a, casting="sometimes")
        with pytest.raises(TypeError, match="dst must be a memview.Array"):
            mv.copyto(np.zeros(3), a)
        with pytest.raises(ValueError, match="broadcast"):
            mv.copyto(a, np.zeros(4))
        with pytest.raises(TypeError):
            mv.copyto(a, object())
        ro = mv.from_buffer(np.zeros(3), writable=False)
        with pytest.raises(ValueError, match="read-only"):
            mv.copyto(ro, a)
        ro.release()
        assert np.asarray(a).tolist() == [0.0, 0.0, 0.0]


def test_copyto_overlap_and_broadcast():
    n = np.arange(10.0)
    with mv.arange(10.0) as a:
        mv.copyto(a[1:], a[:-1])
        n[1:] = n[:-1].copy()
        assert np.asarray(a).tolist() == n.tolist()
        mv.copyto(a[::-1], a)
        n[::-1] = n.copy()
        assert np.asarray(a).tolist() == n.tolist()
    with mv.zeros((3, 4), "int32") as a:
        mv.copyto(a, np.arange(4, dtype="i8"), casting="unsafe")
        assert np.asarray(a).tolist() == [[0, 1, 2, 3]] * 3


def test_large_casts_release_memory():
    pool = mv.default_pool()
    before = pool.bytes_allocated
    src = np.arange(1 << 20, dtype="f8") * 1.5
    with mv.zeros(1 << 20, "int32") as a:
        a[:] = src               # 8 MiB read without the GIL, in chunks
        assert np.array_equal(np.asarray(a), src.astype("i4"))
        a[::-1] = a              # an overlapping same-type copy, through a temporary
        assert np.array_equal(np.asarray(a), src.astype("i4")[::-1])
    assert pool.bytes_allocated == before


@pytest.mark.parametrize("t", ["u2", "u4", "u8", "f4", "f8", "c8", "c16"])
def test_byte_order_copies_of_every_length(t):
    """A copy into the other byte order reverses every component's bytes, whatever
    the length (sixteen bytes at a time, then the tail), dense and strided."""
    rng = np.random.default_rng(7)
    for n in list(range(20)) + [31, 64, 257, 1000]:
        src = np.frombuffer(rng.integers(0, 256, n * np.dtype(t).itemsize, dtype=np.uint8).tobytes(), "<" + t)
        want = np.zeros(n, ">" + t)
        np.copyto(want, src, casting="unsafe")
        got = np.zeros(n, ">" + t)
        with mv.from_buffer(got) as m:
            mv.copyto(m, src, casting="unsafe")
        assert got.tobytes() == want.tobytes(), (t, n)
        back = np.zeros(n, "<" + t)
        with mv.from_buffer(back) as m, mv.from_buffer(got) as g:
            mv.copyto(m, g, casting="unsafe")
        assert back.tobytes() == src.tobytes(), (t, n)
        sgot = np.zeros(2 * n, ">" + t)
        with mv.from_buffer(sgot) as m:
            mv.copyto(m[::2], src, casting="unsafe")
        assert sgot[::2].tobytes() == want.tobytes() and not any(sgot[1::2].tobytes()), (t, n)
