"""Reading and writing elements of any PEP 3118 format: byte-swapped numbers,
records, strings and sub-arrays.

The Go core parses formats (memview.ParseFormat) and hands the item descriptor
over as JSON; this module turns it into a codec built on the struct module. Values
are what NumPy's tolist() gives: a record is a tuple of its fields, a sub-array a
nested list, a string field bytes.
"""
from __future__ import annotations

import functools
import json
import struct

from . import _core, _dtypes

_BASIC = {
    ("b", 1): "bool", ("i", 1): "int8", ("i", 2): "int16", ("i", 4): "int32", ("i", 8): "int64",
    ("u", 1): "uint8", ("u", 2): "uint16", ("u", 4): "uint32", ("u", 8): "uint64",
    ("f", 2): "float16", ("f", 4): "float32", ("f", 8): "float64",
    ("c", 8): "complex64", ("c", 16): "complex128",
}
_KIND = {"?": "b", "b": "i", "h": "i", "i": "i", "l": "i", "q": "i", "n": "i",
         "B": "u", "H": "u", "I": "u", "L": "u", "Q": "u", "N": "u", "P": "u",
         "e": "f", "f": "f", "d": "f", "Zf": "c", "Zd": "c", "Ze": "c"}


class _Leaf:
    """One field of a non-record code: numbers, bytes, chars, repeated or shaped."""

    def __init__(self, f):
        self.offset = f["offset"]
        self.size = f["size"]
        self.shape = list(f["shape"] or ([f["repeat"]] if f["repeat"] != 1 else []))
        code = f["code"]
        order = ">" if f["order"] == "big" else "<"
        self.basic = None
        self.strip = code == "s"
        if code in ("s", "p"):
            self.struct = struct.Struct(f"{order}{self.size}{code}")
        elif code == "c":
            self.struct = struct.Struct(f"{order}c")
        else:
            kind = _KIND[code]
            self.basic = _BASIC.get((kind, self.size))
            if self.basic is None:  # Ze: a complex of two halves
                if code != "Ze":
                    raise TypeError(f"memview: cannot read items of format code {code!r}")
                self.struct = struct.Struct(order + "ee")
                self.basic = "complex32"
            else:
                self.struct = struct.Struct(order + _dtypes.STRUCT[self.basic])

    def _one(self, buf, off):
        v = self.struct.unpack_from(buf, off)
        if len(v) == 2:
            return complex(*v)
        if self.strip:  # NumPy's bytes fields drop trailing NULs
            return v[0].rstrip(b"\x00")
        return v[0]

    def _put(self, buf, off, value):
        if self.basic is None:
            if isinstance(value, str):
                value = value.encode()
            if not isinstance(value, (bytes, bytearray)):
                raise TypeError(f"memview: a bytes field needs bytes, not {type(value).__name__!r}")
            self.struct.pack_into(buf, off, bytes(value))
            return
        if self.basic == "complex32":
            c = complex(value)
            self.struct.pack_into(buf, off, c.real, c.imag)
            return
        v = _dtypes.convert(self.basic, value)
        try:
            self.struct.pack_into(buf, off, *v) if isinstance(v, tuple) else self.struct.pack_into(buf, off, v)
        except OverflowError:
            self.struct.pack_into(buf, off, *(_dtypes.saturate(x) for x in (v if isinstance(v, tuple) else (v,))))

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
        if not self.shape:
            self._put(buf, off, value)
            return
        flat = []
        _flatten(value, self.shape, 0, flat)
        for v in flat:
            self._put(buf, off, v)
            off += self.size


def _flatten(value, shape, dim, out):
    if dim == len(shape):
        out.append(value)
        return
    if not isinstance(value, (list, tuple)) or len(value) != shape[dim]:
        raise ValueError(f"memview: a sub-array field of shape {tuple(shape)} needs nested sequences "
                         f"of that shape")
    for v in value:
        _flatten(v, shape, dim + 1, out)


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
        #: whether an element is a record (a tuple of fields)
        self.is_record = isinstance(self.top, _Record) and not self.top.shape

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
