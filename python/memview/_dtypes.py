"""Element types as the Python side needs them: one element's bytes to and from
Python values, by dtype name (the basic types through struct, every other format
through _formats).

The Go core owns the dtype table (names, typestrs, PEP 3118 formats).
"""
from __future__ import annotations

import math
import struct

from ._convert import STRUCT, _INT_RANGE, _short, convert, half_nan, half_nan_bits, saturate  # noqa: F401
from . import _formats, _record

# formats whose elements memoryview.tolist() and indexing understand natively
MEMORYVIEW_FORMATS = frozenset("?bBhHiIlLqQfd")


def pack(dtype: str, value) -> bytes:
    """One element of dtype holding value."""
    if dtype not in STRUCT:
        return _formats.codec(dtype).pack(value)
    v = convert(dtype, value)
    code = "=" + STRUCT[dtype]
    if dtype == "float16" and v != v:  # a NaN keeps its payload, as in NumPy
        return half_nan_bits(v).to_bytes(2, "little")
    try:
        return struct.pack(code, *v) if isinstance(v, tuple) else struct.pack(code, v)
    except OverflowError:
        # float32/float16 out of range become ±inf, as in NumPy.
        if isinstance(v, tuple):
            v = tuple(math.copysign(math.inf, x) if abs(x) > 1 else x for x in v)
            return struct.pack(code, *v)
        return struct.pack(code, math.copysign(math.inf, v))


def unpacker(dtype: str):
    """A function from one element's bytes to its Python value."""
    if dtype not in STRUCT:
        return _formats.codec(dtype).unpack
    s = struct.Struct("=" + STRUCT[dtype])
    if dtype.startswith("complex"):
        return lambda b: complex(*s.unpack(b))
    if dtype == "float16":
        return lambda b: _half(s.unpack(b)[0], b)
    return lambda b: s.unpack(b)[0]


def element(dtype: str, raw: bytes):
    """One element's Python value from its bytes: a memview.record for a record
    dtype (a tuple of its fields that keeps the bytes), else what unpacker gives."""
    if dtype not in STRUCT:
        c = _formats.codec(dtype)
        if c.is_record:
            return _record.record(c.unpack(raw), c.top.names, raw, dtype)
        return c.unpack(raw)
    return unpacker(dtype)(raw)


def iter_values(dtype: str, data: bytes):
    """The Python values of a run of packed elements."""
    if dtype not in STRUCT:
        return _formats.codec(dtype).iter_unpack(data)
    s = struct.Struct("=" + STRUCT[dtype])
    if dtype.startswith("complex"):
        return (complex(*t) for t in s.iter_unpack(data))
    if dtype == "float16":
        return (_half(t[0], data[2 * i:2 * i + 2]) for i, t in enumerate(s.iter_unpack(data)))
    return (t[0] for t in s.iter_unpack(data))


def _half(x: float, b) -> float:
    """x read from the float16 bytes b, with a NaN's payload as NumPy reads it."""
    return half_nan(int.from_bytes(b, "little")) if x != x else x
