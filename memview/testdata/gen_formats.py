"""Generate formats.json, the golden data for memview/format_test.go.

Run from the repository root with a Python that has NumPy 2.x:

    python3 build.py pytest -- -q tests/test_create.py   # once, makes .build/venv
    .build/venv/bin/python memview/testdata/gen_formats.py

Two sources of truth, both on linux/x86-64:

* "struct": CPython's struct module. For every format it accepts: calcsize,
  the offset of every field (calcsize of the formats before it plus "0" and
  its code, which aligns without adding bytes), and pack/unpack of chosen
  values. For formats struct refuses: "error": true.
* "numpy" (in each struct case, and the "top" list of formats in NumPy's
  grammar and just outside it): how NumPy's reader reads the format as the
  whole item of an exported buffer (_dtype_from_pep3118(format), what
  np.asarray does): its itemsize, leaves and number of fields, or null where
  NumPy refuses it. The top level is a record to NumPy, padded under '@'
  ("ix" is 8 bytes), so NumPy and struct disagree on some formats.
* "records": NumPy. Structured dtypes (aligned and packed, nested records,
  sub-arrays) exported through memoryview(array).format, and hand-written
  T{...} formats, read back with NumPy's own PEP 3118 reader
  (numpy._core._internal._dtype_from_pep3118, what np.asarray(memoryview)
  uses): itemsize and the leaves (offset, element size, count, byte order),
  and for exported dtypes the bytes of one packed element.

Values are tagged so that Go can rebuild them exactly: {"b": bool},
{"c": byte}, {"i": "signed decimal"}, {"u": "unsigned decimal"},
{"f": float.hex() or "inf"/"-inf"/"nan"}, {"z": [re, im]}, {"s": "hex"},
and JSON arrays for repeats, sub-arrays and records.
"""

import json
import math
import os
import random
import struct
import sys

import numpy as np
from numpy._core._internal import _dtype_from_pep3118

rng = random.Random(3118)

MODES = ["", "@", "=", "<", ">", "!"]
CODES = "?cbBhHiIlLqQnNefdspxP"
SIGNED = "bhilqn"
UNSIGNED = "BHILQNP"


def fhex(x):
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x.hex()


def tag(code, v):
    """Tag a value struct takes or returns for one element of code."""
    if code == "?":
        return {"b": bool(v)}
    if code == "c":
        return {"c": v[0]}
    if code in SIGNED:
        return {"i": str(v)}
    if code in UNSIGNED:
        return {"u": str(v)}
    if code in "efd":
        return {"f": fhex(v)}
    if code in "sp":
        return {"s": v.hex()}
    raise ValueError(code)


def value_for(code, size):
    """A value struct packs for one element of code, often at a limit."""
    if code == "?":
        return rng.random() < 0.5
    if code == "c":
        return bytes([rng.randrange(256)])
    if code in SIGNED:
        lo, hi = -(1 << (8 * size - 1)), (1 << (8 * size - 1)) - 1
        return rng.choice([lo, hi, 0, -1, rng.randint(lo, hi)])
    if code in UNSIGNED:
        hi = (1 << (8 * size)) - 1
        return rng.choice([0, hi, 1, rng.randint(0, hi)])
    if code == "e":
        return rng.choice([1.5, -0.1, 65504.0, 65519.0, 1e-7, 2.0**-25, -0.0, math.inf, math.nan, rng.uniform(-1000, 1000)])
    if code == "f":
        return rng.choice([0.1, -3.4e38, 1e-45, math.inf, -math.inf, math.nan, rng.uniform(-1e6, 1e6)])
    if code == "d":
        return rng.choice([math.pi, -1e308, 5e-324, -0.0, math.inf, rng.uniform(-1e300, 1e300)])
    if code in "sp":
        n = rng.choice([0, size, max(size - 1, 0), size + 2, rng.randrange(size + 3)])
        if code == "p" and rng.random() < 0.1:
            n = 300
        return bytes(rng.randrange(1, 256) for _ in range(n))
    raise ValueError(code)


def struct_case(mode, items, sep=""):
    """items: list of (count string, code). Returns one "struct" entry."""
    fmt = mode + sep.join(c + k for c, k in items)
    case = {"format": fmt}
    try:
        case["size"] = struct.calcsize(fmt)
    except struct.error:
        case["error"] = True
        return case
    fields, vals, groups = [], [], []
    for k, (cnt, code) in enumerate(items):
        n = int(cnt) if cnt else 1
        if code == "x" or (n == 0 and code not in "sp"):
            continue
        before = mode + "".join(c + x for c, x in items[:k])
        off = struct.calcsize(before + "0" + code)
        if code in "sp":
            fields.append([off, n, 1])
            v = value_for(code, n)
            vals.append(v)
            groups.append((code, 1, tag(code, v)))
        else:
            size = struct.calcsize(mode + code)
            fields.append([off, size, n])
            vs = [value_for(code, size) for _ in range(n)]
            vals.extend(vs)
            t = [tag(code, v) for v in vs]
            groups.append((code, n, t[0] if n == 1 else t))
    case["fields"] = fields
    case["numpy"] = numpy_reading(fmt)
    # CPython mishandles "0p": pack writes a length byte 0xff at the field's
    # offset, outside the empty field (into padding or the next field), and
    # unpack raises SystemError. "0s" has the same layout and holds the b""
    # that "0p" should, so those formats are packed and unpacked as "0s".
    safe = mode + sep.join(c + ("s" if k == "p" and c and int(c) == 0 else k) for c, k in items)
    packed = struct.pack(safe, *vals)
    out = struct.unpack(safe, packed)
    unpacked, i = [], 0
    for code, n, _ in groups:
        got = [tag(code, v) for v in out[i:i + n]]
        unpacked.append(got[0] if n == 1 else got)
        i += n
    case["values"] = [g[2] for g in groups]
    case["bytes"] = packed.hex()
    case["unpacked"] = unpacked
    return case


def struct_cases():
    cases = []
    # Every code in every mode, alone, repeated, and after a byte (alignment).
    for mode in MODES:
        for code in CODES:
            for items in ([("", code)], [("3", code)], [("", "b"), ("", code)], [("", "b"), ("2", code), ("", "h")],
                          [("", code), ("0", "q")]):
                cases.append(struct_case(mode, items))
    # Named examples.
    for mode, items in [
        ("", [("", "b"), ("", "i")]),           # 8
        ("@", [("", "b"), ("", "q")]),          # 16
        ("<", [("", "b"), ("", "q")]),          # 9
        ("", [("", "l"), ("", "l"), ("", "h"), ("0", "l")]),  # 24
        ("", [("3", "s")]),
        ("", [("", "i"), ("", "b")]),           # 5: no trailing padding
        ("", [("", "b"), ("0", "i")]),
        ("", [("", "c"), ("", "e"), ("", "d"), ("", "?"), ("", "P")]),
        ("", [("10", "p"), ("", "i")]),
        ("", [("300", "p")]),
        ("", [("0", "p"), ("0", "s"), ("", "x"), ("3", "x"), ("0", "x")]),
        ("!", [("", "h"), ("", "H"), ("", "i"), ("", "I"), ("", "q"), ("", "Q"), ("", "e"), ("", "f"), ("", "d")]),
        ("", [("", "n"), ("", "N"), ("2", "P")]),
        ("", [("03", "i")]),
        ("", []),
        ("<", []),
    ]:
        cases.append(struct_case(mode, items))
    # Whitespace between codes, as struct skips it.
    cases.append(struct_case("<", [("", "i"), ("3", "h"), ("", "s")], sep=" \t\n"))
    cases.append(struct_case("", [("", "b"), ("", "d")], sep="\n"))
    # Random formats.
    for _ in range(400):
        mode = rng.choice(MODES)
        items = []
        for _ in range(rng.randint(1, 6)):
            code = rng.choice(CODES)
            cnt = rng.choice(["", "", "", "0", "1", "2", "3", "7"])
            items.append((cnt, code))
        cases.append(struct_case(mode, items, sep=rng.choice(["", "", " "])))
    return cases


def np_leaves(dt, base, out):
    """Flatten dt into [offset, element size, count, order] leaves."""
    if dt.fields is None:
        if dt.subdtype is not None:
            sub, shape = dt.subdtype
            while sub.subdtype is not None:  # "(2)3i" is (i4, (3,)) in (2,)
                sub, inner = sub.subdtype
                shape += inner
            count = math.prod(shape)
            if sub.fields is not None:
                for i in range(count):
                    np_leaves(sub, base + i * sub.itemsize, out)
            elif sub.itemsize * count:
                out.append([base, sub.itemsize, count, sub.str[0]])
        elif dt.itemsize:
            out.append([base, dt.itemsize, 1, dt.str[0]])
        return
    for name in dt.names:
        t, off = dt.fields[name][:2]
        np_leaves(t, base + off, out)


def np_tag(dt, v):
    """Tag one element of dt as memview's Unpack returns it."""
    if dt.subdtype is not None:
        sub, shape = dt.subdtype
        arr = np.asarray(v, dtype=dt.base).reshape(shape) if not isinstance(v, np.ndarray) else v
        return np_tag_array(sub, arr)
    if dt.fields is not None:
        return [np_tag(dt.fields[n][0], v[i]) for i, n in enumerate(dt.names)]
    k = dt.kind
    if k == "b":
        return {"b": bool(v)}
    if k == "i":
        return {"i": str(int(v))}
    if k == "u":
        return {"u": str(int(v))}
    if k == "f":
        return {"f": fhex(float(v))}
    if k == "c":
        return {"z": [fhex(float(v.real)), fhex(float(v.imag))]}
    if k in "SV":
        b = bytes(v)
        return {"s": (b + bytes(dt.itemsize - len(b))).hex()}
    raise ValueError(dt)


def np_tag_array(sub, arr):
    if not isinstance(arr, np.ndarray):
        return np_tag(sub, arr)
    if arr.ndim == 0:
        return np_tag(sub, arr[()])
    return [np_tag_array(sub, a) for a in arr]


def fill(a):
    """Fill every leaf of a structured array with distinct values."""
    k = 0

    def walk(view):
        nonlocal k
        if view.dtype.fields is not None:
            for n in view.dtype.names:
                walk(view[n])
            return
        base = view.dtype
        for i in range(view.size):
            k += 1
            if base.kind == "b":
                val = k % 2 == 1
            elif base.kind == "i":
                val = -k * 7
            elif base.kind == "u":
                val = k * 13
            elif base.kind == "f":
                val = k + 0.25
            elif base.kind == "c":
                val = complex(k, -k / 4)
            else:
                val = bytes((k + j) % 255 + 1 for j in range(base.itemsize))
            view.flat[i] = val

    walk(a)


DTYPES = [
    ("packed i4 f8", [("a", "i4"), ("b", "f8")], False),
    ("aligned i4 f8", [("a", "i4"), ("b", "f8")], True),
    ("aligned f8 i1", [("a", "f8"), ("b", "i1")], True),
    ("packed f8 i1", [("a", "f8"), ("b", "i1")], False),
    ("aligned i4 i1", [("a", "i4"), ("b", "i1")], True),
    ("aligned nested", [("a", "i1"), ("b", [("x", "f8"), ("y", "i2")])], True),
    ("packed nested", [("a", "i1"), ("b", [("x", "f8"), ("y", "i2")])], False),
    ("aligned subarray", [("a", "i1"), ("b", "f8", (2, 3))], True),
    ("packed subarray", [("a", "i1"), ("b", "f8", (2, 3))], False),
    ("big-endian packed", [("a", ">i4"), ("b", "<f8")], False),
    ("big-endian aligned", [("a", "i1"), ("b", ">i4"), ("c", "i8")], True),
    ("mixed aligned", [("a", "S3"), ("b", "c8"), ("c", "?"), ("d", "f2"), ("e", "u8")], True),
    ("mixed packed", [("a", "S3"), ("b", "c8"), ("c", "?"), ("d", "f2"), ("e", "u8")], False),
    ("void field", [("a", "V3"), ("b", "i4")], False),
    ("string subarray", [("a", "S3", (2,)), ("b", "?")], False),
    ("complex and half subarray", [("a", "c16"), ("b", "f2", (2, 2))], True),
    ("u1 subarray then i8", [("a", "i1"), ("b", "u1", (3,)), ("c", "i8")], True),
    ("record subarray aligned", [("a", "i1"), ("b", [("x", "i2"), ("y", "f4")], (2,))], True),
    ("record subarray packed", [("a", "i1"), ("b", [("x", "i2"), ("y", "f4")], (2,))], False),
    ("deep nesting aligned", [("a", "i1"), ("b", [("c", "i1"), ("d", [("e", "i1"), ("f", "f8")])]), ("g", "i2")], True),
    ("deep nesting packed", [("a", "i1"), ("b", [("c", "i1"), ("d", [("e", "i1"), ("f", "f8")])]), ("g", "i2")], False),
    ("all numeric aligned", [(c, c) for c in ["?", "b", "B", "h", "H", "i", "I", "l", "L", "q", "Q", "e", "f", "d", "F", "D"]], True),
    ("all numeric packed", [(c, c) for c in ["?", "b", "B", "h", "H", "i", "I", "l", "L", "q", "Q", "e", "f", "d", "F", "D"]], False),
]

RAW = [
    "T{<i:a:<d:b:}",
    "T{i:x:T{d:y:}:z:}",
    "T{i:a:b:b:}",
    "T{<i:a:b:b:}",
    "T{i:a:<b:b:}",
    "T{<i@b}",
    "T{@i<b}",
    "T{<b@i}",
    "T{d:a:<b:b:}",
    "T{b:a:T{d:x:}:b:}",
    "T{b:a:T{<d:x:}:b:c:c:}",
    "T{T{d:a:<b:b:}:x:@b:y:}",
    "T{(2)T{d:a:<b:b:}:x:}",
    "T{b:a:Zf:b:}",
    "T{b:a:Zd:b:}",
    "T{b:a:e:b:}",
    "T{b:a:l:b:}",
    "T{b:a:<l:b:}",
    "T{b:a:!i:b:}",
    "T{b:a:3x:p:}",
    "T{b:a:0i:z:}",
    "T{b:a:(0)i:z:}",
    "T{b:a:(2,0)d:z:}",
    "T{b:a:0s:s:}",
    "T{b:a:0q}",
    "T{b:a:2T{d:x:}:b:}",
    "T{b:a:(2)T{d:x:}:b:}",
    "T{(2)3s:a:}",
    "T{3c:a:}",
    "T{(2)3i:a:}",
    "T{(2)<i:a:}",
    "T{b:a:( 2 , 3 )d:z:}",
    "T{}",
    "T{b:a:T{}:b:i:c:}",
    "T{x}",
    "T{b:a:x}",
    "T{i:a:3x}",
    "T{b:a:T{b:q:}:b:d:c:}",
    "T{b:a:00i:c:}",
    "T{b:a:01i:c:}",
    "T{b:a:(02)i:c:}",
    "T{3x:a:=i:b:}",
    "T{b:b:xxx(0)i:z:}",
    "T{b:a:xxx>i:b:@l:c:}",
    "T{b:a:=T{d:x:}:b:@i:c:}",
    "T{h:a:T{b:x:T{q:y:}:z:}:b:}",
    "(2,3)d",
    "(2)i",
    "i",
    ">i",
]


NP_CODES = ["?", "b", "B", "h", "H", "i", "I", "l", "L", "q", "Q", "e", "f", "d", "Zf", "Zd", "s", "c", "x"]


def random_record(depth, names):
    """A random T{...} that NumPy's reader accepts: random prefixes (never
    right before '}'), counts, shapes, names, padding and nested records."""
    parts = []
    for _ in range(rng.randint(0, 4)):
        item = ""
        if rng.random() < 0.3:
            item += rng.choice("@=<>!")
        if rng.random() < 0.2:
            item += "(" + ",".join(str(rng.randint(0, 3)) for _ in range(rng.randint(1, 2))) + ")"
        if rng.random() < 0.4:
            item += str(rng.choice([0, 1, 2, 3]))
        if depth < 3 and rng.random() < 0.2:
            item += random_record(depth + 1, set())
        else:
            item += rng.choice(NP_CODES)
        if rng.random() < 0.6:
            name = "n%d" % len(names)
            names.add(name)
            item += ":" + name + ":"
        parts.append(item)
    return "T{" + "".join(parts) + "}"


def record_cases():
    cases, seen = [], set()
    for name, spec, align in DTYPES:
        dt = np.dtype(spec, align=align)
        for n in (3, 1):
            a = np.zeros(n, dt)
            fill(a)
            m = memoryview(a)
            # NumPy writes '@' or '=' by whether the array is aligned, so
            # one element of a packed dtype may export an aligned format
            # whose size NumPy's reader disagrees with; keep that case.
            if (m.format, m.itemsize) in seen:
                continue
            seen.add((m.format, m.itemsize))
            case = record_case(m.format, f"{name} n={n}")
            case["export_itemsize"] = m.itemsize
            if case.get("size") == m.itemsize:
                case["values"] = [np_tag(dt, a[0])]
                case["bytes"] = a[:1].tobytes().hex()
                back = np.asarray(m)
                assert back.dtype.itemsize == m.itemsize and back.tobytes() == a.tobytes(), name
            cases.append(case)
    for f in RAW:
        cases.append(record_case(f, "raw"))
    n = 0
    while n < 300:
        f = random_record(0, set())
        try:
            case = record_case(f, "random")
        except Exception:  # NumPy refuses a few, e.g. a count on a record
            continue
        if f in seen:
            continue
        seen.add(f)
        cases.append(case)
        n += 1
    return cases


def record_case(fmt, name):
    d = _dtype_from_pep3118(fmt)
    leaves = []
    np_leaves(d, 0, leaves)
    return {"name": name, "format": fmt, "size": d.itemsize, "leaves": leaves}


def np_nfields(dt):
    """The number of fields of dt, nested records' fields counted once (an
    array of records as one record), zero-size fields included."""
    if dt.fields is None:
        return np_nfields(dt.subdtype[0]) if dt.subdtype is not None else 0
    return sum(1 + np_nfields(dt.fields[n][0]) for n in dt.names)


def numpy_reading(fmt):
    """NumPy's reading of fmt as an exported buffer's format, or None if
    NumPy's reader refuses it."""
    try:
        d = _dtype_from_pep3118(fmt)
    except (ValueError, TypeError, KeyError, IndexError, NotImplementedError, RuntimeError):
        return None
    leaves = []
    np_leaves(d, 0, leaves)
    return {"size": d.itemsize, "leaves": leaves, "fields": np_nfields(d)}


TOP = [
    "ix", "ib", "i:a:b:b:", "db", "qe", "3ix", "bib", "hd", "bi", "T{i:a:b:b:}b", "T{i:a:<b:b:}", "T{i:a:<b:b:}b",
    "2T{i<b}", "0T{i<b}b", "b0l", "0li:a:d", "i<", "<(2)i", "(2)<i", "i 2x d", " d ", "n", "P", "<g", "^g", "g",
    "p", "Ze", "=e", "e=", "(2,3)d", "3c", "c", "0s", "0x", "b0i:z:", "(0)i", "<T{i1x}", "<i1x", "=i1x",
]


def random_top(depth, names):
    """A random top-level format: mostly in NumPy's grammar, sometimes just
    outside it (a prefix before a shape, a space, a code NumPy lacks)."""
    parts = []
    for _ in range(rng.randint(1, 4)):
        item = ""
        if rng.random() < 0.05:
            item += rng.choice("@=<>!^")
        if rng.random() < 0.2:
            item += "(" + ",".join(str(rng.randint(0, 3)) for _ in range(rng.randint(1, 2))) + ")"
        if rng.random() < 0.3:
            item += rng.choice("@=<>!^")
        if rng.random() < 0.4:
            item += str(rng.choice([0, 1, 2, 3]))
        if depth < 2 and rng.random() < 0.15:
            item += "T{" + random_top(depth + 1, set()) + "}"
        else:
            item += rng.choice(NP_CODES + ["g", "Zg", "w", "n", "P", "p"] * (rng.random() < 0.1))
        if rng.random() < 0.5:
            name = "n%d" % len(names)
            names.add(name)
            item += ":" + name + ":"
        if rng.random() < 0.02:
            item += " "
        parts.append(item)
    return "".join(parts)


def numpy_cases():
    cases = [{"format": f, "numpy": numpy_reading(f)} for f in TOP]
    seen = set(TOP)
    while len(cases) < 600:
        f = random_top(0, set())
        if f not in seen:
            seen.add(f)
            cases.append({"format": f, "numpy": numpy_reading(f)})
    return cases


def main():
    out = {
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "struct": struct_cases(),
        "records": record_cases(),
        "top": numpy_cases(),
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "formats.json")
    with open(path, "w") as fh:
        json.dump(out, fh, indent=None, separators=(",", ":"))
        fh.write("\n")
    print(f"wrote {path}: {len(out['struct'])} struct cases, {len(out['records'])} record cases, "
          f"{len(out['top'])} NumPy readings of top-level formats")


if __name__ == "__main__":
    main()
