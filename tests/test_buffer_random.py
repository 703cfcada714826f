"""Random buffer structures, after CPython's test_buffer: _testbuffer.ndarray makes a
random valid layout (shape, signed strides, offset) of a random format; memview
imports it without a copy and must then export it exactly as _testbuffer does,
for every request. Structures _testbuffer itself refuses are skipped; memview's
own validation of invalid structures is fuzzed in Go (FuzzNewLayout)."""
import random
import struct

import pytest

import memview as mv
from test_buffer_matrix import FIELDS, REQUESTS, _get

tb = pytest.importorskip("_testbuffer", reason="CPython's _testbuffer test module is not built")

FORMATS = {"?": lambda r: r.random() < 0.5, "b": lambda r: r.randint(-128, 127),
           "B": lambda r: r.randint(0, 255), "l": lambda r: r.randint(-1 << 40, 1 << 40),
           "d": lambda r: r.randint(-1000, 1000) / 4, ">h": lambda r: r.randint(-999, 999),
           "<I": lambda r: r.randint(0, 1 << 31), "hd": lambda r: (r.randint(-9, 9), r.random()),
           "2s": lambda r: bytes([r.randint(97, 122)] * 2)}


def random_structure(r):
    fmt = r.choice(list(FORMATS))
    itemsize = struct.calcsize(fmt)
    ndim = r.randint(0, 4)
    shape = [r.choice([0, 1, 1, 2, 3, 5]) for _ in range(ndim)]
    nitems = r.randint(1, 40)
    items = [FORMATS[fmt](r) for _ in range(nitems)]
    strides = [itemsize * r.choice([-3, -2, -1, 1, 1, 2, 4]) for _ in range(ndim)]
    offset = itemsize * r.randint(0, nitems - 1)
    flags = tb.ND_WRITABLE if r.random() < 0.7 else 0
    return items, shape, strides, offset, fmt, flags


def structures(n, seed):
    r = random.Random(seed)
    out = []
    while len(out) < n:
        items, shape, strides, offset, fmt, flags = random_structure(r)
        try:
            nd = tb.ndarray(items, shape=shape, strides=strides, offset=offset, format=fmt, flags=flags)
        except (ValueError, TypeError):
            continue  # an invalid structure: _testbuffer refuses it first
        out.append(nd)
    return out


@pytest.mark.parametrize("seed", range(8))
def test_random_structures_reexport_like_testbuffer(seed):
    for nd in structures(25, seed):
        a = mv.from_buffer(nd)
        assert a.shape == tuple(nd.shape) and a.strides == tuple(nd.strides)
        assert memoryview(a).tobytes() == memoryview(nd).tobytes()
        if not nd.format.endswith("s"):
            assert a.tolist() == nd.tolist()
        for name, flags in REQUESTS.items():
            want, want_err = _get(nd, flags)
            got, got_err = _get(a, flags)
            assert (got_err is None) == (want_err is None), (nd.shape, nd.strides, nd.format, name)
            if got is not None:
                for field in FIELDS:
                    if field == "format" and a.format != nd.format:
                        continue  # "<I" is memview's "I": the same item
                    assert getattr(got, field) == getattr(want, field), (nd.shape, nd.strides, name, field)
                assert got.tobytes() == want.tobytes()
            del got, want
        del a
