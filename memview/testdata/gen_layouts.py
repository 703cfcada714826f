"""Generate layouts.json, the golden layout cases: basic indexing, transpose and
reshape as NumPy computes them, for memview's three implementations of those
rules (the Go core, memview/layout_golden_test.go; the C fast path and the
facade, tests/test_layouts_golden.py).

Run from the repository root with a Python that has NumPy 2.x:

    python3 build.py pytest -- -q tests/test_create.py   # once, makes .build/venv
    .build/venv/bin/python memview/testdata/gen_layouts.py

Each case is an array (itemsize, shape, byte strides, the offset of element 0
in a buffer of nbytes bytes) and one operation on it:

* "index": a key of ints, slices, "..." and None (a list of items, each
  {"int": i}, {"slice": [start, stop, step]} with null for None, {"ellipsis":
  true} or {"newaxis": true});
* "transpose": axes (null: reversed);
* "reshape": a shape, one entry may be -1.

The result is NumPy's: {"shape", "strides", "offset" (of element 0, from the
input's element 0), "scalar" (one element selected: NumPy gives a scalar),
"c", "f" (contiguity)}, or {"error": the exception's class name}. A reshape
NumPy can only do with a copy is {"error": "copy"}: memview never copies
there and raises ValueError. Deterministic: a fixed seed.
"""
import json
import os
import random

import numpy as np
from numpy.lib.stride_tricks import as_strided

CASES = 1500
DTYPES = {1: "u1", 2: "<i2", 4: "<f4", 8: "<f8"}


def random_layout(rng):
    itemsize = rng.choice(sorted(DTYPES))
    nd = rng.choice([0, 1, 1, 2, 2, 3, 3, 4])
    shape = [rng.choice([0, 1, 1, 2, 3, 4, 5]) if rng.random() < 0.95 else 0 for _ in range(nd)]
    shape = [s if rng.random() < 0.9 else 1 for s in shape]
    if rng.random() < 0.4:  # a C- or F-contiguous layout
        strides, sd = [0] * nd, itemsize
        order = range(nd - 1, -1, -1) if rng.random() < 0.6 else range(nd)
        for k in order:
            strides[k] = sd
            sd *= max(shape[k], 1)
    else:  # any multiple of the item size, negative and zero too
        strides = [itemsize * rng.choice([-6, -3, -2, -1, 0, 1, 1, 2, 3, 4, 7]) for _ in range(nd)]
    lo = sum((n - 1) * s for n, s in zip(shape, strides) if s < 0 and n > 0)
    hi = sum((n - 1) * s for n, s in zip(shape, strides) if s > 0 and n > 0)
    pad = itemsize * rng.choice([0, 0, 1, 3])
    offset = -lo + pad
    nbytes = offset + hi + itemsize + itemsize * rng.choice([0, 2])
    return itemsize, shape, strides, offset, nbytes


def random_key(rng, nd):
    items = []
    n = nd + (1 if rng.random() < 0.1 else 0) - rng.randint(0, max(nd, 1))
    n = max(n, 0)
    ellipsis = rng.random() < 0.25
    for _ in range(n):
        r = rng.random()
        if r < 0.45:
            items.append({"int": rng.choice([0, 1, 2, -1, -2, 3, 5, -6])})
        else:
            def part():
                return rng.choice([None, None, 0, 1, 2, -1, -3, 4, 9, -9])
            items.append({"slice": [part(), part(), rng.choice([None, 1, 1, 2, 3, -1, -2])]})
    for _ in range(rng.choice([0, 0, 0, 1, 2])):
        items.insert(rng.randint(0, len(items)), {"newaxis": True})
    if ellipsis:
        items.insert(rng.randint(0, len(items)), {"ellipsis": True})
    return items


def to_numpy_key(items):
    out = []
    for it in items:
        if "int" in it:
            out.append(it["int"])
        elif "slice" in it:
            out.append(slice(*it["slice"]))
        elif "ellipsis" in it:
            out.append(Ellipsis)
        else:
            out.append(None)
    return tuple(out)


def random_op(rng, shape):
    nd = len(shape)
    r = rng.random()
    if r < 0.6:
        return "index", random_key(rng, nd)
    if r < 0.8:
        if rng.random() < 0.2:
            return "transpose", None
        axes = list(range(nd))
        rng.shuffle(axes)
        if nd and rng.random() < 0.15:
            axes[rng.randrange(nd)] = rng.choice([nd, -1, axes[0]])
        return "transpose", axes
    size = int(np.prod(shape)) if shape else 1
    new = []
    left = size
    for _ in range(rng.choice([0, 1, 2, 3])):
        d = rng.choice([d for d in (1, 2, 3, 4, 5, 6) if left % d == 0] or [1]) if left else rng.choice([0, 1, 2])
        new.append(d)
        left = left // d if d else left
    if left != 1 or not new:
        new.append(left)
    if rng.random() < 0.2 and new:
        new[rng.randrange(len(new))] = -1
    if rng.random() < 0.1:
        new.append(rng.choice([2, 3]))  # a size that does not match
    return "reshape", new


def result(a, base_ptr, r):
    return {"shape": list(r.shape), "strides": list(r.strides),
            "offset": r.__array_interface__["data"][0] - base_ptr,
            "c": bool(r.flags.c_contiguous), "f": bool(r.flags.f_contiguous)}


def apply(a, op, arg):
    ptr = a.__array_interface__["data"][0]
    try:
        if op == "index":
            key = to_numpy_key(arg)
            r = a[key]
            if not isinstance(r, np.ndarray):  # one element: NumPy gives a scalar
                r = a[key + (Ellipsis,)] if not any("ellipsis" in it for it in arg) else None
                if r is None:
                    raise AssertionError("a scalar from a key with an ellipsis")
                out = result(a, ptr, r)
                out["scalar"] = True
                return out
            out = result(a, ptr, r)
            out["scalar"] = False
            return out
        if op == "transpose":
            r = a.transpose() if arg is None else a.transpose(arg)
            out = result(a, ptr, r)
            out["scalar"] = False
            return out
        r = a.view()
        try:
            r.shape = tuple(arg)
        except AttributeError:  # NumPy needs a copy for that shape
            try:
                a.reshape(tuple(arg))
            except ValueError as e:
                return {"error": type(e).__name__}
            return {"error": "copy"}
        out = result(a, ptr, r)
        out["scalar"] = False
        return out
    except (IndexError, ValueError, TypeError, np.exceptions.AxisError) as e:
        name = type(e).__name__
        if isinstance(e, np.exceptions.AxisError):
            name = "ValueError"  # an AxisError is both; memview raises ValueError
        return {"error": name}


def main():
    rng = random.Random(20261202)
    cases = []
    while len(cases) < CASES:
        itemsize, shape, strides, offset, nbytes = random_layout(rng)
        base = np.zeros(nbytes, np.uint8)
        a = as_strided(base[offset:].view(DTYPES[itemsize]) if nbytes - offset >= itemsize else base[offset:],
                       shape=shape, strides=strides)
        if nbytes - offset < itemsize:
            continue
        op, arg = random_op(rng, shape)
        cases.append({"itemsize": itemsize, "shape": shape, "strides": strides, "offset": offset, "nbytes": nbytes,
                      "op": op, "arg": arg, "want": apply(a, op, arg)})
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "layouts.json")
    with open(path, "w") as f:
        json.dump({"numpy": np.__version__, "cases": cases}, f, separators=(",", ":"))
        f.write("\n")
    errors = sum("error" in c["want"] for c in cases)
    print(f"wrote {len(cases)} cases ({errors} errors) to {path}")


if __name__ == "__main__":
    main()
