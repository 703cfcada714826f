"""memview.dtype: a.dtype is an item type with NumPy's attributes that NumPy reads
as its own (np.dtype(a.dtype) == x.dtype), equal to every spelling of its layout,
hashable and immutable, and accepted by every dtype= argument."""
import importlib.util
import pathlib
import pickle

import numpy as np
import pytest

import memview as mv
from memview import _core

_GOLDEN = pathlib.Path(__file__).resolve().parent.parent / "memview" / "testdata" / "gen_formats.py"


def _golden_dtypes():
    """The structured dtypes of the Go core's golden data (memview/testdata)."""
    spec = importlib.util.spec_from_file_location("_gen_formats", _GOLDEN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return [(name, np.dtype(s, align=align)) for name, s, align in mod.DTYPES]


GOLDEN = _golden_dtypes()
SIMPLE = ["?", "i1", "u1", "<i2", ">i2", "<u2", ">u4", "i4", "i8", ">i8", "u8", "<f2", ">f2", "f4", ">f4", "f8",
          ">f8", "c8", ">c8", "c16", ">c16", "g", "G", "S1", "S9", "U1", "U4", ">U4", "V1", "V5", "l", "L", "q",
          "Q", "intp", "uintp"]
MORE = [np.dtype([("a", "i1"), ("n", "V3")]), np.dtype([("s", "U3"), ("g", "g")]),
        np.dtype([("a", ">i2"), ("s", "S3"), ("u", "U2"), ("v", "V3"), ("m", "<f4", (2, 3))]),
        np.dtype({"names": ["a", "b"], "formats": ["<i4", "u1"], "offsets": [2, 9], "itemsize": 10})]
ALL = [(str(d), np.dtype(d)) for d in SIMPLE] + GOLDEN + [(str(d), d) for d in MORE]


def test_at_least_thirty_dtypes_with_all_golden_structured_ones():
    assert len(GOLDEN) == 23 and all(d.names for _, d in GOLDEN)
    assert len(ALL) >= 30


@pytest.mark.parametrize("name, dt", ALL, ids=[n for n, _ in ALL])
def test_numpy_reads_memviews_dtype_as_its_own(name, dt):
    x = np.zeros(3, dt)
    a = mv.from_buffer(x)
    d = a.dtype
    assert isinstance(d, mv.dtype)
    assert np.dtype(d) == x.dtype, name
    assert d == x.dtype and x.dtype == d and not (d != x.dtype)
    for attr in ("itemsize", "kind", "char", "str", "name", "byteorder", "names", "shape", "ndim", "descr",
                 "isbuiltin", "isnative"):
        assert getattr(d, attr) == getattr(x.dtype, attr), (name, attr)
    if x.dtype.fields:
        assert {k: (np.dtype(t), off) for k, (t, off) in d.fields.items()} == \
            {k: v[:2] for k, v in x.dtype.fields.items()}
    # a made array of that dtype is the same type, and NumPy sees it so
    with mv.zeros(2, dtype=d) as z, mv.zeros(2, dtype=x.dtype) as z2:
        assert z.dtype == z2.dtype == d
        assert np.asarray(z).dtype.itemsize == x.dtype.itemsize
    a.release()


@pytest.mark.parametrize("name, dt", GOLDEN[:6], ids=[n for n, _ in GOLDEN[:6]])
def test_subarray_dtypes(name, dt):
    sub = np.dtype((dt, (2, 3)))
    d = mv.dtype(sub)
    assert d.shape == (2, 3) and d.base == dt and d.subdtype == (d.base, (2, 3))
    assert np.dtype(d) == sub


def test_equality_against_every_spelling():
    d = mv.zeros(1).dtype
    for same in ("float64", "f8", "<f8", "=f8", "d", "double", np.float64, float, np.dtype("f8"), mv.dtype("d"),
                 mv.dtype.from_format("<d")):
        assert d == same and hash(mv.dtype(same)) == hash(d), same
    for other in ("float32", ">f8", "i8", np.int64, np.dtype(">f8"), mv.dtype("e"), "not a dtype", 3, None):
        assert d != other, other
    q = mv.from_buffer(np.zeros(1, "q")).dtype
    assert q == "int64" == mv.dtype("l") and q.format == "q"
    assert {q: 1}[mv.dtype("<i8")] == 1 and {"int64": 2}[q] == 2  # one hash per layout


def test_immutable_hashable_picklable():
    d = mv.dtype("T{<i:a:<d:b:}")
    with pytest.raises(AttributeError):
        d.itemsize = 3
    with pytest.raises(AttributeError):
        del d.format
    assert pickle.loads(pickle.dumps(d)) == d
    std_long = mv.from_buffer(__import__("_testbuffer").ndarray([1], shape=[1], format="<l")).dtype
    assert pickle.loads(pickle.dumps(std_long)) == std_long == "int32"
    assert len({d, mv.dtype("T{<i:a:<d:b:}"), mv.dtype(np.dtype([("a", "<i4"), ("b", "<f8")]))}) == 1
    assert str(mv.dtype("<f8")) == "float64" and repr(mv.dtype("<f8")) == "memview.dtype('float64')"


def test_every_dtype_argument_takes_every_spelling():
    rec = np.dtype([("a", "<i4"), ("b", "<f8")])
    for spelling in (rec, mv.dtype(rec), "T{<i:a:<d:b:}", mv.from_buffer(np.zeros(1, rec)).dtype):
        for make in (lambda: mv.empty(2, spelling), lambda: mv.zeros(2, dtype=spelling),
                     lambda: mv.full(2, (1, 2.5), dtype=spelling)):
            with make() as a:
                assert a.dtype == rec and np.asarray(a).dtype == rec
    for spelling in (np.int16, np.dtype("i2"), mv.dtype("h"), "int16", "<i2"):
        with mv.arange(3, dtype=spelling) as a:
            assert a.dtype == np.int16 and a.tolist() == [0, 1, 2]
        b = mv.Builder(spelling)
        b.append(4)
        with b.finish() as a:
            assert a.dtype == "int16" and a.tolist() == [4]
        with mv.zeros(2, "i2") as a:
            assert np.asarray(a).astype(mv.dtype(spelling)).dtype == np.int16
            assert a.__array__(dtype=mv.dtype(spelling)).dtype == np.int16


def test_numpy_objects_are_refused_saying_why():
    with pytest.raises(TypeError, match="Python objects"):
        mv.zeros(2, dtype=object)
    with pytest.raises(TypeError, match="reference counting"):
        mv.from_buffer(np.zeros(2, object))
    with pytest.raises(TypeError, match="pointers"):
        mv.dtype.from_format("&i")


def test_from_format_reads_as_numpy_does():
    # NumPy reads the items of an exporter's format as one record: padded at the end under '@'
    assert mv.dtype.from_format("ix").itemsize == 8 and mv.dtype.from_format("^ix").itemsize == 5
    assert mv.dtype.from_format("i") == "int32" and mv.dtype.from_format("3s") == "S3"
    assert np.dtype(mv.dtype.from_format("ii:f0:")) == np.dtype([("f1", "i"), ("f0", "i")])
    with pytest.raises(TypeError):
        mv.dtype.from_format(3)


def test_the_generated_dtype_table_is_the_go_cores():
    """python/memview/_dtypes_table.py (and pyext/dtypes_table.h) are written by
    tools/gendtypes from the Go core's table: each row is what Go says of the dtype."""
    from memview import _dtypes_table
    names = [row[0] for row in _dtypes_table.BASIC]
    assert len(names) == len(set(names)) == 14
    for name, kind, size, fmt, typestr in _dtypes_table.BASIC:
        assert _core.dtype_info(name) == (name, size, typestr, fmt), name
        assert mv.dtype(name).kind == kind and mv.dtype(name).itemsize == size


def test_the_generated_code_table_is_the_go_cores():
    """CODES (tools/gendtypes, from memview.FormatCodes) says what Go's format
    parser does with each code: its standard size, and what NumPy kind it holds."""
    import struct
    from memview import _dtypes_table
    codes = {code: (kind, std) for code, kind, std in _dtypes_table.CODES}
    assert len(codes) == len(_dtypes_table.CODES) > 20
    for code, (kind, std) in codes.items():
        if std == 0:  # native sizes only, as in struct
            with pytest.raises(TypeError, match="native size"):
                mv.dtype.from_format("<" + code)
            continue
        d = mv.dtype.from_format("<" + code)
        assert d.itemsize == std and d.kind == kind, code
        if code == "P":  # the pointer size under a standard prefix too, as ctypes writes c_void_p
            assert std == struct.calcsize("@P")
        elif code not in ("g", "Zg", "w"):  # NumPy's own codes, which struct lacks
            assert struct.calcsize("<" + code.replace("Z", "2")) == std, code  # Zf: two f
    for name, kind, _size, fmt, _ in _dtypes_table.BASIC:
        assert codes[fmt][0] == kind, name


def test_one_cache_of_go_answers_drops_and_asks_again():
    # dtype_info, format_info, dtype_desc, creation and imports share one cache
    # of Go's answers; when distinct dtypes fill it, the answers not asked at
    # install are dropped together and asked again, and a dtype object whose
    # answer creation remembered is resolved anew
    rec = np.dtype([("a", "<i2"), ("b", "<f4")])
    a = mv.empty(3, dtype=rec)  # remembered by the object
    first = (_core.dtype_info(a.format), _core.dtype_desc(a.format))
    kept, pinned, drops = _core.dtype_cache()
    assert 100 < pinned <= kept  # the basic dtypes' answers, asked at install
    for k in range(2500):  # more distinct questions than the cache keeps
        fmt = f"T{{<i:a:{k}s:b:}}"
        assert _core.format_info(fmt)[1] == 4 + k
    assert _core.dtype_cache()[2] >= drops + 2 and _core.dtype_cache()[1] == pinned
    b = mv.empty(3, dtype=rec)
    assert b.dtype == a.dtype and np.asarray(b).dtype == rec
    assert (_core.dtype_info(a.format), _core.dtype_desc(a.format)) == first
    n = np.zeros(4, rec)
    c = mv.from_buffer(n)  # an import asks about the exporter's format again
    assert c.dtype == a.dtype and c.tolist() == n.tolist()
    f = mv.empty(2)  # the default, a basic dtype, kept for good
    assert f.dtype.name == "float64" and _core.dtype_info("float64")[1] == 8
    with pytest.raises(TypeError, match="not understood"):
        _core.dtype_info("no such dtype")
    with pytest.raises(TypeError, match="NUL"):
        _core.dtype_info("float64\0")
    del a, b, c, f
