"""Read-only buffers and []byte parameters on the generated entries
(gopyfast.py, pyext/gopy_fast.c): a []byte takes any C-contiguous buffer as
its bytes, as hashlib does; a read-only buffer is taken as it is where
gopysig's analysis proves Go only reads the parameter, copied for the call
where it cannot tell, and refused where it finds a store."""
import ctypes
import os
import zlib

import numpy as np
import pytest

import memview as mv

if "gopkg" not in mv.go_packages():
    pytest.skip("tests/gopkg is built in by the test build (python3 build.py test)", allow_module_level=True)
if os.environ.get("MEMVIEW_GOPY_PATH") == "1":
    pytest.skip("MEMVIEW_GOPY_PATH=1: gopy's call path only", allow_module_level=True)
import gopkg  # noqa: E402
from memview._ext import _fast  # noqa: E402


def ro(x):
    x.flags.writeable = False
    return x


def test_the_analysis_outcomes():
    r = _fast.READONLY
    assert r["gopkg.Checksum"]["b"][0] == "proven"
    assert r["gopkg.ReadUnsafe"]["b"][0] == "proven"
    assert r["gopkg.SliceAddress"]["x"][0] == "proven"
    assert r["gopkg.HexEncode"]["src"][0] == "proven"
    assert r["gopkg.HexEncode"]["dst"][0] == "store"
    for name in ["WriteUnsafe", "WriteAppend", "WriteArrayPointer", "WriteClosure", "WriteCopy", "IncBytes"]:
        outcome, why = r[f"gopkg.{name}"]["b" if name != "IncBytes" else "x"]
        assert outcome == "store", (name, why)
    assert r["gopkg.RetainAddress"]["x"][0] == "inconclusive"
    assert r["gopkg.CRC"]["b"][0] == "proven"  # hash/crc32's assembly, read: it only loads from b


def test_bytes_of_any_buffer():
    data = b"hello, world"
    assert gopkg.Checksum(data) == sum(data)
    assert gopkg.Checksum(memoryview(data)) == sum(data)
    assert gopkg.Checksum(bytearray(data)) == sum(data)
    x = np.arange(5.0)
    assert gopkg.Checksum(x) == sum(x.tobytes())  # float64s, as their bytes
    assert gopkg.Checksum(ro(np.arange(6, dtype=np.int32).reshape(2, 3))) == sum(np.arange(6, dtype=np.int32).tobytes())
    assert gopkg.Checksum(b"") == 0
    assert gopkg.Checksum(mv.asarray(x)) == sum(x.tobytes())
    assert gopkg.CRC(data) == zlib.crc32(data)
    assert gopkg.CRC(x) == zlib.crc32(x)
    with pytest.raises(ValueError, match="contiguous"):
        gopkg.Checksum(np.arange(6.0)[::2])
    with pytest.raises(TypeError):
        gopkg.Checksum("text")


def test_proven_read_only_takes_the_memory_as_it_is():
    x = ro(np.arange(4.0))
    assert gopkg.SliceAddress(x) == x.ctypes.data  # no copy
    assert gopkg.ReadUnsafe(b"\x01\0\0\0\0\0\0\0") == 1
    assert gopkg.Checksum(ro(np.arange(3, dtype=np.uint8))) == 3


def test_inconclusive_is_copied_for_the_call():
    x = ro(np.arange(4.0))
    assert gopkg.RetainAddress(x) != x.ctypes.data  # a copy
    w = np.arange(4.0)
    assert gopkg.RetainAddress(w) == w.ctypes.data  # writable: the memory itself
    b = bytes(range(100))
    assert gopkg.CRC(b) == zlib.crc32(b)


def test_a_store_refuses_read_only_memory():
    data = b"abcdef"
    for fn in [gopkg.WriteUnsafe, gopkg.WriteAppend, gopkg.WriteArrayPointer, gopkg.WriteClosure, gopkg.WriteCopy,
               gopkg.IncBytes]:
        with pytest.raises(ValueError, match="read-only"):
            fn(data)
        assert data == b"abcdef"
        buf = bytearray(data)
        fn(buf)
        assert buf != bytearray(b"abcdef"), fn
    with pytest.raises(ValueError, match="read-only"):
        gopkg.HexEncode(bytes(4), b"\x01\x02")


def test_memory_written_through_ctypes_is_the_callers():
    buf = (ctypes.c_ubyte * 4)(1, 2, 3, 4)
    assert gopkg.Checksum(buf) == 10
