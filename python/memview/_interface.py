"""NumPy array-interface descriptions of memview dtypes, from the Go core's item
descriptor (memview.item_desc): what __array_interface__ reports for dtypes that
are not a single number (records, sub-arrays). The C getter caches the result
per format, so this runs once per dtype.
"""
from __future__ import annotations

import json

from . import _core, _dtypes_table

# PEP 3118 codes to the array interface's kind letters (the Go core's table). The
# interface has no complex32 ('Ze') and counts UCS-4 ('w') in characters: both
# are stated as opaque bytes ('V'), as padding is
_KIND = {code: kind for code, kind, _ in _dtypes_table.CODES if kind in "biufcS" and code != "Ze"}


def _typestr(field: dict) -> str:
    size = field["size"]
    kind = _KIND.get(field["code"], "V")
    order = "|" if size == 1 or kind in "SV" else (">" if field["order"] == "big" else "<")
    return f"{order}{kind}{size}"


def _descr(desc: dict) -> list:
    """NumPy's descr list of a record: fields by offset, padding as ('', '|Vn').
    An unnamed field is named f<i>, i its position in the list: NumPy names the
    padding entries that way when it reads a descr, so other names could clash."""
    out, pos = [], 0
    for f in sorted(desc["fields"], key=lambda f: f["offset"]):
        if f["offset"] > pos:
            out.append(("", f"|V{f['offset'] - pos}"))
        name = f["name"] or f"f{len(out)}"
        if f["record"] is not None:
            t, one = _descr(f["record"]), f["record"]["size"]
        else:
            t, one = _typestr(f), f["size"]
        shape = tuple(f["shape"] or ()) or ((f["repeat"],) if f["repeat"] > 1 and f["code"] != "s" else ())
        out.append((name, t, shape) if shape else (name, t))
        count = 1
        for n in shape:
            count *= n
        pos = f["offset"] + one * count
    if desc["size"] > pos:
        out.append(("", f"|V{desc['size'] - pos}"))
    return out


def describe(fmt: str) -> tuple:
    """(typestr, descr, subshape) of the items of format fmt. A sub-array of one
    plain item ("(2,3)f") becomes extra dimensions, as NumPy reads it through the
    buffer protocol; a record ("T{...}") is described field by field."""
    desc = json.loads(_core.dtype_desc(fmt))
    fields = desc["fields"]
    if len(fields) == 1 and not fields[0]["name"] and fields[0]["record"] is None and fields[0]["shape"]:
        t = _typestr(fields[0])
        return t, [("", t)], tuple(fields[0]["shape"])
    if (len(fields) == 1 and not fields[0]["name"] and fields[0]["record"] is not None
            and fields[0]["repeat"] == 1 and not fields[0]["shape"]):
        desc = fields[0]["record"]
    return f"|V{desc['size']}", _descr(desc), ()
