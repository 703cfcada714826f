"""ctypes objects as memview reads them: where the format ctypes exports states the
item size wrong, the item layout comes from the ctypes type.

An exporter's format is kept as it is written (memoryview(mv.from_buffer(x)).format
is memoryview(x).format) wherever it agrees with the exporter's item size: a c_int
array's "<i", a c_void_p array's "<P", a c_wchar array's "<u". Before Python 3.14,
ctypes misstates the format of most structures: it writes every field with '<' or
'>' (no alignment) and none of the padding, while the items have the C layout
("T{<i:a:<d:b:}", 12 bytes as written, for a 16-byte struct of an int and a double;
3.14 writes "T{<i:a:4x<d:b:}"); a union or a structure with _pack_ is "B" with the
structure's size. NumPy reads ctypes objects from their type for this reason, and
so does memview where the format disagrees with the item size: item_format writes
one element's format from the type's fields and the offsets ctypes gives them, every
offset explicit (standard sizes and 'x' padding, no alignment left to the reader),
and the array exports that spelling, which NumPy and struct read with the
exporter's item size. What no format describes is refused with TypeError:
bitfields, unions (overlapping fields), pointers and Python objects.
"""
from __future__ import annotations

import functools
import sys

from . import _core, _dtype

#: a ctypes simple type's _type_ -> the NumPy kind of its values ('c' and 'u' are strings)
_KINDS = {"b": "i", "h": "i", "i": "i", "l": "i", "q": "i", "B": "u", "H": "u", "I": "u", "L": "u", "Q": "u",
          "P": "u", "f": "f", "d": "f", "g": "f", "?": "b", "c": "S", "u": "U"}
_WHY = {"z": "a char * (c_char_p) points outside the buffer", "Z": "a wchar_t * (c_wchar_p) points outside the buffer",
        "O": "Python object references (py_object) are not plain data",
        "u": "wchar_t of 2 bytes is UCS-2, which no format code reads"}


def item_format(obj):
    """The PEP 3118 format of one element of obj's buffer as its ctypes type lays
    it out, where obj is a ctypes structure, union, array or simple value (or a
    memoryview of one's whole elements) whose own format disagrees with its item
    size; None otherwise: then its own format is read, and re-exported as it is."""
    metas = _metaclasses()
    if metas is None:  # ctypes is not imported: no ctypes object exists
        return None
    t = type(obj)
    if not isinstance(t, metas):  # ctypes' types are made by its metaclasses (fast, unlike isinstance(obj, ...))
        if t is not memoryview:
            return None
        try:
            base = obj.obj
            if not isinstance(type(base), metas):
                return None
            with memoryview(base) as whole:
                if (obj.format, obj.itemsize) != (whole.format, whole.itemsize):
                    return None  # a cast: its items are not the type's
        except (ValueError, TypeError):
            return None  # released, or no buffer: the import says so
        t = type(base)
    ct = sys.modules["ctypes"]
    while issubclass(t, ct.Array):  # the buffer's shape holds the array dimensions
        t = t._type_
    fmt = type_format(t)  # TypeError for what no format describes, whatever ctypes writes
    try:
        with memoryview(obj) as m:
            own, itemsize = m.format, m.itemsize
    except (ValueError, TypeError):
        return None  # released, or no buffer: the import says so
    return None if _states_its_size(own, itemsize) else fmt


def _states_its_size(fmt, itemsize) -> bool:
    """Whether format fmt, as memview reads it, has items of itemsize bytes."""
    try:
        return _core.format_info(fmt)[1] == itemsize
    except (ValueError, TypeError, RuntimeError):  # a format memview does not read (or, forked, never read)
        return False


_metas = None


def _metaclasses():
    """The metaclasses of ctypes' structures, unions, arrays and simple types,
    once ctypes is imported (pointers' are left out: their format is refused)."""
    global _metas
    if _metas is None:
        ct = sys.modules.get("ctypes")
        if ct is None:
            return None
        _metas = tuple({type(ct.Structure), type(ct.Union), type(ct.Array), type(ct._SimpleCData)})
    return _metas


@functools.lru_cache(maxsize=256)
def type_format(t) -> str:
    """The PEP 3118 format of one value of ctypes type t (TypeError if none
    describes it)."""
    ct = sys.modules["ctypes"]
    return _item(ct, t, t.__name__)


def _item(ct, t, where: str) -> str:
    """One value of ctypes type t as a format item, without a name; where names
    it in errors."""
    if isinstance(t, type) and issubclass(t, ct.Array):
        dims = []
        while issubclass(t, ct.Array):
            dims.append(t._length_)
            t = t._type_
        inner = _item(ct, t, where)
        if len(dims) == 1 or inner.endswith("w"):
            return "(" + ",".join(map(str, dims)) + ")" + inner
        # an array of arrays as NumPy reads ctypes': (('<i2', (3,)), (2,)), "(2)<3h"
        k = 1 if inner[0] in "<>^" else 0
        return "(" + ",".join(map(str, dims[:-1])) + ")" + inner[:k] + str(dims[-1]) + inner[k:]
    if isinstance(t, type) and issubclass(t, (ct.Structure, ct.Union)):
        return "T{" + _fields(ct, t, where) + "}"
    if isinstance(t, type) and issubclass(t, ct._SimpleCData):
        return _leaf(ct, t, where)
    if isinstance(t, type) and issubclass(t, ct._Pointer):
        raise TypeError(f"memview: ctypes {where} is a pointer ({t.__name__}), which points outside the "
                        "buffer: no format describes it (c_void_p is read as an address)")
    raise TypeError(f"memview: ctypes {where} has type {getattr(t, '__name__', t)!r}, which no format describes")


def _fields(ct, t, where: str) -> str:
    """The fields of a ctypes structure or union t, base classes' first, at the
    offsets ctypes gives them, with explicit padding up to sizeof(t)."""
    parts, end, prev = [], 0, None
    for cls in reversed(t.__mro__):
        own = vars(cls).get("_fields_")
        if own is None or not issubclass(cls, (ct.Structure, ct.Union)):
            continue
        for entry in own:
            name, ftype = entry[0], entry[1]
            here = f"field {name!r} of {t.__name__}"
            if len(entry) > 2:
                raise TypeError(f"memview: ctypes {here} is a bitfield ({entry[2]} bits), which no format "
                                "describes: formats have no items smaller than a byte")
            off, size = vars(cls)[name].offset, ct.sizeof(ftype)
            if off < end:
                kind = "a union" if issubclass(t, ct.Union) else "a structure"
                inside = "" if where == t.__name__ else f" ({where})"
                raise TypeError(f"memview: ctypes {t.__name__}{inside} is {kind} whose fields {prev!r} and {name!r} "
                                "overlap, which no PEP 3118 format describes; memoryview(x).cast('B') gives its bytes")
            if off > end:
                parts.append(f"{off - end}x")
            parts.append(f"{_item(ct, ftype, here)}:{name}:")
            end, prev = off + size, name
    if ct.sizeof(t) > end:
        parts.append(f"{ct.sizeof(t) - end}x")
    return "".join(parts)


def _leaf(ct, t, where: str) -> str:
    """A simple ctypes type as one format item: its byte order, and the
    standard-size code of its kind and size."""
    code, size = t._type_, ct.sizeof(t)
    kind = _KINDS.get(code)
    if kind is None or (code == "u" and size != 4):
        why = _WHY.get(code, f"its type code {code!r} has no format")
        raise TypeError(f"memview: ctypes {where} ({t.__name__}): {why}")
    if kind == "S":
        return "c"
    be, le = getattr(t, "__ctype_be__", None) is t, getattr(t, "__ctype_le__", None) is t
    order = ">" if (be and not le) or (be == le and sys.byteorder == "big") else "<"  # one-byte types are both
    if kind == "U":
        return order + "w"
    std = _dtype._NP_CODE.get((kind, size))
    if std is None:
        raise TypeError(f"memview: ctypes {where} ({t.__name__}): no format code for {size}-byte values")
    if std == "g":  # NumPy reads long doubles with native sizes only
        return ("^" if order == "<" else ">") + std
    return order + std
