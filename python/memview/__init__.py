"""memview: zero-copy memory views between Go and Python.

Go owns the memory of the arrays made here (empty, zeros, full, arange), and NumPy,
memoryview and every other buffer-protocol consumer use it in place. from_buffer
goes the other way: any PEP 3118 exporter (a NumPy array, bytearray, array.array,
mmap, memoryview) becomes a memview array over the same memory, which Go code can
work on in place. Go packages built into the same extension (build.py --with DIR)
import by their own names: asarray views the Go slices, arrays and exporters they
return, and their functions take NumPy and memview arrays where Go takes memory.

    >>> import memview as mv, numpy as np
    >>> a = mv.zeros((2, 3))
    >>> n = np.asarray(a)          # no copy: NumPy writes into Go memory
    >>> n[1, 2] = 7
    >>> a[1, 2]
    7.0
"""
from __future__ import annotations

import atexit as _atexit
import math as _math
import numbers as _numbers
import os as _os
import struct as _struct
import sys as _sys
import warnings as _warnings

_HERE = _os.path.dirname(_os.path.abspath(__file__))


def _one_go_runtime():
    """Refuse to load a second memview extension: each runs its own Go runtime,
    and a process can hold only one (golang/go#18976)."""
    core = _sys.modules.get("memview._core")
    if core is not None and getattr(core, "_extension_dir", None) != _HERE:
        where = getattr(core, "_extension_dir", "an unknown place")
        raise ImportError(
            f"memview: another memview extension (from {where}) is already loaded in this process; "
            f"this one ({_HERE}) would start a second Go runtime, and a process can run only one "
            "(golang/go#18976). Build your Go packages together with memview into one extension: "
            "python3 build.py wheel --with DIR")


def _one_distribution():
    """Warn where two distributions installed this package: each wheel that holds
    memview (memview's own, or a Go developer's built --with) writes a marker of its
    name here, and pip, which ignores Provides-Dist, lets one overwrite the other's
    files and leaves both markers."""
    try:
        names = sorted(f[len("_dist-"):-len(".txt")] for f in _os.listdir(_HERE)
                       if f.startswith("_dist-") and f.endswith(".txt"))
    except OSError:
        return
    if len(names) > 1:
        _warnings.warn(
            f"memview in {_HERE} was installed by {len(names)} distributions, {' and '.join(names)}, "
            "which overwrite each other's files (pip does not read Provides-Dist): uninstall all but one "
            "and reinstall it (a Go developer's distribution holds memview itself)",
            RuntimeWarning, stacklevel=2)


_one_go_runtime()
_one_distribution()

from ._ext import pyext as _pyext  # noqa: E402  (loads the extension: memview's Go runtime)

try:
    _pyext.Install()  # creates memview._core (C array type + Go bridge) once
except RuntimeError as _e:
    raise ImportError(str(_e)) from None

from . import _cai, _cdata, _core, _dtype, _dtypes, _gobind, cuda  # noqa: E402
from ._dtype import dtype  # noqa: E402
from ._array import Array  # noqa: E402
from ._buffers import Buffer, Builder  # noqa: E402
from ._gpumemoryview import gpumemoryview  # noqa: E402
from ._record import record  # noqa: E402
from ._pools import (CheckedPool, LoggingPool, Pool, ProxyPool, default_pool,  # noqa: E402
                     set_default_pool, using_pool)
from ._pools import pool_id as _pool_id  # noqa: E402

_core._extension_dir = _HERE

# From exit on, foreign threads that free a DLPack tensor or an Arrow array no
# longer wait for the GIL (see pyext/proto_common.c).
_atexit.register(_core._interpreter_exiting)

__all__ = [
    "Array", "Buffer", "Builder", "Pool", "ProxyPool", "LoggingPool", "CheckedPool",
    "set_default_pool", "using_pool", "empty", "zeros", "full", "arange", "from_buffer",
    "from_cuda_array_interface", "from_go", "item_desc", "from_dlpack", "from_arrow", "asarray",
    "gpumemoryview", "cuda", "go_packages", "default_pool", "live_handles", "DTYPES", "dtype", "record", "__version__",
    "register_dask", "copyto", "ComplexWarning",
]
__version__ = "0.1.0"

#: The element types memview supports, by NumPy name.
DTYPES = tuple(_dtypes.STRUCT)


def _shape(shape) -> tuple:
    if isinstance(shape, (list, tuple)):
        dims = tuple(shape)
    else:
        dims = (shape,)
    out = []
    for d in dims:
        if isinstance(d, bool) or not hasattr(d, "__index__"):
            raise TypeError(f"memview: shape entries must be integers, not {type(d).__name__!r}")
        out.append(d.__index__())
    return tuple(out)


def _dtype_name(dtype) -> str:
    """What the Go core reads for any dtype= argument: a memview.dtype, a NumPy
    dtype or scalar type, a Python type, a name, typestr or PEP 3118 format."""
    return _dtype.spec(dtype)


def _check_device(device):
    if not isinstance(device, str):
        raise TypeError(f"memview: device must be a str such as 'cpu' or 'cuda:0', not {device!r}")


def _empty_py(shape, dtype="float64", *, order="C", device="cpu", pool=None) -> Array:
    """A new array in Go-owned memory (never moves, zero-filled) on device: "cpu"
    (64-byte aligned host memory), "cuda" / "cuda:N" (device memory), "cuda_host"
    (pinned host memory) or "cuda_managed[:N]" (managed memory). pool (a
    memview.Pool on that device) chooses where the memory comes from; the default
    is the default pool (or the device's)."""
    if device != "cpu" or pool is not None:
        _check_device(device)
        if type(shape) is not tuple:
            shape = (shape,) if type(shape) is int else _shape(shape)
        return _core.empty(shape, dtype if type(dtype) is str else _dtype_name(dtype), order,
                           None if device == "cpu" else device, _pool_id(pool, "memview.empty"))
    if type(shape) is int:
        shape = (shape,)
    elif type(shape) is not tuple:
        shape = _shape(shape)
    if type(dtype) is not str:
        dtype = _dtype_name(dtype)
    # _core.empty checks the shape entries, the dtype name and the order itself.
    return _core.empty(shape, dtype, order)


def _zeros_py(shape, dtype="float64", *, order="C", device="cpu", pool=None) -> Array:
    """A new zero-filled array in Go-owned memory."""
    return _empty_py(shape, dtype, order=order, device=device, pool=pool)


# mv.empty and mv.zeros are C functions (pyext/ops_create.c): small host arrays
# come from the creation cache without a Go call; every other call, and every
# bad argument, goes to the Python functions above.
empty = _core.empty_fast
zeros = _core.zeros_fast
_core.set_create_fallbacks(_empty_py, _zeros_py, Array._copy_slow, _dtype.spec)


def _default_dtype(value) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, complex):
        return "complex128"
    return "float64"


def full(shape, value, dtype=None, *, order="C", device="cpu", stream=None, pool=None) -> Array:
    """A new array in Go-owned memory (from pool) with every element set to value
    (on a CUDA device, by a memset enqueued on stream)."""
    a = empty(shape, _default_dtype(value) if dtype is None else dtype, order=order, device=device,
              pool=pool)
    try:
        a.fill(value, stream=stream)
    except BaseException:
        a.release()
        raise
    return a


copyto = _core.copyto
"""copyto(dst, src, *, casting="same_kind"): copy src's values into dst, in place,
broadcasting src to dst's shape, as numpy.copyto does. src is a memview array, any
buffer exporter (a NumPy array, bytes, array.array), nested lists or a scalar.
casting ('no', 'equiv', 'safe', 'same_kind' or 'unsafe') is NumPy's rule for which
casts of array data are allowed (TypeError otherwise); the casts themselves are
NumPy's, warnings included. A src that overlaps dst is read as if copied first."""


def arange(start, stop=None, step=1, *, dtype=None, device="cpu", stream=None, pool=None) -> Array:
    """Evenly spaced values in [start, stop) as a new 1-D array in Go-owned memory
    from pool (made on the host, then copied to device)."""
    if device != "cpu":
        _check_device(device)
        host = arange(start, stop, step, dtype=dtype)
        try:
            return host.to(device, stream=stream, pool=pool)
        finally:
            host.release()
    cuda.stream_handle(stream)  # checked on the host too, where no stream is used
    if stop is None:
        start, stop = 0, start
    for v in (start, stop, step):
        if isinstance(v, bool) or not isinstance(v, _numbers.Real):
            raise TypeError(f"memview: arange needs real numbers, not {v!r}")
    if step == 0:
        raise ValueError("memview: arange step must not be zero")
    ints = all(isinstance(v, _numbers.Integral) for v in (start, stop, step))
    if dtype is None:
        dtype = "int64" if ints else "float64"
    dtype = _dtype_name(dtype)
    typestr = _core.dtype_info(dtype)[2]
    if typestr[1] not in "biufc":
        raise TypeError(f"memview: arange needs a numeric dtype, not {dtype!r}")
    if ints:
        n = max(0, -(-(stop - start) // step))
    else:
        length = (stop - start) / step
        if _math.isnan(length):
            raise ValueError("memview: arange: cannot compute length")
        if _math.isinf(length):
            raise ValueError("memview: arange: Maximum allowed size exceeded")
        n = max(0, _math.ceil(length))
    a = empty((n,), dtype, device=device, pool=pool)
    try:
        if n:
            values = (start + i * step for i in range(n))
            if dtype in _dtypes.STRUCT and not dtype.startswith("complex"):
                code = f"={n}{_dtypes.STRUCT[dtype]}"
                data = _struct.pack(code, *(_dtypes.convert(dtype, v) for v in values))
            else:
                data = b"".join(_dtypes.pack(dtype, v) for v in values)
            memoryview(a).cast("B")[:] = data
    except BaseException:
        a.release()
        raise
    return a


def _writable_flag(writable, who: str) -> int:
    """-1 (as the source), 0 (read-only) or 1 (writable required) for C."""
    if writable is None:
        return -1
    if writable is True or writable is False:
        return int(writable)
    raise TypeError(f"{who}: writable must be None, True or False")


def from_buffer(obj, *, writable=None, copy=False) -> Array:
    """An array over obj's memory, without copying; obj is kept alive while it is used.

    obj is any PEP 3118 exporter. writable=None takes the source's own read-only
    flag, False makes the array read-only, True requires a writable source
    (BufferError otherwise). The array exports the exporter's format string as it
    is written, and so do its views. Where that string disagrees with the
    exporter's item size (NumPy's "T{xxh:x:}" for 8-byte items, a ctypes
    structure's format without its padding), the items are laid out as the
    exporter's item size says — a ctypes object's from its type (the field offsets
    ctypes gives a structure, padding included) — and exported in a corrected
    spelling NumPy reads with that item size, those names and offsets; bitfields,
    unions and pointers, which no format describes, are refused (TypeError).

    Only the span the view reaches is kept. Layouts memview cannot view exactly —
    strides that are not multiples of the item size, data misaligned for the
    dtype, suboffsets (PIL-style arrays) — are refused (ValueError, BufferError)
    unless a copy is asked for: copy=None copies only then, copy=True always
    copies (into new Go-owned memory, C order, writable unless writable=False).
    The default, False, never copies.
    """
    flag = _writable_flag(writable, "memview.from_buffer")
    fmt = _cdata.item_format(obj)  # None but for ctypes objects
    if copy is False:
        return _core.from_buffer(obj, flag, False, fmt)
    if copy is None:
        try:
            return _core.from_buffer(obj, flag, False, fmt)
        except (ValueError, BufferError):
            pass  # a layout memview cannot view: copy it (TypeError if obj has no buffer)
    elif copy is not True:
        raise TypeError("memview.from_buffer: copy must be False, None or True")
    return _copy_of(obj, writable)


def _copy_of(obj, writable) -> Array:
    """A Go-owned C-ordered copy of any exporter's elements (memoryview reads
    strided and suboffset layouts)."""
    with memoryview(obj) as m:
        fmt = _cdata.item_format(obj) or m.format or "B"
        a = _core.empty(tuple(m.shape), _core.format_info(fmt)[0], "C")
        try:
            if a.itemsize != m.itemsize:
                raise ValueError(f"memview.from_buffer: format {fmt!r} has item size "
                                 f"{a.itemsize} but the exporter says {m.itemsize}")
            if m.nbytes:
                with memoryview(a) as dst:
                    dst.cast("B")[:] = m.tobytes()
        except BaseException:
            a.release()
            raise
    return a if writable is not False else _core.readonly_view(a)


def item_desc(dtype) -> dict:
    """The item descriptor of a PEP 3118 format, a dtype or an array's dtype, as the
    Go core parses it (after Ruby's MemoryView item_desc): {"size": itemsize,
    "fields": [...]}, each field with its name, format code, byte order ("native",
    "little", "big"), whether sizes are native ("@") or standard, offset, size of one
    element, repeat count, sub-array shape and, for a nested record, its own
    descriptor under "record". A string is read as a format first, as struct reads
    it ("<l" is 4 bytes, "p" a Pascal string), and as a dtype name otherwise.
    """
    if isinstance(dtype, _core.ArrayBase):
        dtype = dtype.format
    elif not isinstance(dtype, str):
        if dtype is None:
            raise TypeError("memview: data type None not understood")
        dtype = _dtype_name(dtype)
    import json
    return json.loads(_core.dtype_desc(dtype))


def from_go(obj, *, writable=None) -> Array:
    """An array over the memory of a Go value, without a copy: obj is what gopy
    hands Python for a Go slice of numbers or bools, a *memview.Array, or a Go
    value implementing memview.Exporter, from a Go package built together with
    memview (build.py --with), or the memview array a bound function returns
    for a Go slice (a view of it).

    A slice's backing array stays pinned, and valid, while the array or any
    view or export of it lives, whatever happens to obj and to Go's own
    references. An Exporter's ReleaseView runs when this array, its views and
    its buffer exports are all gone. writable=None takes the Go side's own
    read-only flag, False gives a read-only array, True requires writable
    memory (BufferError otherwise)."""
    if isinstance(obj, Array):
        return from_buffer(obj, writable=writable)
    if not isinstance(obj, _gobind.GoClass):
        raise TypeError(f"memview.from_go: a Go value bound by gopy is required, not {type(obj).__name__!r}")
    return _gobind.from_go(obj, _writable_flag(writable, "memview.from_go"))


def from_cuda_array_interface(obj, *, sync=None) -> Array:
    """An array over the CUDA memory obj describes with __cuda_array_interface__
    (CuPy, Numba, PyTorch arrays, ...), without copying or touching it.

    obj is kept alive while the array or any view of it lives; its read-only flag
    and its stream are kept (and passed on by the array's own interface). Masks,
    unknown versions and stream 0 are refused. When the producer names a stream
    and sync is true (None: memview.cuda.import_sync(), True unless turned off),
    an event is recorded on that stream now and memview's later work on the array
    waits for it on the device, without blocking the host.
    """
    who = "memview.from_cuda_array_interface"
    if sync is None:
        sync = cuda.import_sync()
    elif not isinstance(sync, bool):
        raise TypeError(f"{who}: sync must be None, True or False")
    return _cai.wrap(obj, who, sync)


#: DLPack both ways (pyext/proto_dlpack_*.c): see its docstring.
from_dlpack = _core.from_dlpack


def from_arrow(obj) -> Array:
    """A read-only array over the values of an Arrow array, without a copy: any
    object with __arrow_c_array__ or __arrow_c_device_array__ (pyarrow,
    nanoarrow, polars, ...). Primitive integer and float arrays give 1-D arrays;
    fixed-size lists give 2-D, arrow.fixed_shape_tensor N-d. Arrays with nulls,
    bit-packed booleans and other types are refused. The producer's release runs
    once, when the array and every view of it are gone."""
    return _core.from_arrow(obj)


def asarray(obj) -> Array:
    """obj itself if it is a memview array, else a zero-copy array over its memory:
    from_go for a Go value bound by gopy, the CUDA Array Interface if obj has
    one, else the buffer protocol, else DLPack, else the Arrow C data interface.
    Never a copy."""
    if isinstance(obj, Array):
        return obj
    if isinstance(obj, _gobind.GoClass):
        return _core.from_gopy(obj.handle, -1)
    if hasattr(obj, "__cuda_array_interface__"):
        return from_cuda_array_interface(obj)
    try:
        memoryview(obj).release()
    except TypeError:
        if hasattr(obj, "__dlpack__"):
            return from_dlpack(obj)
        if hasattr(obj, "__arrow_c_array__") or hasattr(obj, "__arrow_c_device_array__"):
            return from_arrow(obj)
    return from_buffer(obj)


def go_packages() -> dict:
    """The Go packages built into this extension together with memview
    (build.py --with DIR[=NAME]), by import name: {"path": import path,
    "bound": the exported functions and methods bound, "fast": those on the
    generated fast path, "functions": how many there are, "left_out": {name:
    reason}}, as NAME/_memview_bindings.json has it."""
    return _gobind.packages()


def live_handles() -> int:
    """Number of array objects whose Go handle is alive (0 when every array is gone)."""
    return _pyext.LiveHandles()


def register_dask() -> None:
    """Register memview's Dask "cuda" serializers for device arrays (done at import
    when distributed is already loaded). Host arrays need none: pickle protocol 5
    carries them out of band."""
    from . import _dask
    _dask.register()


ComplexWarning: type[RuntimeWarning]
"""The warning a cast of complex to real numbers gives (it discards the imaginary
part), as NumPy warns: NumPy's numpy.exceptions.ComplexWarning where NumPy can be
imported (one warning filter serves both), else memview's own RuntimeWarning
subclass. Resolved on first use, so that importing memview does not import NumPy."""


def __getattr__(name):
    # memview.ComplexWarning, above: the class is chosen on first use
    if name == "ComplexWarning":
        return _core.complex_warning()
    raise AttributeError(f"module 'memview' has no attribute {name!r}")


if "distributed" in _sys.modules:
    register_dask()

_warning = _core.pool_info()[1]
if _warning:
    _warnings.warn(_warning, RuntimeWarning, stacklevel=2)

_gobind.check_clashes()  # a bound Go package's import name another distribution provides
