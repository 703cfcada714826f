"""Malformed objects: no memview type can be built from Python in a state its C
code does not expect, and the zero state, should it ever exist, behaves as a
released array (ValueError), never as a crash.

The C array type memview._core.ArrayBase refuses construction (tp_new), so
object.__new__ and subclasses refuse too. To test the zero state anyway, the
tests make zeroed objects the way C would, with PyType_GenericAlloc through
ctypes, and try every getter and slot on them, and every way such an array
reaches Go (memview._core's lending functions, and the bound Go functions of
sigproc and tests/gopkg where they are built in).

gopy's Python objects of Go values are made wrong as easily: a bare __new__,
the zero Go value gopy's constructor makes, a forged handle, the handle of a
value of another Go type. Each refuses with an exception, or behaves as the
zero Go value does, never a crash.
"""
import ctypes
import gc
import weakref

import numpy as np
import pytest

import memview as mv
from memview import _core

ArrayBase = _core.ArrayBase


class Sub(mv.Array):
    __slots__ = ()


class BaseSub(ArrayBase):
    pass


class BaseSubWithNew(ArrayBase):
    def __new__(cls):
        return super().__new__(cls)


MADE_HOW = {
    "object.__new__(Array)": lambda: object.__new__(mv.Array),
    "object.__new__(ArrayBase)": lambda: object.__new__(ArrayBase),
    "ArrayBase()": lambda: ArrayBase(),
    "Array.__base__()": lambda: mv.Array.__base__(),
    "ArrayBase.__new__(ArrayBase)": lambda: ArrayBase.__new__(ArrayBase),
    "ArrayBase.__new__(Array)": lambda: ArrayBase.__new__(mv.Array),
    "Array()": lambda: mv.Array(),
    "Array.__new__(Array)": lambda: mv.Array.__new__(mv.Array),
    "Array(3)": lambda: mv.Array(3),
    "subclass of Array": lambda: Sub(),
    "object.__new__(subclass of Array)": lambda: object.__new__(Sub),
    "subclass of ArrayBase": lambda: BaseSub(),
    "object.__new__(subclass of ArrayBase)": lambda: object.__new__(BaseSub),
    "subclass of ArrayBase with __new__": lambda: BaseSubWithNew(),
    "ArrayBase.__new__(subclass of ArrayBase)": lambda: ArrayBase.__new__(BaseSub),
    "type(array)()": lambda: type(mv.zeros(2))(),
}


@pytest.mark.parametrize("how", list(MADE_HOW))
def test_construction_from_python_is_refused(how):
    with pytest.raises(TypeError):
        MADE_HOW[how]()


def test_set_array_type_needs_a_subclass():
    with pytest.raises(TypeError):
        _core.set_array_type(object)
    with pytest.raises(TypeError):
        _core.set_array_type(3)


# ---- the zero state, made as C would make it

_alloc = ctypes.pythonapi.PyType_GenericAlloc
_alloc.restype = ctypes.c_void_p
_alloc.argtypes = [ctypes.py_object, ctypes.c_ssize_t]


def zeroed(cls):
    """A new object of cls with every field zero (tp_alloc without tp_new)."""
    addr = _alloc(cls, 0)
    assert addr
    obj = ctypes.cast(addr, ctypes.py_object).value  # a new reference of ours
    ctypes.pythonapi.Py_DecRef(ctypes.py_object(obj))  # give back the one tp_alloc made
    return obj


def released():
    a = mv.zeros((2, 3))
    a.release()
    return a


STATES = {
    "zeroed ArrayBase": lambda: zeroed(ArrayBase),
    "zeroed Array": lambda: zeroed(mv.Array),
    "zeroed subclass": lambda: zeroed(Sub),
    "released Array": released,
    "released view": lambda: (lambda v: (v.release(), v)[1])(mv.arange(6)[1:]),
    "released import": lambda: (lambda v: (v.release(), v)[1])(mv.from_buffer(bytearray(8))),
}

GETTERS = ["shape", "strides", "ndim", "itemsize", "nbytes", "size", "readonly", "c_contiguous",
           "f_contiguous", "format", "dtype", "typestr", "ptr", "base", "device",
           "__cuda_array_interface__"]


@pytest.mark.parametrize("state", list(STATES))
@pytest.mark.parametrize("name", GETTERS)
def test_every_getter_refuses(state, name):
    a = STATES[state]()
    with pytest.raises(ValueError, match="released"):
        getattr(a, name)


@pytest.mark.parametrize("state", list(STATES))
def test_state_getters_answer(state):
    a = STATES[state]()
    assert a.released is True and a._exports == 0
    assert "released" in repr(a) or "ArrayBase" in repr(a)


def _consumers(a):
    """Every way Python code reaches the C slots and _core functions with a."""
    live = mv.zeros(2)
    yield "buffer protocol", lambda: memoryview(a)
    yield "bytes()", lambda: bytes(a)
    yield "numpy frombuffer", lambda: np.frombuffer(a)
    yield "indexing", lambda: a[()]
    yield "a field", lambda: a["x"]
    yield "assignment", lambda: a.__setitem__(Ellipsis, 1.0)
    yield "transpose", lambda: _core.ArrayBase.transpose(a)
    yield "reshape", lambda: _core.ArrayBase.reshape(a, 6)
    yield "fill", lambda: _core.ArrayBase.fill(a, 0.0)
    yield "_core.readonly_view", lambda: _core.readonly_view(a)
    yield "_core.numpy_view", lambda: _core.numpy_view(a)
    yield "_core.copy", lambda: _core.copy(a, "C")
    yield "_core.copyto dst", lambda: _core.copyto(a, live)
    yield "_core.copyto src", lambda: _core.copyto(live, a)
    yield "_core.go_copyto dst", lambda: _core.go_copyto(a, live)
    yield "_core.go_copyto src", lambda: _core.go_copyto(live, a)
    yield "_core.go_fill", lambda: _core.go_fill(a, b"\0" * 8)
    yield "_core.lend_slice", lambda: _core.lend_slice(a, "float64")  # a Go []float64 over a
    yield "_core.lend_array", lambda: _core.lend_array(a)  # a Go *memview.Array viewing a
    yield "mv.item_desc", lambda: mv.item_desc(a)
    yield "assign into live", lambda: live.__setitem__(slice(None), a)
    yield "from_buffer", lambda: mv.from_buffer(a)


@pytest.mark.parametrize("state", list(STATES))
def test_slots_and_core_functions_refuse(state):
    a = STATES[state]()
    for _name, call in _consumers(a):
        with pytest.raises(ValueError, match="released"):
            call()
    _core.release(a)  # releasing a released array is harmless, as for memoryview


def _go_consumers(a):
    """Bound Go functions given a: a []float64 parameter, a *memview.Array one."""
    import sigproc
    yield "sigproc.Sum ([]float64)", lambda: sigproc.Sum(a)
    yield "sigproc.Scale (*memview.Array)", lambda: sigproc.Scale(a, 2.0)
    yield "sigproc.Mean (*memview.Array)", lambda: sigproc.Mean(a)
    yield "sigproc.Sum by keyword", lambda: sigproc.Sum(x=a)
    if "gopkg" in mv.go_packages():
        import gopkg
        yield "gopkg.Dot (second argument)", lambda: gopkg.Dot(np.zeros(0), a)
        yield "gopkg.Acc.AddArray (a method)", lambda: gopkg.NewAcc().AddArray(a)


@pytest.mark.skipif("sigproc" not in mv.go_packages(),
                    reason="examples/sigproc is not built in (python3 build.py test builds it with memview)")
@pytest.mark.parametrize("state", list(STATES))
def test_bound_go_functions_refuse(state):
    a = STATES[state]()
    for _name, call in _go_consumers(a):
        with pytest.raises(ValueError, match="released"):
            call()


ARRAY_METHODS = {
    "len": lambda a: len(a), "iter": lambda a: iter(a), "getitem": lambda a: a[0],
    "setitem": lambda a: a.__setitem__(0, 1.0), "item": lambda a: a.item(), "tolist": lambda a: a.tolist(),
    "tobytes": lambda a: a.tobytes(), "fill": lambda a: a.fill(0), "T": lambda a: a.T,
    "transpose": lambda a: a.transpose(), "reshape": lambda a: a.reshape(-1), "copy": lambda a: a.copy(),
    "ascontiguous": lambda a: a.ascontiguous(), "frombytes": lambda a: a.frombytes(b""),
    "to": lambda a: a.to("cpu"), "bool": lambda a: bool(a), "asarray numpy": lambda a: np.array(a, float),
}


@pytest.mark.parametrize("state", ["zeroed Array", "zeroed subclass", "released Array"])
@pytest.mark.parametrize("method", list(ARRAY_METHODS))
def test_array_methods_refuse(state, method):
    a = STATES[state]()
    with pytest.raises(ValueError, match="released|sequence"):
        ARRAY_METHODS[method](a)
    with a:  # __enter__/__exit__ (release) are harmless
        pass


@pytest.mark.parametrize("state", list(STATES))
def test_zero_state_deallocates(state):
    a = STATES[state]()
    r = weakref.ref(type(a))  # the type outlives its instances; dealloc must not crash
    del a
    gc.collect()
    assert r() is not None


def test_numpy_refuses_a_released_array():
    m = memoryview(b"abc")
    m.release()
    a = released()
    with pytest.raises(ValueError):
        len(m)
    with pytest.raises(ValueError):
        len(a)
    # memoryview falls back to NumPy's object scalar (it reads nothing); a memview
    # array's own __array__ says it is released
    assert np.asarray(m).dtype == object
    with pytest.raises(ValueError, match="released"):
        np.asarray(a)


# ---- the Python classes: a bare __new__ gives an object that refuses, never crashes

def test_bare_gpumemoryview_refuses():
    g = mv.gpumemoryview.__new__(mv.gpumemoryview)
    for call in (lambda: g.ptr, lambda: g.nbytes, lambda: g.size, lambda: g.readonly, lambda: len(g),
                 lambda: g.__cuda_array_interface__, lambda: g.byte_slice(slice(0, 1)), lambda: repr(g)):
        with pytest.raises(AttributeError):
            call()
    with pytest.raises(TypeError, match="__cuda_array_interface__"):
        mv.from_cuda_array_interface(g)
    with pytest.raises(ValueError, match="CUDA array interface"):
        mv.gpumemoryview(g)


def test_bare_stream_refuses():
    s = mv.cuda.Stream.__new__(mv.cuda.Stream)
    for call in (lambda: s.handle, lambda: s.synchronize(), lambda: s.query(), lambda: s.close(),
                 lambda: s.__cuda_stream__(), lambda: mv.cuda.stream_handle(s), lambda: repr(s),
                 lambda: mv.zeros(2).fill(1, stream=s)):
        with pytest.raises(AttributeError):
            call()


needs_rgbimage = pytest.mark.skipif("rgbimage" not in mv.go_packages(),
                                    reason="examples/rgbimage is not built in (python3 build.py test builds it)")


@needs_rgbimage
def test_bare_gopy_object_refuses():
    import rgbimage
    im = rgbimage.Image.__new__(rgbimage.Image)  # no handle at all
    for call in (lambda: im.Invert(), lambda: im.SetPixel(0, 0, 1, 2, 3), lambda: im.Width(),
                 lambda: mv.asarray(im), lambda: mv.from_go(im)):
        with pytest.raises(AttributeError, match="handle"):
            call()
    im.handle = 0  # gopy's __del__ gives the handle back: the nil handle is nothing to give


@needs_rgbimage
def test_zero_go_value_behaves_as_in_go():
    import rgbimage
    import sigproc
    im = rgbimage.Image()  # gopy's constructor: the zero Image, no pixels
    a = mv.asarray(im)
    assert a.shape == (0, 0, 3) and a.tolist() == []
    im.Invert()
    with pytest.raises(IndexError, match=r"^rgbimage: pixel \(0, 0\) outside the 0x0 image$"):
        im.SetPixel(0, 0, 1, 2, 3)
    s = sigproc.Signal()
    assert mv.asarray(s).shape == (0,) and s.Total() == 0.0 and s.Len() == 0
    del a


@needs_rgbimage
def test_forged_and_stale_handles_refuse():
    import rgbimage
    import sigproc
    stale = rgbimage.New(2, 2).handle  # the object, and gopy's handle, are gone at once
    for h in (stale, 10**12, 0, -3):
        im = rgbimage.Image(handle=h)
        for call in (im.Invert, im.Width, lambda: im.SetPixel(0, 0, 1, 2, 3)):
            with pytest.raises(ValueError, match=r"the Go \*rgbimage\.Image of this method call is gone"):
                call()
        with pytest.raises(ValueError, match=f"gopy handle {h}"):
            mv.asarray(im)
    sig = sigproc.NewSignal(3)
    other = rgbimage.Image(handle=sig.handle)  # a handle of a Go value of another type
    with pytest.raises(ValueError, match=r"a \*rgbimage\.Image is needed here, and the gopy object holds a "
                                         r"\*sigproc\.Signal"):
        other.Invert()
    assert mv.asarray(other).shape == (3,)  # what the handle holds lends its memory, as it is
    del other
    assert sig.Total() == 0.0  # the real owner of the handle is untouched


def test_gopy_handles_out_of_range_refuse():
    from memview._ext import go
    g = go.GoClass()
    for bad, exc in ((2**63, OverflowError), (-2**63 - 1, OverflowError), (True, TypeError), (1.0, TypeError)):
        g.handle = bad
        with pytest.raises(exc, match=r"memview\.from_go\(\) argument 'handle'"):
            mv.from_go(g)
        with pytest.raises(exc):
            mv.asarray(g)


def test_pool_has_no_state():
    p = mv.Pool.__new__(mv.Pool)
    assert p.bytes_allocated == mv.default_pool().bytes_allocated
