"""Bad inputs, part 1: creating arrays, dtypes and formats, item descriptors,
imports of buffers and CUDA memory. Each row: what a new user might type, the
exception it must raise (and a fragment of its message), and that nothing
changed (catalogue.run_row checks arrays, buffers, pools and handles)."""
import pytest

import memview as mv
from catalogue import rows, run_row

# ---- creation: shapes
SHAPES = [
    ("mv.zeros(-1)", ValueError, "negative dimensions"),
    ("mv.zeros((2, -3))", ValueError, r"negative dimensions.*\(2, -3\)"),
    ("mv.empty(-5, 'int8')", ValueError, "negative dimensions"),
    ("mv.zeros(1.5)", TypeError, "integers"),
    ("mv.zeros((2, 1.0))", TypeError, "integer"),
    ("mv.zeros('3')", TypeError, "integers"),
    ("mv.zeros(None)", TypeError, "integers"),
    ("mv.zeros(True)", TypeError, "bool"),
    ("mv.zeros((2, False))", TypeError, "bool"),
    ("mv.zeros([[2, 3]])", TypeError, "integers"),
    ("mv.zeros((2, None))", TypeError, "integer"),
    ("mv.zeros({2: 3})", TypeError, "integers"),
    ("mv.zeros(object())", TypeError, "integers"),
    ("mv.zeros((1,) * 65)", ValueError, "65 dimensions"),
    ("mv.zeros((0,) * 65)", ValueError, "at most 64"),
    ("mv.zeros(2**70)", ValueError, "maximum allowed dimension"),
    ("mv.zeros(-2**70)", ValueError, "maximum allowed dimension"),
    ("mv.zeros((2**40, 2**40))", ValueError, "array is too big"),
    ("mv.zeros((2**62, 4))", ValueError, "array is too big"),
    ("mv.zeros((2**31, 2**31, 2**31))", ValueError, "too big"),
    ("mv.empty((2**61,), 'complex128')", ValueError, "too big"),
    ("mv.zeros(2**50, 'uint8')", MemoryError, ""),
    ("mv.zeros(np.float64(3))", TypeError, "integers"),
    ("mv.zeros(np.array([2, 3]))", TypeError, "integer"),
    ("mv.zeros((np.int64(-1),))", ValueError, "negative"),
    ("mv.zeros(3, device='cuda', dtype='float64', order='C').shape", mv.cuda.CUDAError, ""),
    ("mv.full(-1, 0)", ValueError, "negative"),
    ("mv.full((2, 'x'), 0)", TypeError, "integer"),
    ("mv.zeros(3, order='X')", ValueError, "order"),
    ("mv.zeros(3, order='')", ValueError, "order"),
    ("mv.zeros(3, order='CF')", ValueError, "order"),
    ("mv.zeros(3, order='c')", ValueError, "order"),
    ("mv.zeros(3, order='K')", ValueError, "order"),
    ("mv.zeros(3, order='A')", ValueError, "order"),
    ("mv.zeros(3, order=None)", TypeError, "order must be"),
    ("mv.zeros(3, order=1)", TypeError, "order must be"),
    ("mv.zeros(3, order='C\\x00')", ValueError, "order must be"),
    ("mv.zeros(3, device='gpu')", ValueError, "device"),
    ("mv.zeros(3, device='cuda:x')", ValueError, "device"),
    ("mv.zeros(3, device='cuda:-1')", ValueError, "device"),
    ("mv.zeros(3, device='')", ValueError, "device"),
    ("mv.zeros(3, device='CPU')", ValueError, "device"),
    ("mv.zeros(3, device=0)", TypeError, "device"),
    ("mv.zeros(3, device=None)", TypeError, "device"),
    ("mv.zeros(3, device='cuda:99999999999999999999')", ValueError, "device"),
    ("mv.zeros(3, 'float64', 'C')", TypeError, "positional"),
    ("mv.zeros(3, 'é' * 400)", TypeError, "not understood"),
    ("mv.zeros(3, 'T{' + 'é' * 300)", TypeError, "not understood"),
    ("mv.zeros(3, 'd' * 3000 + '}')", TypeError, r'data type "d+"\.\.\. not understood'),
    ("mv.zeros(3, 'T{i:\\udc80:}')", TypeError, "not understood"),
    ("mv.zeros(3, dtype='float64', shape=3)", TypeError, "shape"),
    ("mv.empty()", TypeError, "shape"),
]

# ---- creation: values and ranges
VALUES = [
    ("mv.full(3, 300, 'int8')", OverflowError, "300 out of bounds for int8"),
    ("mv.full(3, -1, 'uint8')", OverflowError, "-1 out of bounds for uint8"),
    ("mv.full(3, 2**64, 'uint64')", OverflowError, "out of bounds for uint64"),
    ("mv.full(3, 2**63, 'int64')", OverflowError, "out of bounds for int64"),
    ("mv.full(3, 2**63)", OverflowError, "out of bounds for int64"),
    ("mv.full(3, -2**63 - 1)", OverflowError, "out of bounds"),
    ("mv.full(3, 'x')", ValueError, "could not convert string to float"),
    ("mv.full(3, 'x', 'int32')", ValueError, "invalid literal for int"),
    ("mv.full(3, None)", TypeError, ""),
    ("mv.full(3, object())", TypeError, ""),
    ("mv.full(3, [1, 2, 3])", ValueError, "sequence"),
    ("mv.full(3, (1, 2))", ValueError, "sequence"),
    ("mv.full(3, float('nan'), 'int32')", ValueError, "cannot convert float NaN"),
    ("mv.full(3, float('inf'), 'int64')", OverflowError, "cannot convert float infinity"),
    ("mv.full(3, 1j, 'float64')", TypeError, ""),
    ("mv.full(3, 2**1024)", OverflowError, "out of bounds for int64"),
    ("mv.full(3, 2**1024, float)", OverflowError, "too large to convert to float64"),
    ("mv.full(3, 2**1024, 'float32')", OverflowError, "too large to convert to float32"),
    ("mv.full(3, 2**1024, 'complex64')", OverflowError, "too large to convert to complex64"),
    ("mv.full(3, 10**100, 'int8')", OverflowError, r"Python integer 100000000000\.\.\. \(101 digits\) out of bounds for int8"),
    ("mv.full(3, -10**30, 'int64')", OverflowError, r"Python integer -10000000000\.\.\. \(31 digits\) out of bounds"),
    ("mv.full(3, 10**5000, 'int8')", OverflowError, "Python integer of too many digits to print out of bounds for int8"),
    ("mv.full(3, 10**5000, 'float64')", OverflowError, "too many digits to print is too large to convert to float64"),
    ("mv.full(3, 1 + 2j, 'T{<i:a:<d:b:}')", TypeError, "complex"),
    ("mv.full(3, (1,), 'T{<i:a:<d:b:}')", ValueError, "record of 2 fields"),
    ("mv.full(3, ('x', 1.0), 'T{<i:a:<d:b:}')", ValueError, "invalid literal"),
    ("mv.full(3, (None, 1.0), 'T{<i:a:<d:b:}')", TypeError, ""),
    ("mv.full(3, {'a': 1}, 'T{<i:a:<d:b:}')", ValueError, "fields"),
    ("mv.full(3, 5j, '3s')", TypeError, "bytes"),
    ("mv.full(2, [1, 2], '(2,3)f')", ValueError, "broadcast"),
    ("mv.full(2, [[1, 2], [3, 4]], '(2,3)f')", ValueError, "broadcast"),
    ("mv.full(2, [[1, 2, 3], [4, 5]], '(2,3)f')", ValueError, "inhomogeneous"),
    ("mv.full(3, 7, 'zz')", TypeError, "not understood"),
    ("mv.full(3, 1, dtype=3)", TypeError, "not understood"),
    ("mv.full(3, 1, device='gpu')", ValueError, "device"),
    ("mv.full(3, 1, stream=-1)", ValueError, "stream"),
    ("mv.full(3, 1, stream='s')", TypeError, "stream"),
    ("mv.full(3, 1, stream=True)", TypeError, "bool"),
    ("mv.full(3, 1, stream=2**64)", ValueError, "stream"),
    ("mv.arange(0, 10, 0)", ValueError, "step"),
    ("mv.arange(0, 10, 0.0)", ValueError, "step"),
    ("mv.arange(float('inf'))", ValueError, "Maximum allowed size"),
    ("mv.arange(0, float('inf'), 1)", ValueError, "size"),
    ("mv.arange(float('nan'))", ValueError, "length"),
    ("mv.arange(0, 1, float('nan'))", ValueError, "length"),
    ("mv.arange('a')", TypeError, ""),
    ("mv.arange(None)", TypeError, ""),
    ("mv.arange(3, 'x')", TypeError, ""),
    ("mv.arange(1j)", TypeError, ""),
    ("mv.arange(2**70)", ValueError, "maximum allowed dimension"),
    ("mv.arange(2**62)", ValueError, "too big"),
    ("mv.arange(300, dtype='int8')", OverflowError, "out of bounds for int8"),
    ("mv.arange(-1, 3, dtype='uint8')", OverflowError, "out of bounds for uint8"),
    ("mv.arange(3, dtype='zz')", TypeError, "not understood"),
    ("mv.arange(3, dtype='T{i:a:}')", TypeError, ""),
    ("mv.arange(3, dtype='3s')", TypeError, ""),
    ("mv.arange(3, device='gpu')", ValueError, "device"),
    ("mv.arange(3, device=1)", TypeError, "device"),
    ("mv.arange(3, stream='s')", TypeError, ""),
]

# ---- dtypes and formats (each through mv.zeros; item_desc below)
BAD_DTYPES = [
    "zz", "float96", "float8", "int128", "uint3", "f3", "i0", "i3", "complex512", "longlongdouble",
    "g3", "Zq", "O", "&i", "U0", "<U0", "M8", "m8", "datetime64", "object", "str", "V0", "a5",
    "T{i", "T{}", "T{i<}", "(2", "(2)", "(2,)", "(-1)d", "(2,x)d", "()d", "(2,3", "2", "Z", "Zq",
    ">", "<", "@", "=", "!", "<>i", "i:x", "i::", "i:a:i:a:", "T{i:a:i:a:}", "0d", "0s", "0x",
    "T{}0d", "<n", "=N", ">N", "d\x00", "d\x00junk", "\x00", "\ud800", "é", "T{i}}", "}", "{i}",
    "x:", ":a:", "3", "ii:", "S0", "|S0", "S", "float64 ", " int8", "int 8", "c1", "c64", "b2", "?2",
    "T{" * 65 + "i" + "}" * 65, "(" + ",".join(["1"] * 65) + ")d", "1" * 40 + "d",
    "(9999999999999999999)d", "99999999999999999999s", "",
    "<l", ">l", "=l", "!l", "<L", ">L", "=L", "!L",  # NumPy and struct read these differently
]
DTYPES = [(f"mv.zeros(3, {d!r})", TypeError, "not understood|format|data type") for d in BAD_DTYPES] + [
    ("mv.zeros(3, 3)", TypeError, "not understood"),
    ("mv.zeros(3, object)", TypeError, "Python objects"),
    ("mv.zeros(3, memoryview)", TypeError, "not understood"),
    ("mv.zeros(3, [('a', 'i4')])", TypeError, "not understood"),
    ("mv.zeros(3, {'names': ['a']})", TypeError, "not understood"),
    ("mv.zeros(3, b'f8')", TypeError, "not understood"),
    ("mv.zeros(3, np.dtype(object))", TypeError, "Python objects"),
    ("mv.zeros(3, np.dtype([('o', 'O')]))", TypeError, "Python objects"),
    ("mv.zeros(3, np.dtype('M8[s]'))", TypeError, "not understood"),
    ("mv.zeros(3, np.datetime64)", TypeError, "not understood"),
    ("mv.zeros(3, np.str_)", TypeError, "not understood"),
    ("mv.zeros(3, mv.zeros(3))", TypeError, "not understood"),
    ("mv.zeros(3, True)", TypeError, "not understood"),
]

# ---- item descriptors
ITEM_DESC = [(f"mv.item_desc({d!r})", TypeError, "not understood|format|data type") for d in BAD_DTYPES[:40]] + [
    ("mv.item_desc(3)", TypeError, "not understood"),
    ("mv.item_desc(None)", TypeError, "not understood"),
    ("mv.item_desc(b'd')", TypeError, "not understood"),
    ("mv.item_desc(rel)", ValueError, "released"),
    ("mv.item_desc()", TypeError, ""),
    ("mv.item_desc('d', 'i')", TypeError, ""),
]

# ---- from_buffer
FROM_BUFFER = [
    ("mv.from_buffer(3)", TypeError, "buffer protocol"),
    ("mv.from_buffer(None)", TypeError, "buffer protocol"),
    ("mv.from_buffer('abc')", TypeError, "buffer protocol"),
    ("mv.from_buffer([1, 2, 3])", TypeError, "buffer protocol"),
    ("mv.from_buffer(object())", TypeError, "buffer protocol"),
    ("mv.from_buffer(b'ab', writable=True)", BufferError, "read-only"),
    ("mv.from_buffer(memoryview(b'ab'), writable=True)", BufferError, "read-only"),
    ("mv.from_buffer(ro, writable=True)", BufferError, "read-only"),
    ("mv.from_buffer(ba, writable='yes')", TypeError, "writable"),
    ("mv.from_buffer(ba, writable=1)", TypeError, "writable"),
    ("mv.from_buffer(ba, copy='x')", TypeError, "copy"),
    ("mv.from_buffer(ba, copy=1)", TypeError, "copy"),
    ("mv.from_buffer(ba, 1)", TypeError, "positional"),
    ("mv.from_buffer(ba, bogus=1)", TypeError, "bogus"),
    ("mv.from_buffer(__import__('ctypes').pointer(__import__('ctypes').c_uint8()))", TypeError, "pointers"),
    ("mv.from_buffer(np.array([None]))", TypeError, "format"),
    ("mv.from_buffer(np.zeros(2, [('a', 'i4'), ('o', 'O')]))", TypeError, "reference counting"),
    ("mv.from_buffer(np.zeros(2, 'M8[s]'))", Exception, ""),
    ("mv.from_buffer(np.frombuffer(bytearray(17), 'f8', 2, 1))", ValueError, "aligned"),
    ("mv.from_buffer(np.ndarray((2,), '<i4', bytearray(12), 0, (6,)))", ValueError, "multiple of the item size"),
    ("mv.from_buffer(memoryview(ba).toreadonly(), writable=True)", BufferError, "read-only"),
    ("mv.from_buffer(rel)", ValueError, "released"),
    ("mv.from_buffer((__import__('ctypes').c_char_p * 2)())", TypeError, "points outside the buffer"),
    ("mv.from_buffer((type('B', (__import__('ctypes').Structure,), "
     "{'_fields_': [('a', __import__('ctypes').c_uint32, 3)]}) * 2)())", TypeError, "bitfield"),
    ("mv.from_buffer(np.zeros(3)[::2], copy=False, writable=True).fill('x')", ValueError, "convert"),
]

# ---- CUDA Array Interface descriptions (from_cuda_array_interface, gpumemoryview, asarray)
BAD_CAI = [
    ("cai(shape=...)", ValueError, "lacks the required key 'shape'"),
    ("cai(typestr=...)", ValueError, "lacks the required key 'typestr'"),
    ("cai(data=...)", ValueError, "lacks the required key 'data'"),
    ("cai(version=4)", ValueError, "version 4"),
    ("cai(version=-1)", ValueError, "version"),
    ("cai(version='3')", ValueError, "version"),
    ("cai(version=True)", ValueError, "version"),
    ("cai(shape=5)", TypeError, "shape must be a tuple"),
    ("cai(shape=(-1,))", ValueError, "negative"),
    ("cai(shape=(2.0,))", TypeError, "ints"),
    ("cai(shape=(True,))", TypeError, "bool"),
    ("cai(shape=(1,) * 65)", ValueError, "65 dimensions"),
    ("cai(shape=(2**63,))", ValueError, "64 bits"),
    ("cai(shape=(2**62, 4))", ValueError, "more than fit in 64 bits"),
    ("cai(typestr=4)", TypeError, "typestr must be a str"),
    ("cai(typestr='zz')", TypeError, "not understood"),
    ("cai(typestr='<f4\\x00')", TypeError, "NUL"),
    ("cai(typestr='|O8')", TypeError, "not understood"),
    ("cai(data=PTR)", TypeError, "data must be"),
    ("cai(data=(PTR,))", TypeError, "data must be"),
    ("cai(data=[PTR, False])", TypeError, "data must be"),
    ("cai(data=('0x10', False))", TypeError, "pointer"),
    ("cai(data=(1.0, False))", TypeError, "pointer"),
    ("cai(data=(True, False))", TypeError, "pointer"),
    ("cai(data=(-1, False))", ValueError, "address space"),
    ("cai(data=(2**64, False))", ValueError, "address space"),
    ("cai(data=(2**100, False), shape=(2**63,))", ValueError, "64 bits"),
    ("cai(data=(2**100, False))", ValueError, "address space"),
    ("cai(data=(0, False))", ValueError, "null data pointer"),
    ("cai(data=(0, False), shape=(32,), typestr='|u1')", ValueError, "null data pointer"),
    ("cai(data=(2**64 - 8, False), shape=(10,), typestr='|u1')", ValueError, "past the end of the address space"),
    ("cai(data=(2**64 - 4, False), shape=(2,))", ValueError, "past the end"),
    ("cai(data=(16, False), shape=(4,), strides=(-8,))", ValueError, "below it"),
    ("cai(data=(PTR, 0))", TypeError, "readonly flag"),
    ("cai(data=(PTR, None))", TypeError, "readonly flag"),
    ("cai(strides=(4, 4))", ValueError, "2 strides for 1 dimensions"),
    ("cai(strides=4)", TypeError, "strides must be a tuple"),
    ("cai(strides=(4.0,))", TypeError, "ints"),
    ("cai(strides=(2**64,))", ValueError, "64 bits"),
    ("cai(mask=cai())", ValueError, "mask"),
    ("cai(stream=0)", ValueError, "stream 0"),
    ("cai(stream=-5)", ValueError, "stream -5"),
    ("cai(stream=-1)", ValueError, "not a CUDA stream"),
    ("cai(stream=2**64)", ValueError, "not a CUDA stream"),
    ("cai(stream=1.0)", TypeError, "stream"),
    ("cai(stream='1')", TypeError, "stream"),
    ("cai(stream=True)", TypeError, "stream"),
]
CAI = ([(f"mv.from_cuda_array_interface({src})", exc, m) for src, exc, m in BAD_CAI]
       + [(f"mv.gpumemoryview({src})", exc, m) for src, exc, m in BAD_CAI]
       + [(f"mv.asarray({src})", exc, m) for src, exc, m in BAD_CAI[::3]]) + [
    ("mv.from_cuda_array_interface(cai(strides=(6,)))", ValueError, "multiple of the item size"),
    ("mv.from_cuda_array_interface(cai(data=(PTR + 2, False)))", ValueError, "aligned"),
    ("mv.from_cuda_array_interface(3)", TypeError, "no __cuda_array_interface__"),
    ("mv.from_cuda_array_interface(a)", TypeError, "no __cuda_array_interface__"),
    ("mv.from_cuda_array_interface(Producer())", ValueError, "lacks the required key"),
    ("mv.from_cuda_array_interface(cai(), sync=1)", TypeError, "sync"),
    ("mv.from_cuda_array_interface(type('P', (), {'__cuda_array_interface__': 3})())", TypeError, "dict"),
    ("mv.gpumemoryview(3)", ValueError, "CUDA array interface"),
    ("mv.gpumemoryview(a)", ValueError, "CUDA array interface"),
    ("mv.gpumemoryview(cai(shape=(3, 4), strides=(4, 12)))", ValueError, "C-contiguous"),
    ("mv.gpumemoryview(type('P', (), {'__cuda_array_interface__': [1]})())", TypeError, "dict"),
    ("mv.gpumemoryview(cai()).byte_slice(3)", TypeError, "slice"),
    ("mv.gpumemoryview(cai()).byte_slice(slice(0, 8, 2))", ValueError, "step=1"),
    ("mv.gpumemoryview(cai()).byte_slice(slice('a', 2))", TypeError, ""),
    ("hash(mv.gpumemoryview(cai()))", TypeError, "unhashable"),
    ("len(mv.gpumemoryview(cai(shape=())))", TypeError, "0-d"),
]

no_driver = pytest.mark.skipif(mv.cuda.is_available(),
                               reason="made-up device pointers are only accepted without a CUDA driver")


@pytest.mark.parametrize("source, exc, match", rows(SHAPES))
def test_shapes(source, exc, match):
    run_row(source, exc, match)


@pytest.mark.parametrize("source, exc, match", rows(VALUES))
def test_values(source, exc, match):
    run_row(source, exc, match)


@pytest.mark.parametrize("source, exc, match", rows(DTYPES))
def test_dtypes(source, exc, match):
    run_row(source, exc, match)


@pytest.mark.parametrize("source, exc, match", rows(ITEM_DESC))
def test_item_desc(source, exc, match):
    run_row(source, exc, match)


@pytest.mark.parametrize("source, exc, match", rows(FROM_BUFFER))
def test_from_buffer(source, exc, match):
    run_row(source, exc, match)


@no_driver
@pytest.mark.parametrize("source, exc, match", rows(CAI))
def test_cuda_descriptions(source, exc, match):
    run_row(source, exc, match)
