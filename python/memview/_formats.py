"""Reading and writing elements of any PEP 3118 format: byte-swapped numbers,
records, strings and sub-arrays.

The Go core parses formats (memview.ParseFormat) and hands the item descriptor
over as JSON; this module turns it into a codec built on the struct module. Values
are what NumPy's tolist() gives: a record is a tuple of its fields, a sub-array a
nested list, a string field bytes.
"""
from __future__ import annotations

import functools
import itertools
import json
import numbers
import struct

from . import _convert, _core, _dtypes_table

_BASIC = {(kind, size): name for name, kind, size, _, _ in _dtypes_table.BASIC}
_KIND = {code: kind for code, kind, _ in _dtypes_table.CODES}


class _Leaf:
    """One field of a non-record code: numbers, bytes, chars, repeated or shaped."""

    #: the types a sub-array of these elements nests by in an assigned value
    seq = (list, tuple)

    def __init__(self, f):
        self.offset = f["offset"]
        self.size = f["size"]
        self.shape = list(f["shape"] or ([f["repeat"]] if f["repeat"] != 1 else []))
        code = "s" if f["code"] == "c" else f["code"]  # 'c' is a byte string of one, as in NumPy
        order = ">" if f["order"] == "big" else "<"
        self.code = code
        self.big = order == ">"
        self.basic = None
        self.struct = None  # bytes codes ('s', 'p', named 'x'), 'w', 'g' and 'Zg' are read and written here
        if code not in ("s", "p", "x", "w", "g", "Zg"):
            kind = _KIND[code]
            self.basic = _BASIC.get((kind, self.size))
            if self.basic is None:  # Ze: a complex of two halves
                if code != "Ze":
                    raise TypeError(f"memview: cannot read items of format code {code!r}")
                self.struct = struct.Struct(order + "ee")
                self.basic = "complex32"
            else:
                self.struct = struct.Struct(order + _convert.STRUCT[self.basic])

    def _one(self, buf, off):
        if self.struct is None:
            raw = bytes(buf[off:off + self.size])
            if self.code == "w":  # UCS-4, trailing NULs dropped as NumPy reads str items
                return _convert.ucs4_to_str(raw, self.big)
            if self.code == "g":  # the platform's long double: the nearest float
                return _convert.long_double_to_float(raw, self.big)
            if self.code == "Zg":
                return complex(_convert.long_double_to_float(raw[:16], self.big),
                               _convert.long_double_to_float(raw[16:], self.big))
            if self.code == "p":  # a Pascal string: its length, then at most size - 1 bytes
                return raw[1:1 + min(raw[0], self.size - 1)] if raw else b""
            if self.code == "s":  # NumPy's bytes fields drop trailing NULs
                return raw.rstrip(b"\x00")
            return raw  # a void field: its bytes
        v = self.struct.unpack_from(buf, off)
        if len(v) == 2:
            return complex(*v)
        if self.basic == "float16" and v[0] != v[0]:
            return _convert.unpack_half(self.struct, buf, off)
        return v[0]

    def _put(self, buf, off, value):
        if self.code == "w":
            buf[off:off + self.size] = _convert.str_to_ucs4(value, self.size, self.big)
            return
        if self.code == "g":
            buf[off:off + 16] = _convert.float_to_long_double(_convert.convert("float64", value), self.big)
            return
        if self.code == "Zg":
            re, im = _convert.convert("complex128", value)
            buf[off:off + 32] = _convert.float_to_long_double(re, self.big) + _convert.float_to_long_double(im, self.big)
            return
        if self.struct is None:
            self._put_bytes(buf, off, value)
            return
        if self.basic == "complex32":
            c = _convert.convert("complex64", value)
            try:
                self.struct.pack_into(buf, off, *c)
            except OverflowError:
                self.struct.pack_into(buf, off, *(_convert.saturate(x) for x in c))
            return
        v = _convert.convert(self.basic, value)
        if self.basic == "float16" and v != v:
            _convert.pack_half_into(self.struct, buf, off, v)
            return
        try:
            self.struct.pack_into(buf, off, *v) if isinstance(v, tuple) else self.struct.pack_into(buf, off, v)
        except OverflowError:
            self.struct.pack_into(buf, off, *(_convert.saturate(x) for x in (v if isinstance(v, tuple) else (v,))))

    def _put_bytes(self, buf, off, value):
        if isinstance(value, numbers.Number) and not isinstance(value, complex) and self.code != "x":
            value = str(value)  # a number broadcast into a record sets a string field to its text, as NumPy
        if isinstance(value, str):
            value = value.encode()
        elif self.code == "x" and not isinstance(value, (bytes, bytearray)):
            try:  # a NumPy void scalar or any other buffer: its bytes
                value = memoryview(value).tobytes()
            except TypeError:
                pass
        if not isinstance(value, (bytes, bytearray)):
            raise TypeError(f"memview: a bytes field needs bytes, not {type(value).__name__!r}")
        value = bytes(value)
        n = self.size
        if self.code == "p":  # as struct: truncated to size - 1 (and 255) bytes
            if n:
                k = min(len(value), n - 1, 255)
                buf[off:off + n] = bytes([k]) + value[:k] + bytes(n - 1 - k)
            return
        if self.code == "x" and len(value) > n:
            raise ValueError(f"memview: {len(value)} bytes do not fit in a void field of {n} bytes")
        value = value[:n]  # a bytes field truncates, as in NumPy and struct
        buf[off:off + n] = value + bytes(n - len(value))

    def decode(self, buf, off):
        off += self.offset
        if not self.shape:
            return self._one(buf, off)
        return self._nest(buf, off, 0)[0]

    def _nest(self, buf, off, dim):
        out = []
        for _ in range(self.shape[dim]):
            if dim == len(self.shape) - 1:
                out.append(self._one(buf, off))
                off += self.size
            else:
                v, off = self._nest(buf, off, dim + 1)
                out.append(v)
        return out, off

    def encode(self, buf, off, value):
        off += self.offset
        value = _plain(value)
        if not self.shape:
            self._put(buf, off, value)
            return
        for v in broadcast_flat(value, self.shape, self.seq):
            self._put(buf, off, v)
            off += self.size


def _plain(value):
    """A NumPy array or scalar (a record scalar np.void among them) as the
    Python values its tolist() gives; anything else unchanged. NumPy is not
    imported: its objects are known by their tolist() and shape."""
    if hasattr(value, "tolist") and hasattr(value, "shape") and hasattr(value, "dtype"):
        if getattr(value.dtype, "names", None) is None and getattr(value.dtype, "kind", "") == "V":
            return value.tobytes()  # an unstructured void: its bytes
        return value.tolist()
    return value


def _nested(value, ndim, seq):
    """The shape of value nested by seq, at most ndim deep."""
    shape = []
    while len(shape) < ndim and isinstance(value, seq):
        shape.append(len(value))
        if not value:
            break
        value = value[0]
    return tuple(shape)


def _collect(value, shape, depth, out, seq):
    if depth == len(shape):
        out.append(value)
        return
    if not isinstance(value, seq) or len(value) != shape[depth]:
        raise ValueError("memview: setting an array element with a sequence: the nested sequence has "
                         f"an inhomogeneous shape after {depth} dimensions")
    for v in value:
        _collect(v, shape, depth + 1, out, seq)


def np_shape(shape) -> str:
    """A shape as NumPy's messages write it: "(3,)", "(0,3,4)"."""
    return str(tuple(shape)).replace(" ", "")


def broadcast_flat(value, shape, seq=(list, tuple)):
    """The elements of value (nested by seq) broadcast to shape, as NumPy
    broadcasts an assigned value, in C order."""
    shape = tuple(shape)
    vshape = _nested(value, len(shape), seq)
    if vshape and vshape[-1] == 0 and vshape == shape[:len(vshape)]:
        return []  # an empty list at a dimension of size 0: no elements, as tolist() gives them
    lead = len(shape) - len(vshape)
    if any(n != 1 and n != m for n, m in zip(vshape, shape[lead:])):
        raise ValueError(f"memview: could not broadcast input array from shape {np_shape(vshape)} "
                         f"into shape {np_shape(shape)}")
    flat = []
    _collect(value, vshape, 0, flat, seq)
    if vshape == shape:
        return flat
    out = []
    for idx in itertools.product(*map(range, shape)):
        pos = 0
        for n, i in zip(vshape, idx[lead:]):
            pos = pos * n + (i if n != 1 else 0)
        out.append(flat[pos])
    return out


class _Record:
    """A record's fields, read as a tuple and written from a tuple, list or dict."""

    def __init__(self, desc, offset=0, shape=None, size=None):
        self.offset = offset
        self.shape = list(shape or [])
        self.size = size if size is not None else desc["size"]
        self.names = [f["name"] for f in desc["fields"]]
        self.fields = [_field(f) for f in desc["fields"]]

    def _one(self, buf, off):
        return tuple(f.decode(buf, off) for f in self.fields)

    def _put(self, buf, off, value):
        value = _plain(value)
        if isinstance(value, numbers.Number):
            for f in self.fields:  # as NumPy: one number sets every field (strings get its text)
                f.encode(buf, off, value)
            return
        if isinstance(value, dict):
            missing = [n for n in self.names if n not in value]
            if missing or len(value) != len(self.names):
                raise ValueError(f"memview: a record needs exactly the fields {self.names}")
            value = [value[n] for n in self.names]
        if not isinstance(value, (tuple, list)) or len(value) != len(self.fields):
            raise ValueError(f"memview: a record of {len(self.fields)} fields needs a tuple of "
                             f"{len(self.fields)} values")
        for f, v in zip(self.fields, value):
            f.encode(buf, off, v)

    decode = _Leaf.decode
    _nest = _Leaf._nest
    encode = _Leaf.encode
    seq = (list,)  # a tuple is one record


def _field(f):
    if f["record"] is not None:
        shape = f["shape"] or ([f["repeat"]] if f["repeat"] != 1 else [])
        return _Record(f["record"], f["offset"], shape, f["size"])
    return _Leaf(f)


class Codec:
    """Converts one element of a format dtype between bytes and Python values."""

    def __init__(self, desc):
        self.itemsize = desc["size"]
        fields = desc["fields"]
        one = fields[0] if len(fields) == 1 and not fields[0]["name"] else None
        if one is not None and one["record"] is not None and not one["shape"] and one["repeat"] == 1:
            self.top = _Record(one["record"], one["offset"], None, one["size"])  # "T{...}"
        elif one is not None:
            self.top = _field(one)
        else:
            self.top = _Record(desc)
        if isinstance(self.top, _Record) and not self.top.fields and not self.top.shape and self.itemsize:
            # "3x" or "T{3x}": an item of opaque bytes (NumPy's unnamed void)
            self.top = _Leaf({"name": "", "code": "x", "order": "native", "offset": 0, "size": self.itemsize,
                              "repeat": 1, "shape": None, "record": None})
        #: whether an element is a record (a tuple of fields)
        self.is_record = isinstance(self.top, _Record) and not self.top.shape
        #: the shape of an element that is a sub-array, () otherwise
        self.subshape = tuple(self.top.shape)
        #: the types that nest in an assigned value: lists, and tuples unless
        #: they are records (as in NumPy)
        self.seq = self.top.seq

    def unpack(self, data, offset=0):
        return self.top.decode(data, offset)

    def pack(self, value) -> bytes:
        buf = bytearray(self.itemsize)
        self.top.encode(buf, 0, value)
        return bytes(buf)

    def iter_unpack(self, data):
        for off in range(0, len(data) - self.itemsize + 1, self.itemsize):
            yield self.top.decode(data, off)


@functools.lru_cache(maxsize=256)
def codec(dtype: str) -> Codec:
    """The codec of a dtype name, typestr or PEP 3118 format."""
    return Codec(json.loads(_core.dtype_desc(dtype)))
