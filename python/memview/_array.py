"""memview.Array: the Python methods of memview's array type.

The type's storage, the buffer protocol and the cached attributes (shape, strides,
dtype, ptr, ...) live in C (memview._core.ArrayBase); layouts, copies and fills
are done in Go. This module adds indexing, conversion and the NumPy-like methods.
"""
from __future__ import annotations

import numbers
import operator

from . import _cai, _cdata, _core, _dtype, _dtypes, _formats, _pickle, _record
from . import cuda as _cuda
from ._buffers import normalize_device as _normalize_device
from ._pools import pool_id as _pool_id

#: the Go core's one name of an array's item type (the C getter under the
#: facade's dtype property), for any ArrayBase
_name_of = _core.ArrayBase.__dict__["dtype"].__get__

_BIG = 1 << 62  # slice bounds beyond this are clamped; they mean "to the end" anyway


def _clamp(v):
    if v is None:
        return None
    v = operator.index(v)
    return max(-_BIG, min(_BIG, v))


def encode_key(key, ndim: int):
    """Encode a basic-indexing key for _core.view; also say whether it selects one element."""
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    nint = 0
    scalar = True
    for k in key:
        if k is Ellipsis:
            out.append((2, 0, 0, 0, 0, 0, 0))
            scalar = False
        elif k is None:
            out.append((3, 0, 0, 0, 0, 0, 0))
            scalar = False
        elif isinstance(k, slice):
            try:
                start, stop, step = _clamp(k.start), _clamp(k.stop), _clamp(k.step)
            except TypeError:
                raise TypeError("memview: slice indices must be integers or None "
                                "or have an __index__ method") from None
            if step == 0:
                raise ValueError("memview: slice step cannot be zero")
            out.append((1, 0, start or 0, stop or 0, step or 0,
                        int(start is not None), int(stop is not None)))
            scalar = False
        elif isinstance(k, bool) or (type(k).__name__ in ("bool_", "bool") and type(k).__module__ == "numpy"):
            raise IndexError("memview: boolean indexes are not supported (basic indexing only)")
        else:
            try:
                i = operator.index(k)
            except TypeError:
                raise IndexError("memview: only integers, slices (`:`), ellipsis (`...`) and None "
                                 f"are valid indices, not {type(k).__name__!r}") from None
            if not -_BIG <= i <= _BIG:
                raise IndexError(f"memview: index {i} is out of bounds")
            out.append((0, i, 0, 0, 0, 0, 0))
            nint += 1
    return tuple(out), scalar and nint == ndim


def _element(dtype: str):
    """How values nest for dtype: the sequence types that nest in an assigned
    value (lists and tuples, except that a tuple or dict is one element of a
    record dtype, as in NumPy) and the shape of one element that is itself a
    sub-array (() for a scalar or record)."""
    if dtype in _dtypes.STRUCT:
        return (list, tuple), ()
    c = _formats.codec(dtype)
    return c.seq, c.subshape


def _sequences(dtype: str):
    return _element(dtype)[0]


def _nested_shape(value, seq=(list, tuple)):
    shape = []
    while isinstance(value, seq):
        shape.append(len(value))
        if not value:
            break
        value = value[0]
    return tuple(shape)


def _flatten(value, shape, depth, out, seq=(list, tuple), leaf_seq=False):
    if depth == len(shape):
        if isinstance(value, seq) and not leaf_seq:
            raise ValueError("memview: setting an array element with a sequence "
                             "(the nested sequence is ragged)")
        out.append(value)
        return
    if not isinstance(value, seq) or len(value) != shape[depth]:
        raise ValueError(f"memview: the nested sequence is ragged at depth {depth} "
                         f"(expected length {shape[depth]})")
    for v in value:
        _flatten(v, shape, depth + 1, out, seq, leaf_seq)


def from_nested(value, dtype: str):
    """A new Go-owned array holding the values of a nested list/tuple (a copy).
    For a sub-array dtype the innermost dimensions of value are one element's."""
    seq, sub = _element(dtype)
    shape = _nested_shape(value, seq)
    if sub:
        shape = shape[:max(0, len(shape) - len(sub))]
    flat = []
    _flatten(value, shape, 0, flat, seq, leaf_seq=bool(sub))
    arr = _core.empty(shape, dtype, "C")
    try:
        if flat:
            data = b"".join(_dtypes.pack(dtype, v) for v in flat)
            memoryview(arr).cast("B")[:] = data
    except BaseException:
        arr.release()
        raise
    return arr


def _as_source(value, dtype: str):
    """What to write into an array of dtype: element bytes (a fill) or an Array (a copy)."""
    if isinstance(value, _core.ArrayBase):
        if _name_of(value) == dtype:  # one layout, however spelled
            return value
        return _converted(value.tolist(), value.shape, dtype)
    if isinstance(value, _record.record) and value._dtype == dtype:
        return value.tobytes()  # an element of this layout: its bytes, exactly
    if type(value).__name__ == "void" and type(value).__module__ == "numpy" and _same_numpy_layout(value, dtype):
        return value.tobytes()  # NumPy's record scalar, whose own buffer format misstates some layouts
    if isinstance(value, (numbers.Number, str)) or (isinstance(value, bytes) and dtype not in _dtypes.STRUCT):
        # bytes and str are one item of a bytes dtype; a str is parsed as a number
        # for a numeric one (as NumPy does); bytes are a buffer for numbers
        return _dtypes.pack(dtype, value)
    if isinstance(value, (list, tuple, dict)):
        if not isinstance(value, _sequences(dtype)):
            return _dtypes.pack(dtype, value)  # one record
        return from_nested(value, dtype)
    if hasattr(value, "__cuda_array_interface__") and not hasattr(value, "__buffer__"):
        src = _cai.wrap(value, "memview: assignment", _cuda.import_sync())
        if _name_of(src) == dtype:
            return src
        src.release()
        raise TypeError(f"memview: cannot assign a {value.__cuda_array_interface__['typestr']} CUDA "
                        f"array to a {dtype} array (no conversion on the device)")
    fmt = _cdata.item_format(value)  # a ctypes object's from its type (TypeError: none describes it)
    try:
        src = _core.from_buffer(value, -1, False, fmt)
    except TypeError:
        raise TypeError(f"memview: cannot assign a {type(value).__name__!r} to a {dtype} array") from None
    except ValueError:
        src = None  # a format memview cannot read directly: convert its values
    if src is not None and _name_of(src) == dtype:
        return src
    if src is not None:  # another item type: convert memview's reading of its values
        try:
            values, shape = src.tolist(), src.shape
        finally:
            src.release()
    elif type(value).__module__ == "numpy" and hasattr(value, "tolist"):
        # NumPy's reading: a record scalar (np.void) whose format misstates its size
        values, shape = value.tolist(), getattr(value, "shape", ())
    else:
        with memoryview(value) as m:
            values, shape = m.tolist(), m.shape
    return _converted(values, shape, dtype)


def _same_numpy_layout(value, dtype: str) -> bool:
    """Whether NumPy scalar value's dtype has the layout of memview's dtype."""
    try:
        return _dtype.dtype(value.dtype)._go == dtype
    except (TypeError, ValueError):
        return False


def _converted(values, shape, dtype: str):
    """The values of a source of shape (nested lists, or one value for shape ())
    as element bytes of dtype (a fill) or a new array of dtype and that shape."""
    if shape == ():
        return _dtypes.pack(dtype, values)
    if 0 in shape:  # no values: the shape alone, which nested lists lose
        return _core.empty(tuple(shape), dtype, "C")
    return from_nested(values, dtype)


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
        if self.device != "cpu":
            v = self
            if index:
                if len(index) == 1 and isinstance(index[0], tuple):
                    index = index[0]
                v = _core.view(self, encode_key(index, self.ndim)[0])
            with v.to("cpu") as h:
                return h.item()
        if index:
            if len(index) == 1 and isinstance(index[0], tuple):
                index = index[0]
            return self[index] if len(index) == self.ndim else self[index].item()
        if self.size != 1:
            raise ValueError("memview: can only convert an array of size 1 to a Python scalar")
        one = self.reshape(()) if self.ndim else self
        if one.format in _dtypes.MEMORYVIEW_FORMATS:
            return memoryview(one)[()]
        return _dtypes.element(self._name, memoryview(one).tobytes())

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

    def tobytes(self, order="C"):
        """The elements' bytes in C ('C'), Fortran ('F') or memory ('A') order (a copy)."""
        if order not in ("C", "F", "A"):
            raise ValueError(f"memview: order must be 'C', 'F' or 'A', not {order!r}")
        if self.device != "cpu":
            with self.to("cpu") as h:
                return memoryview(h).tobytes(order=order)
        return memoryview(self).tobytes(order=order)

    def fill(self, value, *, stream=None):
        """Set every element to value, in place (on a CUDA device: enqueued on stream,
        default the legacy default stream)."""
        if self.readonly:
            raise ValueError("memview: assignment destination is read-only")
        _core.fill(self, _dtypes.pack(self._name, value), _cuda.stream_handle(stream))

    # -- views and copies
    # Indexing, len, iteration, T, transpose and reshape are the C base type's
    # (pyext/ops_views.c); what it leaves to Go comes back to the functions below.

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


# -- the C type's slow paths (pyext/ops_views.c): keys, values and dtypes its fast
# path leaves to Go, and every error
def _getitem(self, key):
    enc, scalar = encode_key(key, self.ndim)
    v = _core.view(self, enc)
    return v.item() if scalar else v


def _setitem(self, key, value):
    enc, _ = encode_key(key, self.ndim)
    dst = _core.view(self, enc)
    if dst.readonly:
        raise ValueError("memview: assignment destination is read-only")
    src = _as_source(value, _name_of(dst))
    if isinstance(src, bytes):
        _core.fill(dst, src)
    else:
        _core.copyto(dst, src)


def _transpose(self, axes):
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = () if axes[0] is None else tuple(axes[0])
    return _core.transpose(self, tuple(operator.index(a) for a in axes))


def _reshape(self, shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return _core.reshape(self, tuple(operator.index(s) for s in shape))


_core.set_hooks(_getitem, _setitem, _transpose, _reshape)
_core.set_array_type(Array)
