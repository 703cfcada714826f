"""Generate requests.json, the golden data for memview/exporter_test.go.

Run from the repository root with any CPython 3.11+ that has the _testbuffer
test module (no NumPy needed):

    python3 memview/testdata/gen_requests.py

The source of truth is CPython's reference exporter, _testbuffer.ndarray
(Modules/_testbuffer.c, ndarray_getbuf): for every layout below, built as a
_testbuffer.ndarray of int32 items ('i', 4 bytes), and every request, the file
records whether ndarray(base, getbuf=request) succeeds: "ok" holds one
character per request, '+' served, '-' refused (BufferError). Requests are the
PEP 3118 bases SIMPLE, ND, STRIDES, INDIRECT, C/F/ANY_CONTIGUOUS and two
contradictory pairs, each with and without WRITABLE and FORMAT; so FULL[_RO],
RECORDS[_RO], STRIDED[_RO] and CONTIG[_RO] are all among them. The PyBUF_*
values are recorded too, so that the Go test checks that memview.Request uses
the same bits.

Layouts are described once, here: name, item count of the underlying buffer,
shape, strides and offset in bytes, and read-only; the Go test builds the same
layouts from this file.
"""

import json
import os

import _testbuffer as tb

LAYOUTS = [
    # name, items, shape, strides, offset, readonly
    ("C 2x3", 6, [2, 3], [12, 4], 0, False),
    ("F 2x3", 6, [2, 3], [4, 8], 0, False),
    ("F 2x3x4", 24, [2, 3, 4], [4, 8, 24], 0, False),
    ("strided 2x3 of 2x6", 12, [2, 3], [24, 8], 0, False),
    ("reversed rows 2x3", 6, [2, 3], [-12, 4], 12, False),
    ("reversed columns 2x3", 6, [2, 3], [12, -4], 8, False),
    ("reversed 1-d", 4, [4], [-4], 12, False),
    ("contiguous 1-d", 5, [5], [4], 0, False),
    ("step 2 1-d", 10, [5], [8], 0, False),
    ("broadcast stride 0", 1, [3], [0], 0, False),
    ("column 3x1", 3, [3, 1], [4, 4], 0, False),
    ("row 1x4 odd stride", 4, [1, 4], [0, 4], 0, False),
    ("empty 0x3", 1, [0, 3], [12, 4], 0, False),
    ("0-d", 1, [], [], 0, False),
    ("read-only C 2x3", 6, [2, 3], [12, 4], 0, True),
    ("read-only F 2x3", 6, [2, 3], [4, 8], 0, True),
    ("read-only strided", 12, [2, 3], [24, 8], 0, True),
    ("read-only 0-d", 1, [], [], 0, True),
]

BASES = [
    ("SIMPLE", tb.PyBUF_SIMPLE),
    ("ND", tb.PyBUF_ND),
    ("STRIDES", tb.PyBUF_STRIDES),
    ("INDIRECT", tb.PyBUF_INDIRECT),
    ("C_CONTIGUOUS", tb.PyBUF_C_CONTIGUOUS),
    ("F_CONTIGUOUS", tb.PyBUF_F_CONTIGUOUS),
    ("ANY_CONTIGUOUS", tb.PyBUF_ANY_CONTIGUOUS),
    ("C_CONTIGUOUS|F_CONTIGUOUS", tb.PyBUF_C_CONTIGUOUS | tb.PyBUF_F_CONTIGUOUS),
    ("C_CONTIGUOUS|ANY_CONTIGUOUS", tb.PyBUF_C_CONTIGUOUS | tb.PyBUF_ANY_CONTIGUOUS),
]

CONSTANTS = [
    "SIMPLE", "WRITABLE", "FORMAT", "ND", "STRIDES", "C_CONTIGUOUS",
    "F_CONTIGUOUS", "ANY_CONTIGUOUS", "INDIRECT", "CONTIG", "CONTIG_RO",
    "STRIDED", "STRIDED_RO", "RECORDS", "RECORDS_RO", "FULL", "FULL_RO",
]


def requests():
    out = []
    for name, base in BASES:
        for w in (False, True):
            for f in (False, True):
                n, v = name, base
                if w:
                    n, v = n + "|WRITABLE", v | tb.PyBUF_WRITABLE
                if f:
                    n, v = n + "|FORMAT", v | tb.PyBUF_FORMAT
                out.append({"name": n, "flags": v})
    return out


def build(items, shape, strides, offset, readonly):
    flags = 0 if readonly else tb.ND_WRITABLE
    init = 7 if not shape else list(range(items))
    return tb.ndarray(init, shape=shape, strides=strides, offset=offset, format="i", flags=flags)


def main():
    reqs = requests()
    layouts = []
    for name, items, shape, strides, offset, readonly in LAYOUTS:
        base = build(items, shape, strides, offset, readonly)
        ok = ""
        for r in reqs:
            try:
                tb.ndarray(base, getbuf=r["flags"])
                ok += "+"
            except BufferError:
                ok += "-"
        layouts.append({
            "name": name, "items": items, "shape": shape, "strides": strides,
            "offset": offset, "readonly": readonly,
            "c_contiguous": base.c_contiguous, "f_contiguous": base.f_contiguous,
            "ok": ok,
        })
    doc = {
        "source": "CPython %s _testbuffer.ndarray" % ".".join(map(str, __import__("sys").version_info[:3])),
        "constants": {c: getattr(tb, "PyBUF_" + c) for c in CONSTANTS},
        "requests": reqs,
        "layouts": layouts,
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "requests.json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
