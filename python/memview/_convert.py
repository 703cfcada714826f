"""Python values to and from the bytes of one number, as NumPy converts them:
range checks, float16 NaN payloads, long double ('g': x87 extended precision on
x86-64, IEEE binary128 on aarch64, as the platform's) and UCS-4 strings ('w'). The struct module does the rest; _dtypes and _formats build on
this module, which imports neither (only the generated dtype table)."""
from __future__ import annotations

import math
import operator
import platform
import struct

from . import _dtypes_table

# struct codes with standard sizes and no alignment ('=' prefix)
STRUCT = {
    "bool": "?", "int8": "b", "uint8": "B", "int16": "h", "uint16": "H",
    "int32": "i", "uint32": "I", "int64": "q", "uint64": "Q",
    "float16": "e", "float32": "f", "float64": "d",
    "complex64": "ff", "complex128": "dd",
}

_INT_RANGE = {name: (-(1 << (8 * size - 1)), (1 << (8 * size - 1)) - 1) if kind == "i" else (0, (1 << (8 * size)) - 1)
              for name, kind, size, _, _ in _dtypes_table.BASIC if kind in "iu"}


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
            if math.isnan(f):  # as int() and NumPy: ValueError for NaN, OverflowError for infinity
                raise ValueError(f"memview: cannot convert float NaN to integer {dtype}")
            if math.isinf(f):
                raise OverflowError(f"memview: cannot convert float infinity to integer {dtype}")
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


# -- float16 NaNs: struct drops their payload; NumPy keeps its top bits.

_D = struct.Struct("<d")
_Q = struct.Struct("<Q")
_H = struct.Struct("<H")


def half_nan_bits(x: float) -> int:
    """The binary16 bits NumPy writes for the NaN x: the top ten bits of its
    payload, kept a NaN."""
    d = _Q.unpack(_D.pack(x))[0]
    h = 0x7C00 + ((d & 0xFFFFFFFFFFFFF) >> 42)
    if h == 0x7C00:
        h += 1
    return (d >> 48) & 0x8000 | h


def half_nan(h: int) -> float:
    """The float64 NaN NumPy reads from the binary16 NaN bits h."""
    return _D.unpack(_Q.pack((h & 0x8000) << 48 | 0x7FF0000000000000 | (h & 0x3FF) << 42))[0]


def pack_half_into(s: struct.Struct, buf, off: int, x: float) -> None:
    """Pack x with s (a one-'e' struct), keeping a NaN's payload."""
    if x != x:
        h = half_nan_bits(x)
        buf[off:off + 2] = h.to_bytes(2, "big" if s.format.startswith((">", "!")) else "little")
    else:
        s.pack_into(buf, off, x)


def unpack_half(s: struct.Struct, buf, off: int = 0) -> float:
    """Unpack one 'e' with s, keeping a NaN's payload."""
    x = s.unpack_from(buf, off)[0]
    if x != x:
        x = half_nan(int.from_bytes(bytes(buf[off:off + 2]), "big" if s.format.startswith((">", "!")) else "little"))
    return x


# -- x86-64 extended precision: 64-bit significand with an explicit integer bit,
# 15-bit exponent (bias 16383) and sign in the first 10 of 16 bytes.

def extended_to_float(b, big: bool) -> float:
    """The nearest float to the extended value in the 16 bytes b."""
    le = bytes(b)[::-1] if big else bytes(b)
    mant = int.from_bytes(le[:8], "little")
    se = int.from_bytes(le[8:10], "little")
    sign = -1.0 if se & 0x8000 else 1.0
    exp = se & 0x7FFF
    if exp == 0x7FFF:
        if mant << 1 & 0xFFFFFFFFFFFFFFFF == 0:
            return sign * math.inf
        bits = 0x7FF8000000000000 | ((mant << 1 & 0xFFFFFFFFFFFFFFFF) >> 12)
        return math.copysign(_D.unpack(_Q.pack(bits))[0], sign)
    if mant == 0:
        return math.copysign(0.0, sign)
    shift = max(exp, 1) - 16383 - 63
    try:  # int / int and int * 2**k are correctly rounded
        x = mant * (1 << shift) if shift >= 0 else mant / (1 << -shift)
        x = float(x)
    except OverflowError:
        return sign * math.inf
    return math.copysign(x, sign)


def float_to_extended(x: float, big: bool) -> bytes:
    """The 16 bytes of x as an extended value (exact), zero-padded."""
    se = 0x8000 if math.copysign(1.0, x) < 0 else 0
    if math.isinf(x):
        se, mant = se | 0x7FFF, 1 << 63
    elif x != x:
        frac = _Q.unpack(_D.pack(x))[0] & 0xFFFFFFFFFFFFF
        se, mant = se | 0x7FFF, 1 << 63 | 1 << 62 | frac << 11
    elif x == 0:
        mant = 0
    else:
        m, e = math.frexp(abs(x))  # x = m * 2**e, m in [0.5, 1)
        mant = int(m * (1 << 53)) << 11
        se |= e - 1 + 16383
    le = mant.to_bytes(8, "little") + se.to_bytes(2, "little") + bytes(6)
    return le[::-1] if big else le


# -- IEEE 754 binary128: sign, 15-bit exponent (bias 16383), 112-bit fraction with an
# implicit integer bit; long double on 64-bit Arm, RISC-V and IBM Z Linux.

def quad_to_float(b, big: bool) -> float:
    """The nearest float to the binary128 value in the 16 bytes b."""
    v = int.from_bytes(bytes(b), "big" if big else "little")
    sign = -1.0 if v >> 127 else 1.0
    exp, frac = v >> 112 & 0x7FFF, v & ((1 << 112) - 1)
    if exp == 0x7FFF:
        if frac == 0:
            return sign * math.inf
        return math.copysign(_D.unpack(_Q.pack(0x7FF8000000000000 | frac >> 60))[0], sign)
    if exp == 0 and frac == 0:
        return math.copysign(0.0, sign)
    mant = frac | 1 << 112 if exp else frac
    shift = max(exp, 1) - 16383 - 112
    try:  # int / int and int * 2**k are correctly rounded
        x = float(mant * (1 << shift)) if shift >= 0 else mant / (1 << -shift)
    except OverflowError:
        return sign * math.inf
    return math.copysign(x, sign)


def float_to_quad(x: float, big: bool) -> bytes:
    """The 16 bytes of x as a binary128 value (exact)."""
    v = 1 << 127 if math.copysign(1.0, x) < 0 else 0
    if math.isinf(x):
        v |= 0x7FFF << 112
    elif x != x:
        frac = _Q.unpack(_D.pack(x))[0] & 0xFFFFFFFFFFFFF
        v |= 0x7FFF << 112 | 1 << 111 | frac << 60
    elif x != 0:
        m, e = math.frexp(abs(x))  # x = m * 2**e, m in [0.5, 1): normal in binary128
        v |= (e - 1 + 16383) << 112 | (int(m * (1 << 53)) & 0xFFFFFFFFFFFFF) << 60
    return v.to_bytes(16, "big" if big else "little")


# The platform's long double, 16 bytes either way ('g', NumPy's longdouble)
LONG_DOUBLE_BINARY128 = platform.machine().lower() in ("aarch64", "arm64", "riscv64", "s390x")
long_double_to_float = quad_to_float if LONG_DOUBLE_BINARY128 else extended_to_float
float_to_long_double = float_to_quad if LONG_DOUBLE_BINARY128 else float_to_extended


# -- UCS-4 ('w', NumPy's str dtype)

def ucs4_to_str(b, big: bool) -> str:
    """The characters of b, trailing NULs dropped (as NumPy reads its str items)."""
    return bytes(b).decode("utf-32-be" if big else "utf-32-le", "replace").rstrip("\x00")


def str_to_ucs4(value, size: int, big: bool) -> bytes:
    """value (str, or ASCII bytes as NumPy takes them) in size bytes of UCS-4,
    truncated or NUL-padded as NumPy assigns."""
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode("ascii")
    if not isinstance(value, str):
        value = str(value)  # NumPy stores str(x) in a str field
    raw = value.encode("utf-32-be" if big else "utf-32-le", "surrogatepass")[:size]
    return raw + bytes(size - len(raw))
