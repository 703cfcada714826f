"""memview.gpumemoryview, the cuDF-style byte view: with made-up device pointers
where there is no CUDA driver, over a real device allocation where there is one
(part of the GPU check, marker `gpu`)."""
import gc
import weakref

import pytest

import memview as mv

pytestmark = pytest.mark.gpu

if mv.cuda.is_available():
    # Real device memory, alive for the whole module, that the addresses below fall in.
    _BACKING = mv.zeros(1 << 16, "uint8", device="cuda")
    PTR = _BACKING.ptr + 4096
else:
    PTR = 0x7F00_0000_1000


class Producer:
    def __init__(self, **cai):
        self.__cuda_array_interface__ = cai


def make(n=10, typestr="|u1", readonly=False, stream=None):
    return Producer(shape=(n,), typestr=typestr, data=(PTR, readonly), version=3, stream=stream)


def test_attributes():
    src = make(5, "<f8", stream=7)
    g = mv.gpumemoryview(src)
    assert g.ptr == PTR and g.nbytes == 40 and g.size == 40 and len(g) == 5
    assert g.obj is src and g.cai is src.__cuda_array_interface__
    assert g.__cuda_array_interface__ is g.cai and not g.readonly
    with pytest.raises(TypeError):
        hash(g)
    assert weakref.ref(g)() is g
    assert "nbytes=40" in repr(g)


@pytest.mark.parametrize("s,start,length", [
    (slice(1, 3), 1, 2), (slice(None, 2), 0, 2), (slice(3, None), 3, 7),
    (slice(2, 2), None, 0), (slice(0, 10000), 0, 10), (slice(-4, None), 6, 4), (slice(5, 1), None, 0),
])
def test_byte_slice(s, start, length):
    g = mv.gpumemoryview(make(10, readonly=True, stream=2))
    v = g.byte_slice(s)
    assert v.nbytes == length and len(v) == length
    if length:
        assert v.ptr == PTR + start and v.cai["data"] == (PTR + start, True)
    else:
        assert v.cai["data"] == (0, True)
    assert v.cai["typestr"] == "|u1" and v.cai["shape"] == (length,) and v.cai["version"] == 3
    assert v.cai["stream"] == 2 and v.readonly and v.obj is g


def test_byte_slice_fails():
    g = mv.gpumemoryview(make())
    with pytest.raises(TypeError, match="slice"):
        g.byte_slice(3)
    with pytest.raises(ValueError, match="step=1"):
        g.byte_slice(slice(0, 8, 2))


def test_slice_keeps_parent_alive():
    src = make()
    g = mv.gpumemoryview(src)
    s = g.byte_slice(slice(2, 4))
    parent, source = weakref.ref(g), weakref.ref(src)
    del g, src
    gc.collect()
    assert parent() is not None and source() is not None
    del s
    gc.collect()
    assert parent() is None and source() is None


def test_construction_errors():
    with pytest.raises(ValueError, match="CUDA array interface"):
        mv.gpumemoryview(object())
    with pytest.raises(ValueError, match="C-contiguous"):
        mv.gpumemoryview(Producer(shape=(3, 4), typestr="<f4", data=(PTR, False), strides=(4, 12),
                                  version=3))
    with pytest.raises(ValueError, match="mask"):
        mv.gpumemoryview(Producer(shape=(3,), typestr="<f4", data=(PTR, False), mask=make()))


def test_interplay_with_arrays():
    a = mv.from_cuda_array_interface(make(16, "<f4"))
    g = mv.gpumemoryview(a[4:])  # a memview device array is a CAI producer too
    assert g.ptr == PTR + 16 and g.nbytes == 48
    b = mv.from_cuda_array_interface(g.byte_slice(slice(8, 24)))
    assert b.dtype == "uint8" and b.shape == (16,) and b.ptr == PTR + 24
