"""memview.Array: the Python methods of memview's array type.

The type's storage, the buffer protocol, the cached attributes (shape, strides,
dtype, ptr, ...), indexing, views and every read and write of host memory live in C
(memview._core.ArrayBase; pyext/ops_views.c, ops_assign.c); Go makes new memory
and serves CUDA memory. This module adds conversion and the NumPy-like methods.
"""
from __future__ import annotations

from . import _assign, _core, _dtype, _dtypes, _pickle  # noqa: F401 (_assign sets the C engine's codecs)
from . import cuda as _cuda
from ._buffers import normalize_device as _normalize_device
from ._pools import pool_id as _pool_id

#: the Go core's one name of an array's item type (the C getter under the
#: facade's dtype property), for any ArrayBase
_name_of = _core.ArrayBase.__dict__["dtype"].__get__

def _nest(values, shape, dim, start):
    """values (flat, C order) as nested lists of shape, from values[start]. A
    module function, not a closure: a recursive closure would be a reference
    cycle holding the array until the cycle collector runs."""
    n = shape[dim]
    if dim == len(shape) - 1:
        return values[start:start + n], start + n
    out = []
    for _ in range(n):
        sub, start = _nest(values, shape, dim + 1, start)
        out.append(sub)
    return out, start


class Array(_core.ArrayBase):
    """A strided view of memory that Go owns or that memview borrows from an exporter.

    Create arrays with memview.empty, zeros, full, arange or from_buffer. Arrays
    export the buffer protocol, so memoryview(a) and numpy.asarray(a) use the same
    memory without a copy. Indexing with integers, slices, ``...`` and None gives
    views; integers for every axis give a Python scalar.
    """

    __slots__ = ("__weakref__",)

    #: the Go core's one name of the item type (a str: a NumPy name such as
    #: "float64", a typestr such as ">f8", or a canonical PEP 3118 format)
    _name = _core.ArrayBase.dtype

    @property
    def dtype(self) -> _dtype.dtype:
        """The item type, a memview.dtype (NumPy's attributes; np.dtype(a.dtype) is
        the NumPy dtype of np.asarray(a))."""
        d = _dtype._by_format.get(self.format)
        return d if d is not None else _dtype.of_format(self.format)

    #: DLPack 1.3's C exchange table (a PyCapsule "dlpack_exchange_api").
    __dlpack_c_exchange_api__ = _core.dlpack_exchange_api

    def __new__(cls, *args, **kwargs):
        raise TypeError("memview.Array cannot be created directly; use memview.empty, zeros, "
                        "full, arange or from_buffer")

    # -- elements and conversion
    def item(self, *index):
        """The element at index (all axes) as a Python scalar; no index for size-1 arrays.
        Device arrays are copied to the host first."""
        if index:
            if len(index) == 1 and isinstance(index[0], tuple):
                index = index[0]
            v = self[index]
            return v.item() if isinstance(v, _core.ArrayBase) else v
        if self.size != 1:
            raise ValueError("memview: can only convert an array of size 1 to a Python scalar")
        if self.device != "cpu":
            with self.to("cpu") as h:
                return h.item()
        return self[(0,) * self.ndim]

    def tolist(self):
        """The elements as nested Python lists (a scalar for a 0-d array); device
        arrays are copied to the host first."""
        if self.device != "cpu":
            with self.to("cpu") as h:
                return h.tolist()
        if self.format in _dtypes.MEMORYVIEW_FORMATS:
            return memoryview(self).tolist()
        values = list(_dtypes.iter_values(self._name, memoryview(self).tobytes()))
        if self.ndim == 0:
            return values[0]
        return _nest(values, self.shape, 0, 0)[0]

    # -- views and copies
    # Indexing, len, iteration, T, transpose, reshape, fill, copy and tobytes are
    # the C base type's (pyext/ops_views.c, ops_assign.c, ops_create.c).

    def _copy_slow(self, order="C", *, stream=None, pool=None):
        """A deep copy in new Go-owned memory on the same device (from pool, a
        memview.Pool there; default: the default pool), laid out in order 'C',
        'F', 'A' or 'K' (on a CUDA device 'K' is taken as 'A')."""
        if order not in ("C", "F", "A", "K"):
            raise ValueError(f"memview: order must be 'C', 'F', 'A' or 'K', not {order!r}")
        return _core.copy(self, order, "", _cuda.stream_handle(stream), _pool_id(pool, "memview: Array.copy"))

    def ascontiguous(self):
        """self if it is C-contiguous (row-major), else a C-ordered copy: the one
        place a layout change may copy, and only when it must."""
        return self if self.c_contiguous else self.copy("C")

    to_row_major = ascontiguous

    def frombytes(self, data, order="C"):
        """Write every element from data, the elements' bytes laid out contiguously
        in C ('C'), Fortran ('F') or, for 'A', Fortran order if the array is
        F-contiguous and C order otherwise (PyBuffer_FromContiguous). data must hold
        exactly nbytes bytes; on error nothing is written."""
        if order not in ("C", "F", "A"):
            raise ValueError(f"memview: order must be 'C', 'F' or 'A', not {order!r}")
        if self.readonly:
            raise ValueError("memview: assignment destination is read-only")
        with memoryview(data) as m:
            if m.nbytes != self.nbytes:
                raise ValueError(f"memview: frombytes needs {self.nbytes} bytes, got {m.nbytes}")
            if order == "A":
                order = "F" if self.f_contiguous and not self.c_contiguous else "C"
            tmp = _core.empty(self.shape, self._name, order)
            try:
                if m.nbytes:
                    # tmp is dense in `order`: its transpose is C-contiguous when F
                    with memoryview(tmp if tmp.c_contiguous else tmp.T) as t:
                        t.cast("B")[:] = m.cast("B") if m.c_contiguous else m.tobytes()
                _core.copyto(self, tmp)
            finally:
                tmp.release()

    def to(self, device, *, stream=None, pool=None):
        """The array on device ("cpu", "cuda[:N]", "cuda_host", "cuda_managed[:N]"):
        itself when it is already there, else a copy in new Go-owned memory (from
        pool, on that device; C or F order as the source). Copies that touch host
        memory are finished when this returns; device-to-device copies are
        enqueued on stream."""
        if not isinstance(device, str):
            raise TypeError(f"memview: device must be a str such as 'cpu' or 'cuda:0', not {device!r}")
        handle = _cuda.stream_handle(stream)  # checked even when no copy is needed
        if device in ("cuda", "cuda_managed"):
            device += ":0"
        if device == self.device:
            return self
        return _core.copy(self, "K", device, handle, _pool_id(pool, "memview: Array.to"))

    def view(self, device):
        """This array's elements as memory of device, without a copy (Arrow's
        View): itself on its own device; a view over the same memory where device
        can address it — pinned ("cuda_host") or managed memory from the CPU or a
        CUDA device; else BufferError (view_or_copy copies instead)."""
        device = _normalize_device(device, "memview: Array.view")
        if device == self.device:
            return self
        return _core.array_on(self, device)

    def view_or_copy(self, device, *, stream=None, pool=None):
        """view(device) where device can address the memory, else to(device): a
        copy (from pool, on stream) (Arrow's ViewOrCopy)."""
        try:
            return self.view(device)
        except BufferError:
            return self.to(device, stream=stream, pool=pool)

    # -- NumPy
    def __array__(self, dtype=None, copy=None):
        """A NumPy array over the same memory (host arrays), with NumPy 2's copy
        rules: copy=None copies only to convert dtype, copy=True always, copy=False
        never (ValueError if dtype needs a conversion). Arrays in CUDA device
        memory raise TypeError: copy them to the host first."""
        n = _host_ndarray(self)
        if dtype is not None and n.dtype != dtype:
            if copy is False:
                raise ValueError(f"memview: converting {self.dtype} to {dtype} needs a copy, "
                                 "and copy=False forbids one")
            return n.astype(dtype)
        return n.copy() if copy else n

    def __jax_array__(self):
        """jax.numpy.asarray(a): through DLPack (zero-copy where JAX can take the
        layout and dtype as they are; JAX copies otherwise)."""
        import jax.dlpack
        return jax.dlpack.from_dlpack(self)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """NumPy ufuncs take memview arrays as inputs and as out=: they run on
        NumPy views of the same memory, and out= arrays are written in place."""
        inputs = tuple(_host_ndarray(x) if isinstance(x, Array) else x for x in inputs)
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = tuple(_host_ndarray(o) if isinstance(o, Array) else o for o in out)
        result = getattr(ufunc, method)(*inputs, **kwargs)
        if out is None or method == "at":
            return result
        if len(out) == 1:
            return out[0]
        return tuple(o if o is not None else r for o, r in zip(out, result))

    # -- pickle and copy
    def __reduce_ex__(self, protocol):
        return _pickle.reduce(self, protocol)

    def __reduce__(self):
        return _pickle.reduce(self, 2)

    def __copy__(self):
        """An independent copy in new Go-owned memory (copy.copy)."""
        return self.copy("K")

    def __deepcopy__(self, memo):
        """An independent copy in new Go-owned memory (copy.deepcopy)."""
        return self.copy("K")

    # -- lifetime
    def release(self):
        """Give the memory reference back now (BufferError while buffers are exported)."""
        _core.release(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()

    def __repr__(self):
        if self.released:
            return "<released memview.Array>"
        if self.device.startswith("cuda"):
            return (f"memview.Array(<{self.device} memory at {self.ptr:#x}>, shape={self.shape}, "
                    f"dtype={self._name!r})")
        if self.size <= 1000:
            body = repr(self.tolist())
        else:
            body = f"<{self.size} elements>"
        return f"memview.Array({body}, shape={self.shape}, dtype={self._name!r})"

    __hash__ = None


def _host_ndarray(a):
    """A NumPy view of a host array's memory; TypeError for device memory. It goes
    through a view spelled as NumPy reads memview's items (_core.numpy_view), so
    that it works for every format an exporter writes, those NumPy cannot read
    ('P', "3n") or reads otherwise ("ix") included."""
    if a.device.startswith("cuda:"):
        raise TypeError(f"memview: the array is in {a.device} device memory; NumPy cannot use it in "
                        "place. Copy it to the host first: a.to('cpu') (or use CuPy: cupy.asarray(a))")
    import numpy
    return numpy.asarray(memoryview(_core.numpy_view(a)))


_core.set_array_type(Array)
