"""Bad inputs, part 3: Go packages built together with memview (sigproc,
rgbimage and tests/gopkg, bound by gopy). Each row: what a new user might type,
the exception it must raise (and a fragment of its message), and that nothing
changed (catalogue.run_row checks arrays, buffers, Go values, pools, array
handles and gopy handles). Rows skip, saying so, where the package they use is
not built in (python3 build.py test builds them all).

The namespace is catalogue.namespace's: a float64 (3, 4), n/nv NumPy memory and
a view of it, ro a read-only uint8 import, rof a read-only float64 import, u8n
NumPy uint8 memory, rel a released array, ...; im a rgbimage.Image (4x3), sig a
sigproc.Signal (5 samples), gs a Go []float64 (4 elements), go gopy's module of
Go slice types. Messages read as Python: no Go sentinel text at the end
("...: invalid argument"), shapes as tuples."""
import pytest

from catalogue import rows, run_row

# ---- memory lent to Go: a []T parameter (contiguous, writable, of T's dtype) or *memview.Array
LENDING = [
    ("sigproc.Sum(t)", ValueError,
     r"^sigproc\.Sum\(\) argument 'x': Go takes a \[\]float64 here, which needs a contiguous array "
     r"\(shape \(4, 3\), strides \(8, 32\)\); copy it first$"),
    ("sigproc.Sum(n[::2])", ValueError, r"\(shape \(3,\), strides \(16,\)\); copy it first$"),
    ("sigproc.Sum(n[::-1])", ValueError, r"strides \(-8,\)"),
    ("sigproc.Sum(a[:, 1])", ValueError, "contiguous"),
    ("sigproc.Sum(ro)", TypeError, "needs an array of float64, not uint8$"),
    ("sigproc.Sum(np.arange(3.0).tobytes())", TypeError, "not uint8"),
    ("sigproc.Sum([1.0, 2.0])", TypeError, "buffer protocol is required, not 'list'"),
    ("sigproc.Sum((1.0, 2.0))", TypeError, "not 'tuple'"),
    ("sigproc.Sum('abc')", TypeError, "not 'str'"),
    ("sigproc.Sum(1.5)", TypeError, "not 'float'"),
    ("sigproc.Sum(np.zeros(3, 'f4'))", TypeError, "not float32$"),
    ("sigproc.Sum(np.zeros(3, '>f8'))", TypeError, "not >f8$"),
    ("sigproc.Sum(np.zeros(3, 'c16'))", TypeError, "not complex128$"),
    ("sigproc.Sum(np.zeros(3, 'O'))", TypeError, "format"),
    ("sigproc.Sum(np.zeros(3, 'M8[s]'))", ValueError, "dtype 'M'"),
    ("sigproc.Sum(np.array(['ab']))", TypeError, "needs an array of float64, not <U2"),
    ("sigproc.Sum(np.frombuffer(bytearray(17), 'f8', 2, 1))", ValueError, "not 8-byte aligned"),
    ("sigproc.Sum(np.ndarray((2,), '<f8', bytearray(24), 0, (12,)))", ValueError, "multiple of the item size"),
    ("sigproc.Sum(b)", TypeError, "not bool$"),
    ("sigproc.Sum(go.Slice_int64([1, 2]))", TypeError, r"a Go \[\]float64 is needed, not a gopy Slice_int64$"),
    ("sigproc.Sum(go.Slice_float32([1.0]))", TypeError, "not a gopy Slice_float32"),
    ("sigproc.Sum(sig)", TypeError, "not a gopy Signal"),
    ("sigproc.Sum(im)", TypeError, "not a gopy Image"),
    ("sigproc.Sum(go.nil)", TypeError, "not a gopy GoClass"),
    ("sigproc.Sum(x=np.zeros(3, 'f4'))", TypeError, r"sigproc\.Sum\(\) argument 'x'"),
    ("sigproc.Sum(y=n)", TypeError, "unexpected keyword argument 'y'"),
    ("sigproc.Sum(n, n)", TypeError, "positional argument"),
    ("sigproc.Sum(rel)", ValueError, "released"),
    ("sigproc.Scale(go.Slice_float64([1.0]), 2.0)", TypeError,
     r"^sigproc\.Scale\(\) argument 'a': a Go \*memview\.Array is needed, not a gopy Slice_float64$"),
    ("sigproc.Scale(gs, 2.0)", TypeError, r"a Go \*memview\.Array is needed"),
    ("sigproc.Scale(n, 2.0, 3)", TypeError, "positional argument"),
    ("sigproc.Scale(np.zeros(3, 'f4'), 2)", TypeError, r"^sigproc\.Scale: a View\[float64\] needs a float64 array, "
     r"not float32$"),
    ("sigproc.Scale(i8, 2)", TypeError, "not int8$"),
    ("sigproc.Scale(big, 2)", TypeError, "not >f8$"),
    ("sigproc.Scale(n, None)", TypeError, r"^sigproc\.Scale\(\) argument 'f' must be a real number, not 'NoneType'$"),
    ("sigproc.Scale(n, 1j)", TypeError, r"^sigproc\.Scale\(\) argument 'f' must be a real number, not 'complex'$"),
    ("sigproc.Scale(n, '2')", TypeError, r"^sigproc\.Scale\(\) argument 'f' must be a real number, not 'str'$"),
    ("sigproc.Scale([1.0], 2)", TypeError, "buffer protocol is required, not 'list'"),
    ("sigproc.Scale(object(), 2)", TypeError, "buffer protocol"),
    ("sigproc.Scale(ro, 2)", TypeError, "not uint8$"),
    ("sigproc.Scale(mv.from_buffer(ba, writable=False), 2)", TypeError, "uint8"),
    ("sigproc.Mean(mv.zeros(0))", ValueError, r"^sigproc\.Mean: empty array$"),
    ("sigproc.Mean(np.zeros((3, 0)))", ValueError, "empty array$"),
    ("sigproc.Mean(i8)", TypeError, r"^sigproc\.Mean: a View\[float64\] needs a float64 array, not int8$"),
    ("sigproc.Mean(3)", TypeError, "buffer protocol"),
    ("sigproc.Mean(rel)", ValueError, "released"),
    ("sigproc.Tap(np.zeros((2, 2)))", TypeError,
     r"^sigproc\.Tap: a 1-D float64 array is needed, not memview\.Array\(shape=\(2, 2\), strides=\(16, 8\)"),
    ("sigproc.Tap(np.zeros(3, 'i8'))", TypeError, "a 1-D float64 array is needed"),
    ("sigproc.Tap(rel)", ValueError, "released"),
    ("sigproc.Emit('x')", TypeError, "real number"),
    ("sigproc.Emit(2**1024)", OverflowError, "too large to convert to float"),
    ("gopkg.Dot(n, np.ones(3))", ValueError, r"^gopkg\.Dot: lengths 6 and 3 differ$"),
    ("gopkg.Dot(n, n[::2])", ValueError, r"^gopkg\.Dot\(\) argument 'y': .*contiguous"),
    ("gopkg.Dot(n[::2], n)", ValueError, r"^gopkg\.Dot\(\) argument 'x'"),
    ("gopkg.Dot(n, ro)", TypeError, r"argument 'y'.*not uint8$"),
    ("gopkg.Dot(n, y=rel)", ValueError, r"argument 'y'.*released"),
    ("gopkg.Dot(n)", TypeError, "missing 1 required positional argument: 'y'"),
    ("gopkg.IncInt8s(np.zeros(3))", TypeError, r"Go takes a \[\]int8 here, which needs an array of int8, not float64$"),
    ("gopkg.IncInt16s(np.zeros(3, 'u2'))", TypeError, "int16, not uint16$"),
    ("gopkg.IncInt32s(np.zeros(3, 'u4'))", TypeError, "int32, not uint32$"),
    ("gopkg.IncInt64s(np.zeros(3, '>i8'))", TypeError, "int64, not >i8$"),
    ("gopkg.IncInts(np.zeros(3, 'i4'))", TypeError, r"\[\]int here, which needs an array of int64, not int32$"),
    ("gopkg.IncUint16s(rof)", TypeError, "uint16, not float64$"),
    ("gopkg.IncUint16s(np.zeros(3, 'i2'))", TypeError, "uint16, not int16$"),
    ("gopkg.IncUint32s(np.zeros(3, 'i4'))", TypeError, "uint32, not int32$"),
    ("gopkg.IncUint64s(np.zeros(3, 'i8'))", TypeError, "uint64, not int64$"),
    ("gopkg.IncUints(n)", TypeError, "uint64, not float64$"),
    ("gopkg.IncFloat32s(n)", TypeError, "float32, not float64$"),
    ("gopkg.IncFloat64s(np.zeros(3, '<f2'))", TypeError, "float64, not float16$"),
    ("gopkg.IncComplex64s(c)", TypeError, "complex64, not complex128$"),
    ("gopkg.IncComplex128s(np.zeros(3, 'c8'))", TypeError, "complex128, not complex64$"),
    ("gopkg.IncBools(u8)", TypeError, "bool, not uint8$"),
    ("gopkg.IncBools(np.zeros(3, bool)[::2])", ValueError, r"\(shape \(2,\), strides \(2,\)\)"),
    ("gopkg.IncBytes(i8[::2])", ValueError, r"\[\]byte here, which needs a contiguous array"),
    ("gopkg.IncRunes(np.zeros(3, 'u4'))", TypeError, r"\[\]rune here, which needs an array of int32"),
    ("gopkg.IncUint8s(b'abc')", ValueError, "read-only$"),
    ("gopkg.IncUint8s(np.uint8(1))", ValueError, "read-only$"),  # a NumPy scalar is a read-only 0-d buffer
    ("gopkg.IncUint8s(ro)", ValueError, "read-only$"),
    ("gopkg.IncUint8s(memoryview(ba).toreadonly())", ValueError, "read-only$"),
    ("gopkg.IncUint8s(mv.from_buffer(ba, writable=False))", ValueError, "read-only$"),
    ("gopkg.IncUint8s(u8n[::-1])", ValueError, "contiguous"),
    ("gopkg.IncInt8s(gs)", TypeError, r"a Go \[\]int8 is needed, not a gopy Slice_float64$"),
    ("gopkg.IncUint8s(go.Slice_int8([1]))", TypeError, "not a gopy Slice_int8"),
    ("gopkg.NewAcc().Add(np.ones(2, 'i8'))", TypeError, r"^gopkg\.Acc\.Add\(\) argument 'x': .*not int64$"),
    ("gopkg.NewAcc().Add(n[::3])", ValueError, r"gopkg\.Acc\.Add\(\) argument 'x'.*contiguous"),
    ("gopkg.NewAcc().AddArray(np.ones(2, 'i8'))", TypeError, r"needs a float64 array, not int64$"),
    ("gopkg.NewAcc().AddArray(3)", TypeError, r"gopkg\.Acc\.AddArray\(\) argument 'x'"),
    ("gopkg.Fill(rof, 1)", ValueError, "read-only"),
    ("gopkg.Fill(ro, 1)", TypeError, "not uint8$"),
    ("gopkg.Fill(bv, 1)", TypeError, "not uint8$"),
    ("gopkg.Fill(nv, 'x')", TypeError, "real number"),
    ("gopkg.Describe(np.zeros(3, 'O'))", TypeError, "format"),
    ("gopkg.Describe(__import__('ctypes').pointer(__import__('ctypes').c_uint8()))", TypeError, "pointers"),
    ("gopkg.Describe(object())", TypeError, "buffer protocol is required, not 'object'"),
    ("gopkg.Describe(rel)", ValueError, "released"),
    ("gopkg.Len(mv.zeros((2, 3)).T)", ValueError, r"\(shape \(3, 2\), strides \(8, 24\)\)"),
    ("gopkg.PutUint8(u8n[::2], 0, 1)", ValueError, "contiguous"),
    ("gopkg.PutUint8(u8n, 5, 1)", IndexError, r"^gopkg\.PutUint8: index 5 is out of bounds for a slice of 3$"),
    ("gopkg.PutUint8(u8n, 0, 300)", OverflowError, "Python integer 300 out of bounds for uint8"),
    ("gopkg.PutUint8(u8n, 0, -1)", OverflowError, "Python integer -1 out of bounds for uint8"),
    ("gopkg.PutUint8(bv, 2**63, 1)", OverflowError, r"argument 'i': Python integer 9223372036854775808"),
]

# ---- Go errors and panics: the right exception, a message in Python's words
ERRORS = [
    ("gopkg.Fail('type')", TypeError, r'^gopkg\.Fail\("type"\): unsupported type$'),  # the sentinel is all it says
    ("gopkg.Fail('index')", IndexError, r'^gopkg\.Fail\("index"\): index error$'),
    ("gopkg.Fail('invalid')", ValueError, r'^gopkg\.Fail\("invalid"\): invalid argument$'),
    ("gopkg.Fail('readonly')", ValueError, r'^gopkg\.Fail\("readonly"\): array is read-only$'),
    ("gopkg.Fail('exported')", BufferError, "buffer has live exports$"),
    ("gopkg.Fail('nomemory')", MemoryError, "out of memory$"),
    ("gopkg.Fail('plain')", RuntimeError, r"^gopkg\.Fail: a plain Go error$"),
    ("gopkg.Fail(3)", TypeError, "str"),
    ("gopkg.Fail(None)", TypeError, "str"),
    ("gopkg.Fail(b'type')", TypeError, "str"),
    ("gopkg.Fail('\\udc80')", UnicodeEncodeError, "surrogates not allowed"),
    ("gopkg.Fail()", TypeError, "missing 1 required positional argument"),
    ("gopkg.FailValue(True)", IndexError, r"^gopkg\.FailValue: index error$"),
    ("sigproc.NewSignal(-1)", ValueError, r"^sigproc\.NewSignal: negative length -1$"),
    ("sigproc.NewSignal(2**40)", ValueError, r"1099511627776 samples are too many \(at most 1073741824\)$"),
    ("sigproc.NewSignal(2**63)", OverflowError, r"sigproc\.NewSignal\(\) argument 'n': Python integer "
     r"9223372036854775808 out of bounds for int64"),
    ("sigproc.NewSignal(True)", TypeError, "must be an integer, not 'bool'"),
    ("sigproc.NewSignal(5.0)", TypeError, "must be an integer, not 'float'"),
    ("sigproc.Ramp(2**64)", OverflowError, "out of bounds for int64"),
    ("sigproc.Ramp('3')", TypeError, r"sigproc\.Ramp\(\) argument 'n' must be an integer, not 'str'"),
    ("rgbimage.New(2**15, 2**15 + 1)", ValueError, r"an image of 32768x32769 pixels is too big"),
    ("rgbimage.New(2**62, 2**62)", ValueError, "too big"),
    ("rgbimage.New(2**63 - 1, 2)", ValueError, "too big"),
    ("rgbimage.New(-2**63, 0)", ValueError, "negative"),
    ("rgbimage.New(1)", TypeError, "missing 1 required positional argument"),
    ("im.SetPixel(0, 0, 10**5000, 0, 0)", OverflowError, "of too many digits to print out of bounds for uint8"),
    ("im.SetPixel(0, 0, 10**100, 0, 0)", OverflowError,
     r"Python integer 100000000000\.\.\. \(101 digits\) out of bounds for uint8"),
    ("im.SetPixel(0, 0, np.int64(256), 0, 0)", OverflowError, "256 out of bounds for uint8"),
    ("im.SetPixel(0, 0, np.float64(1), 0, 0)", TypeError, "must be an integer, not 'float64'"),
    ("im.SetPixel(0, 0, None, 0, 0)", TypeError, "not 'NoneType'"),
    ("im.SetPixel(3, 2, 1, 2, -2**63)", OverflowError, "argument 'b'"),
    ("im.SetPixel(x=0, y=0, r=1, g=2, b=256)", OverflowError, "argument 'b': Python integer 256"),
    ("gopkg.PanicIndex(np.zeros(3))", IndexError, r"^Go panic: memview: index 3 is out of range for axis 0 with size 3$"),
    ("gopkg.Panic('boom')", RuntimeError, "^Go panic: boom$"),
    ("gopkg.PanicValue('bang')", RuntimeError, "^Go panic: bang$"),
    ("gopkg.Panic(1)", TypeError, "str"),
    ("gopkg.Sleep(n, -2**63 - 1)", OverflowError, r"gopkg\.Sleep\(\) argument 'ms'"),
    ("gopkg.Sleep(n[::2], 0)", ValueError, r"gopkg\.Sleep\(\) argument 'x'"),
    ("gopkg.Churn(2**64)", OverflowError, "out of bounds for int64"),
    ("gopkg.Float64s(1.5)", TypeError, "not 'float'"),
    ("gopkg.Bools(-1)", RuntimeError, "Go panic: runtime error: makeslice: len out of range"),
]

# ---- gopy objects made wrong: forged, stale and mismatched handles
HANDLES = [
    ("gopkg.Count(handle=10**12).Next()", ValueError,
     r"^the Go \*gopkg\.Count of this method call is gone or was never made "
     r"\(gopy: variable handle not registered: 1000000000000\)$"),
    ("rgbimage.Image(handle=10**12).Invert()", ValueError, r"the Go \*rgbimage\.Image of this method call is gone"),
    ("rgbimage.Image(handle=0).Width()", ValueError, r"gone or was never made \(gopy: nil handle\)$"),
    ("rgbimage.Image(handle=-7).SetPixel(0, 0, 1, 2, 3)", ValueError, "nil handle"),
    ("[h := rgbimage.New(1, 1).handle, rgbimage.Image(handle=h).Invert()]", ValueError,
     "not registered"),
    ("rgbimage.Image(handle=sig.handle).Invert()", ValueError,
     r"^a \*rgbimage\.Image is needed here, and the gopy object holds a \*sigproc\.Signal "
     r"\(made with the handle of another Go value\)$"),
    ("sigproc.Signal(handle=im.handle).Total()", ValueError, r"holds a \*rgbimage\.Image"),
    ("rgbimage.Image(handle=gs.handle).Width()", ValueError, r"holds a \*\[\]float64"),
    ("rgbimage.Image(handle=sig.handle).SetPixel(0, 0, 1, 2, 300)", OverflowError, "300 out of bounds for uint8"),
    ("gopkg.Acc(handle=im.handle).Add(n)", ValueError, r"a \*gopkg\.Acc is needed here"),
    ("mv.from_go(rgbimage.Image(handle=10**12))", ValueError,
     r"^memview: gopy handle 1000000000000: variable handle not registered: 1000000000000 "
     r"\(the Go value is gone, or the handle is not gopy's\)$"),
    ("mv.asarray(rgbimage.Image(handle=0))", ValueError, "gopy handle 0: nil handle"),
    ("mv.asarray(go.nil)", ValueError, "gopy handle 0: nil handle"),
    ("[g := go.GoClass(), setattr(g, 'handle', True), mv.from_go(g)]", TypeError,
     r"memview\.from_go\(\) argument 'handle' must be an integer, not 'bool'"),
    ("[g := go.GoClass(), setattr(g, 'handle', '1'), mv.asarray(g)]", TypeError, "must be an integer, not 'str'"),
    ("[g := go.GoClass(), setattr(g, 'handle', -2**63 - 1), mv.from_go(g)]", OverflowError,
     "out of bounds for int64"),
    ("[g := go.GoClass(), delattr(g, 'handle'), mv.from_go(g)]", AttributeError, "handle"),
    ("mv.from_go(go.GoClass())", ValueError, "gopy handle 0: nil handle"),
]

# ---- Go values to Python: mv.from_go and mv.asarray
FROM_GO = [
    ("mv.from_go(gopkg.NewCount())", TypeError,
     r"^memview: a Go \*gopkg\.Count has no memory memview can view \(a slice of numbers or bools, "
     r"a \*memview\.Array or a memview\.Exporter is needed\)$"),
    ("mv.asarray(gopkg.NewAcc())", TypeError, "no memory memview can view"),
    ("mv.from_go(go.Slice_string(['a']))", TypeError, r"a Go \*\[\]string has elements of type string, "
     "which memview has no dtype for$"),
    ("mv.from_go(go.Slice_error())", TypeError, "elements of type error"),
    ("mv.from_go(gopkg.NewReadOnly(3), writable=True)", BufferError,
     r"^memview: export of \*gopkg\.ReadOnly: request ReqRecords: the array is read-only$"),
    ("mv.from_go(im, True)", TypeError, "positional argument"),
    ("mv.from_go(im, bogus=1)", TypeError, "bogus"),
    ("mv.from_go()", TypeError, "obj"),
    ("mv.from_go(n)", TypeError, "a Go value bound by gopy is required, not 'ndarray'"),
    ("mv.from_go(n)", TypeError, "not 'ndarray'"),
    ("mv.from_go(im, writable=None)[0, 0, 0] = 256", OverflowError, "256 out of bounds for uint8"),
    ("mv.from_go(im, writable=False)[1, 2] = 0", ValueError, "read-only"),
    ("mv.from_go(gs, writable=False).fill(1)", ValueError, "read-only"),
    ("mv.from_go(gs, writable=False).frombytes(b'x' * 32)", ValueError, "read-only"),
    ("memoryview(mv.from_go(gs, writable=False)).cast('B')[0:1] = b'x'", TypeError, "read-only"),
    ("np.asarray(mv.from_go(sig, writable=False))[0] = 1", ValueError, "read-only"),
    ("mv.asarray(im)[3]", IndexError, "index 3 is out of bounds for axis 0 with size 3"),
    ("mv.asarray(im)[..., 3]", IndexError, "index 3 is out of bounds for axis 2 with size 3"),
    ("mv.asarray(im)[0, 0] = (1, 2)", ValueError, "broadcast"),
    ("mv.asarray(im)[:] = 'x'", ValueError, "invalid literal for int"),
    ("mv.asarray(im).reshape(5)", ValueError, r"cannot reshape array of size 36 into shape \(5,\)"),
    ("mv.asarray(im).fill(-1)", OverflowError, "-1 out of bounds for uint8"),
    ("mv.asarray(sig)[5]", IndexError, "index 5 is out of bounds for axis 0 with size 5"),
    ("mv.asarray(sig)[:] = [1, 2]", ValueError, "broadcast"),
    ("mv.asarray(sig)[0] = 'x'", ValueError, "could not convert string to float"),
    ("mv.asarray(gs)[:] = np.zeros(5)", ValueError, "broadcast"),
    ("mv.asarray(gs).frombytes(b'x' * 31)", ValueError, "needs 32 bytes, got 31"),
    ("mv.asarray(gs)[0] = None", TypeError, ""),
    ("mv.asarray(gopkg.Uint8s(3))[0] = 256", OverflowError, "256 out of bounds for uint8"),
    ("mv.asarray(gopkg.Bools(3)).reshape(2, 2)", ValueError, "cannot reshape array of size 3"),
    ("gs[0] = 'x'", TypeError, r"Slice_float64_set\(\) argument 'value' must be a real number, not 'str'"),
    ("gs[10]", IndexError, ""),
    ("go.Slice_uint8([0, 0])[0] = 300", OverflowError, r"Slice_uint8_set\(\) argument 'value': Python integer 300"),
]

# ---- integer arguments: each Go integer type takes its range exactly (tests/test_gopy_ints.py: the values
# at both ends pass), and refuses the rest before Go runs
GO_INTS = [("Int8", "int8", -2**7, 2**7 - 1), ("Int16", "int16", -2**15, 2**15 - 1),
           ("Int32", "int32", -2**31, 2**31 - 1), ("Int64", "int64", -2**63, 2**63 - 1),
           ("Int", "int64", -2**63, 2**63 - 1), ("Rune", "int32", -2**31, 2**31 - 1),
           ("Uint8", "uint8", 0, 2**8 - 1), ("Byte", "uint8", 0, 2**8 - 1), ("Uint16", "uint16", 0, 2**16 - 1),
           ("Uint32", "uint32", 0, 2**32 - 1), ("Uint64", "uint64", 0, 2**64 - 1), ("Uint", "uint64", 0, 2**64 - 1),
           ("Uintptr", "uint64", 0, 2**64 - 1)]


def np_bad(hi):
    """A NumPy integer scalar just outside the range whose top is hi."""
    return f"np.int64({hi + 1})" if hi < 2**62 else f"np.uint64({hi + 1})" if hi == 2**63 - 1 else "np.int64(-1)"


INTEGERS = []
for name, typ, lo, hi in GO_INTS:
    f = f"gopkg.Echo{name}"
    INTEGERS += [
        (f"{f}({lo - 1})", OverflowError, rf"^{f}\(\) argument 'v': Python integer {lo - 1} out of bounds for {typ}$"),
        (f"{f}({hi + 1})", OverflowError, f"Python integer {hi + 1} out of bounds for {typ}$"),
        (f"{f}(v={hi + 1})", OverflowError, f"argument 'v': Python integer {hi + 1} out of bounds"),
        (f"{f}(-10**30)", OverflowError, f"Python integer -10000000000... \\(31 digits\\) out of bounds for {typ}"),
        (f"{f}(2**200)", OverflowError, f"out of bounds for {typ}$"),
        (f"{f}(True)", TypeError, f"^{f}\\(\\) argument 'v' must be an integer, not 'bool'$"),
        (f"{f}(1.0)", TypeError, "must be an integer, not 'float'"),
        (f"{f}('1')", TypeError, "must be an integer, not 'str'"),
        (f"{f}(None)", TypeError, "must be an integer, not 'NoneType'"),
        (f"{f}(np.float32(1))", TypeError, "must be an integer, not 'float32'"),
        (f"{f}({np_bad(hi)})", OverflowError, "out of bounds"),
    ]
# gopy's own Go slice types: each element is converted the same way
GO_SLICES = [("int8", -2**7, 2**7 - 1), ("int16", -2**15, 2**15 - 1), ("int32", -2**31, 2**31 - 1),
             ("int64", -2**63, 2**63 - 1), ("int", -2**63, 2**63 - 1), ("rune", -2**31, 2**31 - 1),
             ("uint8", 0, 2**8 - 1), ("byte", 0, 2**8 - 1), ("uint16", 0, 2**16 - 1), ("uint32", 0, 2**32 - 1),
             ("uint64", 0, 2**64 - 1), ("uint", 0, 2**64 - 1)]
INTEGERS += [(f"go.Slice_{t}([{lo}, {bad}])", OverflowError,
              rf"^Slice_{t}_append\(\) argument 'value': Python integer {bad} out of bounds")
             for t, lo, hi in GO_SLICES for bad in (lo - 1, hi + 1)]
INTEGERS += [(f"go.Slice_{t}([True])", TypeError, "not 'bool'") for t, _, _ in GO_SLICES[::3]]


@pytest.mark.parametrize("source, exc, match", rows(LENDING))
def test_lending(source, exc, match):
    run_row(source, exc, match)


@pytest.mark.parametrize("source, exc, match", rows(ERRORS))
def test_go_errors(source, exc, match):
    run_row(source, exc, match)


@pytest.mark.parametrize("source, exc, match", rows(HANDLES))
def test_handles(source, exc, match):
    run_row(source, exc, match)


@pytest.mark.parametrize("source, exc, match", rows(FROM_GO))
def test_from_go(source, exc, match):
    run_row(source, exc, match)


@pytest.mark.parametrize("source, exc, match", rows(INTEGERS))
def test_integers(source, exc, match):
    run_row(source, exc, match)
