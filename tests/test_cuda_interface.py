"""The CUDA Array Interface: export dicts, import validation, views.

Without a CUDA driver the device pointers here are made up and never
dereferenced: memview only does address arithmetic on CUDA memory. Where a
driver is present it checks that an address really is CUDA memory, so there
the same tests run over a real device allocation (part of the GPU check,
marker `gpu`); the few that need the driver to be absent say so.
"""
import gc
import weakref

import pytest

import memview as mv

pytestmark = pytest.mark.gpu
no_driver = pytest.mark.skipif(mv.cuda.is_available(), reason="covers machines without a CUDA driver")

if mv.cuda.is_available():
    # Real device memory, alive for the whole module, that the addresses below fall in.
    _BACKING = mv.zeros(1 << 16, "uint8", device="cuda")
    PTR = _BACKING.ptr + 4096
else:
    PTR = 0x7F00_0000_0000


class Producer:
    """A stand-in CAI producer: exactly the dict it is given."""

    def __init__(self, **cai):
        self.__cuda_array_interface__ = cai


def producer(shape=(3, 4), typestr="<f4", ptr=PTR, readonly=False, **extra):
    return Producer(shape=shape, typestr=typestr, data=(ptr, readonly), version=3, **extra)


@no_driver
def test_no_driver_here():
    assert mv.cuda.device_count() == 0 and mv.cuda.is_available() is False


def test_host_arrays_have_no_interface():
    a = mv.zeros(3)
    assert not hasattr(a, "__cuda_array_interface__")


def test_import_and_reexport():
    p = producer()
    a = mv.from_cuda_array_interface(p)
    assert a.shape == (3, 4) and a.strides == (16, 4) and a.dtype == "float32"
    assert a.ptr == PTR and a.device == "cuda:0" and a.base is p and not a.readonly
    assert a.c_contiguous
    assert a.__cuda_array_interface__ == {
        "shape": (3, 4), "typestr": "<f4", "descr": [("", "<f4")], "data": (PTR, False),
        "strides": None, "version": 3, "stream": None}
    assert mv.asarray(p).ptr == PTR
    assert "cuda:0" in repr(a)


def test_views_of_device_arrays():
    a = mv.from_cuda_array_interface(producer(shape=(4, 6), typestr="<f8", stream=2))
    v = a[::-1, 1::2]
    cai = v.__cuda_array_interface__
    assert cai["data"] == (PTR + 3 * 48 + 8, False)  # slices point at their element 0
    assert cai["strides"] == (-48, 16) and cai["shape"] == (4, 3)
    assert cai["stream"] == 2  # views carry the producer's stream
    t = a.T.__cuda_array_interface__
    assert t["strides"] == (8, 48) and t["shape"] == (6, 4)
    e = a[2:2].__cuda_array_interface__
    assert e["data"] == (0, False) and e["shape"] == (0, 6)  # ptr 0 when empty
    ro = mv.from_cuda_array_interface(producer(readonly=True))
    assert ro.readonly and ro[1:].__cuda_array_interface__["data"][1] is True
    with pytest.raises(ValueError, match="read-only"):
        ro[0, 0] = 1.0


def test_strided_import():
    a = mv.from_cuda_array_interface(producer(shape=(3, 2), typestr="<i8", strides=(-16, 48),
                                              ptr=PTR + 256))
    assert a.strides == (-16, 48) and a.ptr == PTR + 256
    assert a.__cuda_array_interface__["strides"] == (-16, 48)
    assert not a.c_contiguous


@no_driver
def test_host_operations_are_refused():
    a = mv.from_cuda_array_interface(producer())
    with pytest.raises(BufferError, match="cuda:0"):
        memoryview(a)
    # Everything that reads or writes the elements goes through the driver, which
    # is not here: a clear CUDAError, and the made-up memory is never touched.
    for op in (a.tolist, lambda: a[0, 0], a.copy, lambda: a.fill(1.0), lambda: a.to("cpu"),
               a.tobytes, lambda: a.__setitem__((0, 0), 2.0), lambda: a.to("cuda_host")):
        with pytest.raises(mv.cuda.CUDAError):
            op()
    assert a.to("cuda") is a and a.to("cuda:0") is a
    with pytest.raises(ValueError, match="device"):
        mv.empty(3, device="tpu")


def test_source_kept_alive():
    p = producer()
    ref = weakref.ref(p)
    a = mv.from_cuda_array_interface(p)
    v = a[1:]
    del p, a
    gc.collect()
    assert ref() is not None
    del v
    gc.collect()
    assert ref() is None


def test_big_endian_device_arrays_keep_their_typestr():
    a = mv.from_cuda_array_interface(producer(shape=(2, 3), typestr=">f4"))
    assert a.dtype == ">f4" and a.itemsize == 4 and a.format == ">f"
    assert a.__cuda_array_interface__["typestr"] == ">f4"


@pytest.mark.parametrize("cai,exc,match", [
    ({"typestr": "<f4", "data": (PTR, False)}, ValueError, "shape"),
    ({"shape": (2,), "data": (PTR, False)}, ValueError, "typestr"),
    ({"shape": (2,), "typestr": "<f4"}, ValueError, "data"),
    ({"shape": (2,), "typestr": "<f4", "data": (PTR, False), "version": 4}, ValueError, "version"),
    ({"shape": (2,), "typestr": "<f4", "data": (PTR, False), "version": True}, ValueError, "version"),
    ({"shape": (2,), "typestr": "<f4", "data": (PTR, False), "mask": object()}, ValueError, "mask"),
    ({"shape": (2,), "typestr": "<f4", "data": (PTR, False), "stream": 0}, ValueError, "stream 0"),
    ({"shape": (2,), "typestr": "<f4", "data": (PTR, False), "stream": "s"}, TypeError, "stream"),
    ({"shape": (-2,), "typestr": "<f4", "data": (PTR, False)}, ValueError, "negative"),
    ({"shape": (2.0,), "typestr": "<f4", "data": (PTR, False)}, TypeError, "ints"),
    ({"shape": 2, "typestr": "<f4", "data": (PTR, False)}, TypeError, "tuple"),
    ({"shape": (2,), "typestr": "<f4", "data": PTR}, TypeError, "tuple"),
    ({"shape": (2,), "typestr": "<f4", "data": (PTR, 0)}, TypeError, "readonly"),
    ({"shape": (2,), "typestr": "<f4", "data": (-1, False)}, ValueError, "pointer"),  # an int, outside [0, 2**64)
    ({"shape": (2,), "typestr": "<f4", "data": (0, False)}, ValueError, "null"),
    ({"shape": (2,), "typestr": "<f4", "data": (PTR + 2, False)}, ValueError, "aligned"),
    ({"shape": (2, 2), "typestr": "<f4", "data": (PTR, False), "strides": (8,)}, ValueError, "strides"),
    ({"shape": (2,), "typestr": "<f4", "data": (PTR, False), "strides": (6,)}, ValueError, "multiple"),
    ({"shape": (2,), "typestr": "<f3", "data": (PTR, False)}, TypeError, "memview"),
    ({"shape": (2,), "typestr": "<M8", "data": (PTR, False)}, TypeError, "memview"),
    ({"shape": (2,), "typestr": 5, "data": (PTR, False)}, TypeError, "typestr"),
    ({"shape": (4,), "typestr": "<f4", "data": (16, False), "strides": (-16,)}, ValueError, "below"),
])
def test_bad_interfaces_refused(cai, exc, match):
    with pytest.raises(exc, match=match):
        mv.from_cuda_array_interface(Producer(**cai))


def test_not_a_producer():
    with pytest.raises(TypeError, match="no __cuda_array_interface__"):
        mv.from_cuda_array_interface(object())
    bad = Producer()
    bad.__cuda_array_interface__ = [1, 2]
    with pytest.raises(TypeError, match="dict"):
        mv.from_cuda_array_interface(bad)


def test_empty_and_legacy_versions():
    e = mv.from_cuda_array_interface(Producer(shape=(0, 3), typestr="|u1", data=(0, False), version=3))
    assert e.size == 0 and e.__cuda_array_interface__["data"] == (0, False)
    old = mv.from_cuda_array_interface(Producer(shape=(5,), typestr="<i4", data=(PTR, False), version=1))
    assert old.shape == (5,) and old.__cuda_array_interface__["version"] == 3
