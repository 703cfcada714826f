"""memview.Buffer and memview.Builder: the Python methods of the raw-memory types.

The storage, the buffer protocol and the cached attributes live in C
(memview._core.BufferBase, BuilderBase); the memory, slices, resizing and
views are Go's. This module adds argument handling and the methods that are
genuinely Python.
"""
from __future__ import annotations

import functools
import operator

from . import _core, _dtypes
from . import cuda as _cuda
from ._pools import pool_id as _pool_id

_DEVICE_NAMES = ("cpu", "cuda", "cuda_host", "cuda_managed")


def _is_device(x) -> bool:
    return isinstance(x, str) and (x in _DEVICE_NAMES or x.startswith(("cuda:", "cuda_managed:")))


def normalize_device(device, who: str) -> str:
    """A device name as arrays and buffers report it ("cuda" is "cuda:0")."""
    if not isinstance(device, str):
        raise TypeError(f"{who}: device must be a str such as 'cpu' or 'cuda:0', not {device!r}")
    return device + ":0" if device in ("cuda", "cuda_managed") else device


def _dtype(dtype) -> str:
    from . import _dtype_name
    return _core.dtype_info(_dtype_name(dtype))[0]


def _index(v, what: str, who: str) -> int:
    if isinstance(v, bool) or not hasattr(v, "__index__"):
        raise TypeError(f"{who}: {what} must be an integer, not {type(v).__name__!r}")
    return operator.index(v)


class Buffer(_core.BufferBase):
    """Raw bytes in Go-owned memory, after Apache Arrow's Buffer.

    ``Buffer(size)`` gives size zero bytes; ``Buffer(data)`` a copy of the bytes
    of any buffer-protocol object (in C order). ``pool=`` chooses the pool (and
    with it the device); ``resizable=True`` allows resize() and reserve();
    ``mutable=False`` makes a copy that cannot be written.

    ``size`` is the number of bytes, ``capacity`` what the buffer owns: the
    size rounded up to 64 bytes, the padding zeroed (pool statistics count
    capacities). A Buffer exports the buffer protocol as unsigned bytes ("B"):
    ``memoryview(buf)``, ``bytes(buf)``, ``numpy.frombuffer(buf)`` use it in
    place. ``view(dtype, shape)`` lays an array over it; ``slice()`` and
    ``mutable_slice()`` share its memory and keep it alive (``parent``).
    """

    __slots__ = ()

    def __new__(cls, data, *, pool=None, resizable=False, mutable=True):
        who = "memview.Buffer"
        pid = _pool_id(pool, who)
        if not isinstance(resizable, bool) or not isinstance(mutable, bool):
            raise TypeError(f"{who}: resizable and mutable must be True or False")
        if isinstance(data, int) and not isinstance(data, bool):
            if not mutable:
                raise ValueError(f"{who}: an immutable buffer needs its contents: Buffer(data, mutable=False)")
            return _core.buffer_new(data, pid, resizable)
        if isinstance(data, (bool, float, str)) or data is None:
            raise TypeError(f"{who}: data must be a size (int) or an object with the buffer protocol, "
                            f"not {type(data).__name__!r}")
        if resizable:
            if not mutable:
                raise ValueError(f"{who}: a resizable buffer is mutable")
            with memoryview(data) as m:
                b = _core.buffer_new(m.nbytes, pid, True)
                if m.nbytes:
                    with memoryview(b) as dst:
                        dst[:] = m.cast("B") if m.c_contiguous else m.tobytes()
            return b
        return _core.buffer_from(data, pid, mutable)

    def slice(self, offset=0, length=None) -> Buffer:
        """An immutable buffer over length bytes from offset (to the end when
        length is None), sharing this buffer's memory and keeping it alive."""
        return self._slice(offset, length, False, "Buffer.slice")

    def mutable_slice(self, offset=0, length=None) -> Buffer:
        """A mutable slice (BufferError if this buffer is not mutable)."""
        return self._slice(offset, length, True, "Buffer.mutable_slice")

    def _slice(self, offset, length, mutable, who):
        offset = _index(offset, "offset", who)
        if length is None:
            length = max(self.size - offset, 0)
        return _core.buffer_slice(self, offset, _index(length, "length", who), mutable)

    def resize(self, size, shrink_to_fit=True) -> None:
        """Set the size (Arrow's ResizableBuffer.Resize): growing past the
        capacity reallocates (new bytes are zero); shrinking gives memory back
        when shrink_to_fit. The memory may move. Refused with BufferError while
        anything exports, views or slices the buffer."""
        _core.buffer_resize(self, size, bool(shrink_to_fit), False)

    def reserve(self, capacity) -> None:
        """Make the capacity at least capacity bytes (rounded up to 64), keeping
        the size; refused as resize() is."""
        _core.buffer_resize(self, capacity, False, True)

    def view(self, dtype=None, shape=None, strides=None, offset=0, *, device=None):
        """An Array of dtype over the buffer: shape (default: as many items as fit
        after offset, 1-D), byte strides (default C-contiguous) and the byte
        offset of element 0, checked against the buffer's extent. Its base is the
        buffer, which it keeps alive. Several arrays can share one buffer.

        ``view(device)`` instead gives this buffer's memory as memory of
        device, without a copy, or raises BufferError (see view_or_copy)."""
        if device is not None or (_is_device(dtype) and shape is None and strides is None and offset == 0):
            if device is None:
                device = dtype
            elif dtype is not None or shape is not None or strides is not None or offset != 0:
                raise TypeError("memview: Buffer.view(device=...) takes no dtype, shape, strides or offset")
            return _core.buffer_on(self, normalize_device(device, "memview: Buffer.view"), False, 0)
        who = "memview: Buffer.view"
        name = _dtype("uint8" if dtype is None else dtype)
        offset = _index(offset, "offset", who)
        if shape is None:
            itemsize = _core.dtype_info(name)[1]
            avail = self.size - offset
            if avail < 0 or avail % itemsize:
                raise ValueError(f"{who}: {max(avail, 0)} bytes after offset {offset} are not a whole "
                                 f"number of {itemsize}-byte items; give a shape")
            shape = (avail // itemsize,)
        else:
            from . import _shape
            shape = _shape(shape)
        if strides is not None:
            if not isinstance(strides, (tuple, list)):
                raise TypeError(f"{who}: strides must be a tuple of ints or None")
            strides = tuple(_index(s, "strides entry", who) for s in strides)
        return _core.buffer_view(self, name, shape, strides, offset)

    def view_or_copy(self, device, *, pool=None, stream=None) -> Buffer:
        """This buffer's bytes as memory of device (Arrow's ViewOrCopy): itself on
        its own device; a view (its parent is this buffer) where device can
        address the memory — pinned or managed memory from the host or a CUDA
        device; else a copy in new memory from pool (default: device's pool),
        made on stream (CUDA)."""
        device = normalize_device(device, "memview: Buffer.view_or_copy")
        return _core.buffer_on(self, device, True, _pool_id(pool, "memview: Buffer.view_or_copy"),
                               _cuda.stream_handle(stream))

    def to_bytes(self) -> bytes:
        """A copy of the bytes (through host memory for a CUDA buffer)."""
        if self.device.startswith("cuda:"):
            with self.view_or_copy("cpu") as h:
                return bytes(h)
        return bytes(self)

    def release(self) -> None:
        """Give the memory reference back now (BufferError while exported);
        arrays, slices and views keep the memory they use."""
        _core.buffer_release(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()

    def __repr__(self):
        if self.released:
            return "<released memview.Buffer>"
        flags = "" if self.is_mutable else ", mutable=False"
        flags += ", resizable=True" if self.is_resizable else ""
        where = "" if self.device == "cpu" else f", device={self.device!r}"
        slice_ = ", slice" if self.parent is not None else ""
        return (f"memview.Buffer(size={self.size}, capacity={self.capacity}{flags}{where}{slice_}, "
                f"address={self.address:#x})")

    __hash__ = None


_same_item_cache: dict = {}


def _dtype_of_format(fmt: str):
    name = _same_item_cache.get(fmt, False)
    if name is False:
        try:
            name = _core.dtype_info(fmt)[0]
        except (TypeError, ValueError):
            name = None
        if len(_same_item_cache) < 1024:
            _same_item_cache[fmt] = name
    return name


class Builder(_core.BuilderBase):
    """Builds a 1-D array of one dtype in Go-owned memory, item by item, with no
    Python list in between (after Arrow's TypedBufferBuilder).

    ``append(value)`` adds one item; ``extend(values)`` adds every item of an
    iterable, or of a buffer-protocol object whose items are of this dtype by
    one copy; ``finish()`` returns the items as a memview.Array and leaves the
    builder empty for reuse. Values are converted as assignment to an array of
    the dtype converts them. The memory grows by a factor of two, from pool
    (default: the default pool).
    """

    __slots__ = ()

    def __new__(cls, dtype="float64", *, pool=None):
        name = _dtype(dtype)
        return _core.builder_new(name, _pool_id(pool, "memview.Builder"), functools.partial(_dtypes.pack, name))

    @property
    def dtype(self):
        """The item type, a memview.dtype (equal to every spelling of it)."""
        from . import _dtype as _dtype_mod
        return _dtype_mod.dtype(_core.BuilderBase.dtype.__get__(self))

    def append(self, value) -> None:
        """Append one item."""
        _core.builder_append(self, value)

    def extend(self, values) -> None:
        """Append the items of values: any iterable, converted item by item, or a
        buffer (NumPy array, array.array, memoryview, ...) whose item format is
        this dtype's, appended in C order by one copy. Items before a failing one
        stay appended."""
        try:
            m = memoryview(values)
        except TypeError:
            _core.builder_extend(self, values)
            return
        with m:
            if m.itemsize == self.itemsize and _dtype_of_format(m.format) == self.dtype:
                _core.builder_extend_buffer(self, m)
                return
            if m.ndim != 1:
                raise TypeError(f"memview: Builder({str(self.dtype)!r}).extend: a {m.ndim}-d buffer of format "
                                f"{m.format!r} is not of this dtype; convert it first")
            try:
                _core.builder_extend(self, m)
            except NotImplementedError:
                raise TypeError(f"memview: Builder({str(self.dtype)!r}).extend: cannot read items of format "
                                f"{m.format!r}") from None

    def reserve(self, n) -> None:
        """Make room for n more items."""
        _core.builder_reserve(self, _index(n, "n", "memview: Builder.reserve"))

    def finish(self, shrink_to_fit=True):
        """The items appended as a new 1-D memview.Array (its memory's padding
        zeroed; with shrink_to_fit the capacity is the size rounded up to 64
        bytes). The builder is empty afterwards and can be used again."""
        return _core.builder_finish(self, bool(shrink_to_fit))

    def release(self) -> None:
        """Give the builder's memory back now; the builder cannot be used after."""
        _core.builder_release(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()

    def __repr__(self):
        if self.released:
            return "<released memview.Builder>"
        return f"memview.Builder({str(self.dtype)!r}: {len(self)} items, capacity {self.capacity})"

    __hash__ = None


_core.set_buffer_type(Buffer)
_core.set_builder_type(Builder)
