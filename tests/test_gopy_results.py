"""Go functions with several results, and nil both ways (gopyfast.py): a tuple
of the results, (T..., error) as the Ts or an exception, None for a nil
pointer result and None given for a nil slice or pointer parameter."""
import math
import os

import numpy as np
import pytest

import memview as mv

if "gopkg" not in mv.go_packages():
    pytest.skip("tests/gopkg is built in by the test build (python3 build.py test)", allow_module_level=True)
if os.environ.get("MEMVIEW_GOPY_PATH") == "1":
    pytest.skip("MEMVIEW_GOPY_PATH=1: gopy's call path only", allow_module_level=True)
import gopkg  # noqa: E402
from memview._ext import _fast  # noqa: E402


def test_several_results_are_a_tuple():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    assert gopkg.MeanVariance(x) == (2.5, float(np.var(x)))
    assert gopkg.MeanVariance(x=x) == (2.5, 1.25)
    mean, var = gopkg.MeanVariance(np.zeros(0))
    assert math.isnan(mean) and math.isnan(var)
    assert gopkg.Split(3.25) == (3, 0.25)
    assert gopkg.Split(-1.5) == (-1, -0.5)
    assert type(gopkg.Split(2.0)[0]) is int
    assert gopkg.Words("héllo big world") == ("héllo", "big world", True)
    assert gopkg.Words("one") == ("one", "", False)
    # they were left out before: the entry is their only path
    assert "gopkg.MeanVariance" in _fast.OWN and "gopkg.Split" in _fast.OWN


def test_several_results_with_an_error():
    assert gopkg.Root(9.0) == (3.0, 81.0)
    with pytest.raises(RuntimeError, match="negative number"):
        gopkg.Root(-1.0)
    # one T with an error is that T
    assert gopkg.FailValue(False) == 1.5


def test_wrong_calls_of_an_entry_without_a_gopy_path():
    with pytest.raises(TypeError, match=r"gopkg\.Split\(\): missing a required argument: 'x'"):
        gopkg.Split()
    with pytest.raises(TypeError, match=r"gopkg\.Split\(\): too many positional arguments"):
        gopkg.Split(1.0, 2.0)
    with pytest.raises(TypeError, match=r"gopkg\.Split\(\): got an unexpected keyword argument 'y'"):
        gopkg.Split(x=1.0, y=1.0)
    with pytest.raises(TypeError, match="gopkg.Split"):
        gopkg.Split("x")
    with pytest.raises(TypeError, match=r"gopkg\.MeanVariance\(\) argument 'x'"):
        gopkg.MeanVariance([1.0, 2.0])
    with pytest.raises(TypeError, match=r"gopkg\.MeanVariance\(\) argument 'x'"):
        gopkg.MeanVariance(np.arange(3, dtype=np.int32))
    with pytest.raises(ValueError, match="contiguous"):
        gopkg.MeanVariance(np.arange(6.0)[::2])


def test_a_gopy_object_among_several_results():
    box, positive = gopkg.BoxPair(4)
    assert positive is True and gopkg.BoxN(box) == 4
    box, positive = gopkg.BoxPair(-2)
    assert positive is False and gopkg.BoxN(box) == -2


def test_a_method_with_several_results():
    acc = gopkg.NewAcc()
    acc.Add(np.array([1.5, 1.25]))
    assert acc.Parts() == (2.0, 0.75)
    with pytest.raises(TypeError, match=r"gopkg\.Acc\.Parts\(\)"):
        acc.Parts(1)


def test_nil_pointer_result_is_none():
    assert gopkg.MaybeBox(-1) is None
    assert gopkg.BoxN(gopkg.MaybeBox(3)) == 3


def test_none_is_a_nil_slice():
    assert gopkg.NilSlice(None) == (True, 0)
    assert gopkg.NilSlice(np.zeros(0)) == (False, 0)  # an empty buffer is an empty, non-nil slice
    assert gopkg.NilSlice(np.zeros(3)) == (False, 3)
    assert gopkg.BoxOrNil(gopkg.NewBox(1)) == "box"
    with pytest.raises(TypeError):  # a nil pointer parameter is refused (see gopyfast.entry)
        gopkg.BoxOrNil(None)
    assert gopkg.Len(None) == 0
    gopkg.IncFloat64s(None)  # Go's loop over a nil slice does nothing



def test_slice_results_are_memview_arrays():
    r = gopkg.Float64s(4)
    assert type(r) is mv.Array and r.dtype == "float64" and not r.readonly
    m = memoryview(r)
    assert m.format == "d" and m.tolist() == [0.0, 1.0, 2.0, 3.0]
    n = np.asarray(r)
    assert n.ctypes.data == r.ptr  # no copy
    n[0] = 9.0
    assert r[0] == 9.0 and gopkg.Len(r) == 4
    del m, n
    b = gopkg.Bytes(3)
    assert b.dtype == "uint8" and bytes(b) == b"\x00\x01\x02"
    z = gopkg.NilFloats()
    assert type(z) is mv.Array and z.shape == (0,)


def test_a_slice_of_an_input_is_a_view_of_it():
    x = np.arange(6.0)
    t = gopkg.Tail(x, 2)
    assert t.ptr == x.ctypes.data + 4 * 8 and t.tolist() == [4.0, 5.0]
    x[5] = -1.0
    assert t[1] == -1.0
    assert t.base is not None
    ro = np.arange(4.0)
    ro.flags.writeable = False
    v = gopkg.Tail(ro, 3)  # Go only reads x (proven): the memory itself, and read-only as it was
    assert v.readonly and v.ptr == ro.ctypes.data + 8
    with pytest.raises((TypeError, ValueError)):
        v[0] = 1.0
    dst = bytearray(8)
    out = gopkg.HexEncode(dst, b"\x01\xab")
    assert bytes(out) == b"01ab" and bytes(dst[:4]) == b"01ab"
    assert out.ptr == mv.asarray(dst).ptr  # dst[:n]: a view of dst
    with pytest.raises(BufferError):
        dst.extend(b"x")  # the view holds an export of dst
    del out
    dst.extend(b"x")
    assert bytes(gopkg.HexEncode(None, b"\xff")) == b"ff"  # Encode(None, src): Go allocates


def test_struct_values():
    p = gopkg.Mid(0.0, 0.0, 2.0, -4.0)
    assert (p.X, p.Y) == (1.0, -2.0)
    assert repr(p) == "gopkg.Point(X=1.0, Y=-2.0)"
    assert p == gopkg.Mid(2.0, -4.0, 0.0, 0.0) and p != gopkg.Mid(0.0, 0.0, 0.0, 0.0)
    assert not hasattr(p, "handle") and "_memview_kept" not in vars(p)
    data = b"abc"  # read-only, and Go only reads it: nothing kept, no copy
    h = gopkg.Hash128(data)
    assert type(h).__name__ == "Uint128" and h.Lo == 0xE71FA2190541574B  # FNV-1a 64 of "abc"
    assert vars(h) == {"Hi": h.Hi, "Lo": h.Lo}
    lab = gopkg.Label(3)
    assert (lab.Name, lab.N, lab.OK, lab.F) == ("n3", 3, True, 0.5)
    assert _fast.VALUES["gopkg"]["Point"] == ["X", "Y"]


def test_fixed_arrays():
    d = gopkg.Digest(b"abc")
    assert d == bytes.fromhex("e71fa2190541574b")  # as hashlib's digest(): bytes
    assert gopkg.Corners(1.5) == (1.5, 3.0, 4.5)
    assert gopkg.Signs(-2) == ((False, True), -2)


def test_struct_values_are_taken_back():
    import types as _types
    p, q = gopkg.Mid(0.0, 0.0, 2.0, 2.0), gopkg.Mid(0.0, 0.0, 0.0, 0.0)
    assert gopkg.Dist(p, q) == 2.0 and gopkg.Dist(a=q, b=p) == 2.0
    assert gopkg.Dist(_types.SimpleNamespace(X=3.0, Y=0), q) == 3.0  # any object with the fields
    assert gopkg.Describe2(gopkg.Label(7)) == "n7:7+"
    with pytest.raises(TypeError, match=r"gopkg\.Dist\(\) argument 'a\.X' must be a real number"):
        gopkg.Dist(_types.SimpleNamespace(X="x", Y=0), q)
    with pytest.raises(TypeError):
        gopkg.Dist(3, q)  # no fields: gopy's path refuses it


def test_value_receiver_methods_on_value_objects():
    p = gopkg.Mid(0.0, 0.0, 2.0, -6.0)
    assert p.Norm1() == 4.0  # func (p Point) Norm1() float64, on the value object
    with pytest.raises(TypeError, match=r"gopkg\.Point@Norm1\(\)"):
        p.Norm1(1)


def test_pointer_receiver_methods_update_value_objects():
    p = gopkg.Mid(0.0, 0.0, 2.0, 2.0)
    assert p.Move(0.5, -1.0) is None and (p.X, p.Y) == (1.5, 0.0)
    lab = gopkg.Label(2)
    assert lab.Rename("two") == "n2" and (lab.Name, lab.OK) == ("two", False)
    with pytest.raises(TypeError):
        p.Move("x", 1.0)
    assert (p.X, p.Y) == (1.5, 0.0)  # unchanged by a refused call


def test_named_byte_arrays_are_bytes_with_methods():
    import pickle
    i = gopkg.NewID(0x01020304)
    assert type(i) is gopkg.ID and isinstance(i, bytes) and i == b"\x01\x02\x03\x04"
    assert i.Number() == 0x01020304 and str(i) == "01020304" and i.String() == "01020304"
    assert repr(i) == "gopkg.ID(b'\\x01\\x02\\x03\\x04')"
    p = i.Parity()  # a named integer without constants: an int subclass, with its method
    assert type(p) is gopkg.Parity and p == 0 and not p.Odd() and gopkg.NewID(7).Parity().Odd()
    assert not hasattr(i, "Reset")  # a pointer receiver's method: bytes are immutable
    # taken back from any 4 bytes, on the fast path and on gopy's
    for x in (i, b"\x01\x02\x03\x04", bytearray(b"\x01\x02\x03\x04"), memoryview(b"\x01\x02\x03\x04")):
        assert gopkg.Next(x) == gopkg.NewID(0x01020305)
        assert gopkg.NextVia(x, lambda n: n * 2) == gopkg.NewID(0x02040608)
    assert pickle.loads(pickle.dumps(i)) == i and type(pickle.loads(pickle.dumps(i))) is gopkg.ID
    assert gopkg.ID(b"abcd") == b"abcd" and gopkg.ID() == bytes(4)
    with pytest.raises(ValueError, match=r"gopkg\.Next\(\) argument 'id': Go takes a \[4\]byte here, not 3 bytes"):
        gopkg.Next(b"abc")
    with pytest.raises(TypeError, match=r"gopkg\.Next\(\) argument 'id': Go takes a \[4\]byte here, not None"):
        gopkg.Next(None)
    with pytest.raises(ValueError, match=r"gopkg\.NextVia\(\) argument 'id': gopkg\.ID is 4 bytes, not 5"):
        gopkg.NextVia(b"abcde", lambda n: n)
    with pytest.raises(TypeError, match="not 'int'"):
        gopkg.ID(4)  # (bytes(4) would be four zero bytes)


def test_string_slices_are_lists():
    assert gopkg.Fields("a bb  ccc") == ["a", "bb", "ccc"]
    assert gopkg.Fields("") == []  # a nil []string: an empty list
    assert gopkg.Fields("é ü") == ["é", "ü"]


def test_error_parameters():
    assert gopkg.ErrText(None) == "<nil>" and gopkg.ErrText(err=None) == "<nil>"
    assert gopkg.ErrText("boom") == "boom"
    assert gopkg.ErrText("") == "<nil>"  # (gopy hands an error over as its message: "" is nil)
