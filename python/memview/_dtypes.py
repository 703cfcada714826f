"""Element types as the Python side needs them: struct codes and value conversion.

The Go core owns the dtype table (names, typestrs, PEP 3118 formats); this module
only converts Python values to and from one element's bytes.
"""
from __future__ import annotations

import math
import operator
import struct

# struct codes with standard sizes and no alignment ('=' prefix)
STRUCT = {
    "bool": "?", "int8": "b", "uint8": "B", "int16": "h", "uint16": "H",
    "int32": "i", "uint32": "I", "int64": "q", "uint64": "Q",
    "float16": "e", "float32": "f", "float64": "d",
    "complex64": "ff", "complex128": "dd",
}

# formats whose elements memoryview.tolist() and indexing understand natively
MEMORYVIEW_FORMATS = frozenset("?bBhHiIlLqQfd")

_INT_RANGE = {
    "int8": (-(1 << 7), (1 << 7) - 1), "uint8": (0, (1 << 8) - 1),
    "int16": (-(1 << 15), (1 << 15) - 1), "uint16": (0, (1 << 16) - 1),
    "int32": (-(1 << 31), (1 << 31) - 1), "uint32": (0, (1 << 32) - 1),
    "int64": (-(1 << 63), (1 << 63) - 1), "uint64": (0, (1 << 64) - 1),
}


def convert(dtype: str, value):
    """Convert a Python value to what struct packs for dtype, as NumPy assignment would."""
    if isinstance(value, (list, tuple)):
        raise ValueError(f"memview: setting an array element with a sequence ({dtype} elements are scalars)")
    if dtype == "bool":
        return bool(value)
    if dtype in _INT_RANGE:
        if isinstance(value, str):
            value = int(value)  # as NumPy: "invalid literal for int() with base 10: 'x'"
        if isinstance(value, float) or (not hasattr(value, "__index__") and hasattr(value, "__float__")):
            f = float(value)
            if math.isnan(f) or math.isinf(f):
                raise ValueError(f"memview: cannot convert float {f} to integer {dtype}")
            value = int(f)
        else:
            value = operator.index(value)
        lo, hi = _INT_RANGE[dtype]
        if not lo <= value <= hi:
            raise OverflowError(f"memview: Python integer {_short(value)} out of bounds for {dtype}")
        return value
    try:
        if dtype.startswith("complex"):
            c = complex(value)
            return (c.real, c.imag)
        return float(value)
    except OverflowError:
        raise OverflowError(f"memview: Python integer {_short(value)} is too large to convert to {dtype}") from None


def _short(n) -> str:
    """An int for a message: in full, or its first digits and length (as
    pyext/gopy.c writes it for the arguments of bound Go functions)."""
    try:
        s = str(n)
    except ValueError:  # more digits than Python prints (sys.set_int_max_str_digits)
        return "of too many digits to print"
    return s if len(s) <= 24 else f"{s[:12]}... ({len(s.lstrip('-'))} digits)"


def saturate(x: float) -> float:
    """x, or ±inf when it is too large for a narrower float (as NumPy casts)."""
    return math.copysign(math.inf, x) if abs(x) > 1 else x


def pack(dtype: str, value) -> bytes:
    """One element of dtype holding value."""
    if dtype not in STRUCT:
        return _formats.codec(dtype).pack(value)
    v = convert(dtype, value)
    code = "=" + STRUCT[dtype]
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
    return lambda b: s.unpack(b)[0]


def iter_values(dtype: str, data: bytes):
    """The Python values of a run of packed elements."""
    if dtype not in STRUCT:
        return _formats.codec(dtype).iter_unpack(data)
    s = struct.Struct("=" + STRUCT[dtype])
    if dtype.startswith("complex"):
        return (complex(*t) for t in s.iter_unpack(data))
    return (t[0] for t in s.iter_unpack(data))


from . import _formats  # noqa: E402  (uses convert and STRUCT above)
