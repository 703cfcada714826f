"""memview.dtype: an item type with NumPy's attributes, built on the Go core's
item descriptor (memview.ItemDesc), that NumPy reads as its own.

Two dtypes are equal when their items have the same layout (the Go core's
canonical format), however they are spelled: "q", "<i8", "int64" and np.int64
are one type. np.dtype(d) gives the equal NumPy dtype through NumPy's
__numpy_dtype__ protocol; memview never imports NumPy for it (the protocol is
only used by NumPy, which is then imported already).
"""
from __future__ import annotations

import json
import sys

from . import _core, _dtypes_table

# NumPy's kind and size -> its type character
_CHAR = {("b", 1): "?", ("i", 1): "b", ("u", 1): "B", ("i", 2): "h", ("u", 2): "H", ("i", 4): "i",
         ("u", 4): "I", ("i", 8): "l", ("u", 8): "L", ("f", 2): "e", ("f", 4): "f", ("f", 8): "d",
         ("f", 16): "g", ("c", 8): "F", ("c", 16): "D", ("c", 32): "G"}
_KINDNAME = {"b": "bool", "i": "int", "u": "uint", "f": "float", "c": "complex", "S": "bytes", "U": "str",
             "V": "void"}
# PEP 3118 code -> NumPy kind of what it holds (the Go core's table)
_LEAF_KIND = {code: kind for code, kind, _ in _dtypes_table.CODES}
_PY_TYPES = {float: "float64", int: "int64", bool: "bool", complex: "complex128", bytes: "|S1", str: "<U1"}

_by_format: dict = {}  # PEP 3118 format -> dtype (arrays' dtypes)
_by_spec: dict = {}  # dtype string as given -> dtype
_by_obj: dict = {}  # what dtype() was given (a str, type or NumPy dtype) -> dtype


class dtype:
    """An item type: dtype(x) takes another memview.dtype, a NumPy dtype or scalar
    type (np.float64), a Python type (float, int, bool, complex), a ctypes type
    (its layout from its fields, as NumPy reads one), a NumPy name or
    typestr ("float64", "<i4", "|S5", "<U3") or a PEP 3118 format ("T{<i:a:<d:b:}").

    Attributes are NumPy's: itemsize, kind, char, str, name, byteorder, alignment,
    names, fields, shape and base (sub-arrays), subdtype, descr (the
    __array_interface__ form), format (PEP 3118), ndim, isbuiltin, isnative.
    Equality is layout equality, against memview and NumPy dtypes, NumPy scalar
    types and any string NumPy or PEP 3118 reads; dtypes are immutable and
    hashable, and np.dtype(d) is the equal NumPy dtype.
    """

    __slots__ = ("_go", "format", "itemsize", "_desc", "_np", "__weakref__")

    def __new__(cls, obj="float64"):
        if isinstance(obj, dtype):
            return obj
        try:
            d = _by_obj.get(obj)
        except TypeError:  # unhashable: not cached
            return from_spec(spec(obj))
        if d is None:
            d = from_spec(spec(obj))
            if len(_by_obj) < 4096:
                _by_obj[obj] = d
        return d

    # -- construction (internal)
    @classmethod
    def _make(cls, go_name: str, itemsize: int, fmt: str) -> dtype:
        self = object.__new__(cls)
        object.__setattr__(self, "_go", go_name)
        object.__setattr__(self, "format", fmt)
        object.__setattr__(self, "itemsize", itemsize)
        object.__setattr__(self, "_desc", None)
        object.__setattr__(self, "_np", None)
        return self

    @classmethod
    def from_format(cls, fmt: str) -> dtype:
        """The dtype NumPy reads from the PEP 3118 format fmt, the way np.asarray
        reads an exporter's: the items are one record (aligned and padded at
        the end under '@', "ix" is 8 bytes), unwrapped when it is one unnamed
        field filling it ("i", "(2,3)d", "3s")."""
        if not isinstance(fmt, str):
            raise TypeError(f"memview: a PEP 3118 format is a str, not {type(fmt).__name__!r}")
        rec = of_format("T{" + fmt + "}")
        f, shape = rec._shape_of()
        if f is not None and shape == () and f["record"] is not None:
            inner = f["record"]["fields"]
            if len(inner) == 1 and not inner[0]["name"] and inner[0]["offset"] == 0 \
                    and inner[0]["size"] * inner[0]["repeat"] == rec.itemsize:
                return of_format(inner[0]["format"])
        return rec

    def __setattr__(self, name, value):
        raise AttributeError(f"memview.dtype is immutable (cannot set {name!r})")

    def __delattr__(self, name):
        raise AttributeError(f"memview.dtype is immutable (cannot delete {name!r})")

    def __reduce__(self):
        return (of_format, (self.format,))  # read back as a format: "<l" is struct's 4 bytes

    # -- the item descriptor
    def _d(self) -> dict:
        if self._desc is None:
            object.__setattr__(self, "_desc", json.loads(_core.dtype_desc(self.format)))
        return self._desc

    def _shape_of(self):
        """(leaf field, sub-array shape) when the item is one unnamed field filling
        it, else (None, None); (the field, ()) for a scalar."""
        d = self._d()
        fs = d["fields"]
        if not fs:
            return None, None
        f = fs[0]
        if len(fs) != 1 or f["name"] or f["offset"] != 0 or f["size"] * f["repeat"] != d["size"]:
            return None, None
        if f["shape"]:
            return f, tuple(f["shape"])
        if f["repeat"] != 1:
            return f, (f["repeat"],)
        return f, ()

    def _record(self):
        """The record descriptor when the item is a record, else None."""
        d = self._d()
        f, shape = self._shape_of()
        if f is None:
            return d if d["fields"] else None
        if f["record"] is not None and shape == ():
            return f["record"]
        return None

    # -- NumPy's attributes
    @property
    def kind(self) -> str:
        if self._record() is not None or self.subdtype is not None:
            return "V"
        f, _ = self._shape_of()
        return "V" if f is None else _LEAF_KIND.get(f["code"], "V")

    @property
    def char(self) -> str:
        f, shape = self._shape_of()
        if f is not None and shape == () and f["code"] in ("q", "Q") and f["order"] == "native" and f["native"]:
            return f["code"]  # NumPy's longlong and ulonglong
        k = self.kind
        return _CHAR.get((k, self.itemsize), k)

    @property
    def byteorder(self) -> str:
        f, shape = self._shape_of()
        if f is None or shape or f["record"] is not None or self.kind in "SV" or self.itemsize == 1:
            return "|"
        return ">" if f["order"] == "big" else "="

    @property
    def str(self) -> str:
        k, bo = self.kind, self.byteorder
        order = "|" if bo == "|" else (">" if bo == ">" else "<")
        return f"{order}{k}{self.itemsize // 4 if k == 'U' else self.itemsize}"

    @property
    def name(self) -> str:
        k = self.kind
        if k == "b":
            return "bool"
        return f"{_KINDNAME[k]}{8 * self.itemsize}"

    @property
    def alignment(self) -> int:
        if self.kind == "V":
            return max(1, self._d().get("align", 1))
        if self.kind == "S":
            return 1
        if self.kind == "U":
            return 4
        return self.itemsize // 2 if self.kind == "c" else self.itemsize

    @property
    def names(self):
        rec = self._record()
        if rec is None:
            return None
        return tuple(_field_names(rec))

    @property
    def fields(self):
        rec = self._record()
        if rec is None:
            return None
        return {n: (of_format(f["format"]), f["offset"]) for n, f in zip(_field_names(rec), rec["fields"])}

    @property
    def subdtype(self):
        f, shape = self._shape_of()
        if f is None or not shape or (f["code"] in ("s", "p", "x", "w") and not f["shape"]):
            return None
        one = dict(f, shape=None, repeat=1, format=None)
        base = of_format(_leaf_format(one)) if f["record"] is None else of_format(_record_format(f))
        return base, shape

    @property
    def shape(self) -> tuple:
        sub = self.subdtype
        return sub[1] if sub else ()

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def base(self) -> dtype:
        sub = self.subdtype
        return sub[0] if sub else self

    @property
    def descr(self) -> list:
        rec = self._record()
        if rec is None:
            return [("", self.str)]
        return _descr(rec)

    @property
    def isbuiltin(self) -> int:
        return 1 if self.kind in "biufc" and self.byteorder != ">" else 0

    @property
    def isnative(self) -> bool:
        return self.byteorder != ">" and all(f.isnative for f, _ in (self.fields or {}).values())

    @property
    def isalignedstruct(self) -> bool:
        return self._record() is not None and self.alignment > 1

    hasobject = False

    # -- NumPy's protocol
    @property
    def __numpy_dtype__(self):
        """The equal NumPy dtype (NumPy's protocol: np.dtype(d) reads it)."""
        if self._np is None:
            np = sys.modules.get("numpy")
            if np is None:
                raise TypeError("memview: NumPy is not imported")
            object.__setattr__(self, "_np", np.dtype(_np_spec(self)))
        return self._np

    # -- comparison
    def __eq__(self, other):
        if other is None:
            return False
        if isinstance(other, dtype):
            return self._go == other._go
        if isinstance(other, str) and other == self._go:
            return True
        try:
            return self._go == dtype(other)._go
        except (TypeError, ValueError, LookupError, AttributeError):  # not a dtype: never equal
            return NotImplemented if not isinstance(other, str) else False

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        # one hash per layout, that of its Go name: a dtype finds a str key of that name
        return hash(self._go)

    def __str__(self):
        return self._go

    def __repr__(self):
        if self._record() is not None:
            return f"memview.dtype({self.format!r})"
        return f"memview.dtype({self._go!r})"


def _field_names(rec) -> list:
    """The names of a record's fields, NumPy's way: an unnamed field gets the
    first f0, f1, ... not yet taken."""
    names = [f["name"] or None for f in rec["fields"]]
    for i, name in enumerate(names):
        if name is None:
            j = 0
            while f"f{j}" in names:
                j += 1
            names[i] = f"f{j}"
    return names


def _leaf_format(f) -> str:
    """A standalone format of one element of the leaf field f (no shape)."""
    order = {"big": ">", "little": "<"}.get(f["order"], "@" if f.get("native") else "=")
    code = f["code"]
    if code in ("s", "p", "x"):
        return f"{order}{f['size']}{code}"
    if code == "w":
        return f"{order}{f['size'] // 4}w"
    return order + code


def _record_format(f) -> str:
    """One element of the record array field f: its own format ("<(2)T{...}")
    without the shape or count."""
    fmt = f["format"]
    i = j = 1 if fmt[:1] in "@=<>!^" else 0
    if fmt[j:j + 1] == "(":
        j = fmt.index(")", j) + 1
    while j < len(fmt) and fmt[j].isdigit():
        j += 1
    return fmt[:i] + fmt[j:]


def _descr(rec) -> list:
    """NumPy's __array_interface__ descr of a record descriptor."""
    out, off = [], 0
    for name, f in zip(_field_names(rec), rec["fields"]):
        if f["offset"] > off:
            out.append(("", f"|V{f['offset'] - off}"))
        d = of_format(f["format"])
        one = d.base
        inner = _descr(one._record()) if one._record() is not None else one.str
        out.append((name, inner, d.shape) if d.shape else (name, inner))
        off = f["offset"] + f["size"] * f["repeat"]
    if rec["size"] > off:
        out.append(("", f"|V{rec['size'] - off}"))
    return out


def _np_spec(d: dtype):
    """What np.dtype() takes for d: a typestr, (base, shape), or a dict of
    names, formats, offsets and itemsize."""
    rec = d._record()
    if rec is not None:
        return _np_record(rec)
    sub = d.subdtype
    if sub is not None:
        return (_np_spec(sub[0]), sub[1])
    f, _ = d._shape_of()
    if f is not None and f["code"] == "Ze":
        raise TypeError("memview: NumPy has no complex32 (format 'Ze')")
    if f is not None and f["code"] == "c" and f["repeat"] != 1:
        return ("|S1", (f["repeat"],))
    return d.str


def _np_record(rec) -> dict:
    """np.dtype()'s dict of a record descriptor."""
    return {"names": _field_names(rec), "formats": [_np_field(f) for f in rec["fields"]],
            "offsets": [f["offset"] for f in rec["fields"]], "itemsize": rec["size"]}


def _np_field(f):
    """np.dtype()'s spelling of one field of a record descriptor."""
    code = f["code"]
    shape = tuple(f["shape"] or ([f["repeat"]] if f["repeat"] != 1 else []))
    if f["record"] is not None:
        one = _np_record(f["record"])
    elif code == "Ze":
        raise TypeError("memview: NumPy has no complex32 (format 'Ze')")
    else:
        kind, size = _LEAF_KIND.get(code, "V"), f["size"]
        if code == "c":
            one = "|S1"
        elif kind in "SV" or size == 1:
            one = f"|{kind}{size}"
        else:
            one = f"{'>' if f['order'] == 'big' else '<'}{kind}{size // 4 if kind == 'U' else size}"
    return (one, shape) if shape else one


def spec(obj) -> str:
    """The string the Go core reads for a dtype-like obj: the Go name of a
    memview.dtype, a str as given, a NumPy dtype's typestr or exported format."""
    if type(obj) is str:
        return obj
    if isinstance(obj, dtype):
        return obj._go
    if obj is None:  # NumPy's default
        return "float64"
    if isinstance(obj, str):
        return str(obj)
    if obj is object:
        raise TypeError("memview: data type object holds Python objects ('O'), which memview cannot share: "
                        "object references need reference counting")
    if isinstance(obj, type):
        py = _PY_TYPES.get(obj)
        if py:
            return py
        np = sys.modules.get("numpy")
        if np is not None and issubclass(obj, np.generic):
            return spec(np.dtype(obj))
        ct = sys.modules.get("ctypes")
        if ct is not None and issubclass(obj, (ct.Structure, ct.Union, ct.Array, ct._SimpleCData)):
            from . import _cdata  # a ctypes type: its layout, as NumPy reads one
            return _cdata.type_format(obj)
        name = getattr(obj, "__name__", None)
        if isinstance(name, str):
            return name
    np = sys.modules.get("numpy")
    if np is not None and isinstance(obj, np.dtype):
        return _numpy_format(np, obj)
    inner = getattr(obj, "__numpy_dtype__", None)
    if np is not None and inner is not None:
        return spec(np.dtype(obj))
    raise TypeError(f"memview: data type {obj!r} not understood")


def _numpy_format(np, d) -> str:
    """A spelling of the NumPy dtype d that the Go core reads: its typestr, or a
    PEP 3118 format with every offset explicit (standard sizes, so that nothing
    is aligned behind NumPy's back)."""
    if d.hasobject:
        raise TypeError(f"memview: data type {d} holds Python objects ('O'), which memview cannot share: "
                        "object references need reference counting")
    if d.fields is None and d.subdtype is None:
        if d.kind in "biufcSUV":
            return d.str  # "<f8", "|S5", "<U3", "|V4", "<f16"
        raise TypeError(f"memview: data type {d} not understood (no PEP 3118 format)")
    return _np_item(d)


# (NumPy kind, size) -> the format code of such a number in standard sizes (the Go
# core's table; 'l' and 'L' are left out: their native size is not their standard one;
# 'P', the pointer-sized twin of 'Q', too)
_NP_CODE = {(kind, std): code for code, kind, std in _dtypes_table.CODES
            if kind in "biufc" and std and code not in ("l", "L", "P")}


def _np_item(d) -> str:
    """One NumPy dtype as a format item (without a name)."""
    if d.subdtype is not None:
        base, shape = d.subdtype
        return "(" + ",".join(map(str, shape)) + ")" + _np_item(base)
    if d.fields is not None:
        parts, off = [], 0
        # by offset, a field of no bytes before one that starts where it is, else in
        # NumPy's order
        fields = sorted((d.fields[n][1], d.fields[n][0].itemsize > 0, k, n) for k, n in enumerate(d.names))
        for o, _, _, name in fields:
            t = d.fields[name][0]
            if o < off:
                raise TypeError(f"memview: data type {d} has overlapping fields, which no PEP 3118 format describes")
            if o > off:
                parts.append(f"{o - off}x")
            parts.append(f"{_np_item(t)}:{name}:")
            off = o + t.itemsize
        if d.itemsize > off:
            parts.append(f"{d.itemsize - off}x")
        return "T{" + "".join(parts) + "}"
    order = ">" if d.byteorder == ">" else "<"
    if d.kind == "S":
        return f"{d.itemsize}s"
    if d.kind == "V":
        return f"{d.itemsize}x"
    if d.kind == "U":
        return f"{order}{d.itemsize // 4}w"
    code = _NP_CODE.get((d.kind, d.itemsize))
    if code is None or d.hasobject:
        raise TypeError(f"memview: data type {d} not understood (no PEP 3118 format)")
    if code in ("g", "Zg"):
        return ("^" if order == "<" else ">") + code  # native sizes, no alignment
    return order + code


def from_spec(s: str) -> dtype:
    """The dtype of a dtype string (a NumPy name or typestr first, then a
    PEP 3118 format)."""
    d = _by_spec.get(s)
    if d is None:
        go, itemsize, _typestr, fmt = _core.dtype_info(s)
        d = dtype._make(go, itemsize, fmt)
        if len(_by_spec) < 4096:
            _by_spec[s] = d
    return d


def of_format(fmt: str) -> dtype:
    """The dtype of an array of PEP 3118 format fmt (read as struct reads it),
    keeping that spelling as its format."""
    d = _by_format.get(fmt)
    if d is None:
        go, itemsize, _typestr, _fmt = _core.format_info(fmt)
        d = dtype._make(go, itemsize, fmt)
        if len(_by_format) < 4096:
            _by_format[fmt] = d
    return d
