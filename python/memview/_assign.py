"""The codecs the C engine of host writes calls (pyext/ops_assign.c).

C parses every key and moves every byte of a host array's reads and writes. What
it leaves to Python is the conversion of one non-numeric item to or from a Python
value (a record to a tuple, bytes and str items, long doubles, pointers), and the
writes that touch CUDA memory, which Go serves. C calls these functions with an
item's bytes and the dtype's name only: no key, no view.
"""
from __future__ import annotations

import numbers

from . import _cai, _cdata, _core, _dtype, _dtypes, _formats, _record
from . import cuda as _cuda

#: the Go core's one name of an array's item type, for any ArrayBase
_name_of = _core.ArrayBase.__dict__["dtype"].__get__


def _element(dtype: str):
    """How values nest for dtype: the sequence types that nest in an assigned
    value (lists and tuples, except that a tuple or dict is one element of a
    record dtype, as in NumPy) and the shape of one element that is itself a
    sub-array (() for a scalar or record)."""
    if dtype in _dtypes.STRUCT:
        return (list, tuple), ()
    c = _formats.codec(dtype)
    return c.seq, c.subshape


def _nested_shape(value, seq):
    shape = []
    while isinstance(value, seq):
        shape.append(len(value))
        if not value:
            break
        value = value[0]
    return tuple(shape)


def _flatten(value, shape, depth, out, seq, leaf_seq):
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


def from_nested(value, dtype: str, like):
    """A new array of like's items (a host array of dtype) holding the values of a
    nested list/tuple (a copy). For a sub-array dtype the innermost dimensions of
    value are one element's."""
    seq, sub = _element(dtype)
    shape = _nested_shape(value, seq)
    if sub:
        shape = shape[:max(0, len(shape) - len(sub))]
    flat = []
    _flatten(value, shape, 0, flat, seq, bool(sub))
    arr = _core.empty_as(like, shape)
    try:
        if flat:
            memoryview(arr).cast("B")[:] = b"".join(_dtypes.pack(dtype, v) for v in flat)
    except BaseException:
        arr.release()
        raise
    return arr


# -- the codecs C calls


def sequence(value, dtype: str, like):
    """A list, tuple or dict assigned to items of dtype (not a basic numeric one) of
    the array like: one item's bytes where it is one element (a record's tuple or
    dict), else a new array of like's items holding its values."""
    if not isinstance(value, _element(dtype)[0]):
        return _dtypes.pack(dtype, value)
    return from_nested(value, dtype, like)


def convert(src, dtype: str, like):
    """A new array of like's items (dtype) and src's shape holding src's values,
    read through Python values (items C does not cast: strings, records of another
    layout, long doubles)."""
    shape = src.shape
    if 0 in shape:  # no values: the shape alone, which nested lists lose
        return _core.empty_as(like, shape)
    values = src.tolist()
    if shape == ():
        arr = _core.empty_as(like, ())
        try:
            memoryview(arr).cast("B")[:] = _dtypes.pack(dtype, values)
        except BaseException:
            arr.release()
            raise
        return arr
    return from_nested(values, dtype, like)


def void(value, dtype: str) -> bytes:
    """NumPy's record scalar (np.void) as one item of dtype: its bytes, exactly,
    where it has dtype's layout (read by its dtype: its own buffer format misstates
    some layouts), else its values converted."""
    try:
        same = _dtype.dtype(value.dtype)._go == dtype
    except (TypeError, ValueError, AttributeError):
        same = False
    return value.tobytes() if same else _dtypes.pack(dtype, _plain(value.item()))


def _plain(v):
    """A record scalar's values with its sub-array fields (NumPy arrays) as lists."""
    if isinstance(v, tuple):
        return tuple(_plain(x) for x in v)
    tolist = getattr(v, "tolist", None)
    return tolist() if tolist is not None and getattr(v, "ndim", 0) else v


def device(target, value, fill: bool, stream) -> None:
    """A write with CUDA memory on either side (Go copies between devices):
    target[...] = value, or target.fill(value) where fill is set."""
    dtype = _name_of(target)
    handle = _cuda.stream_handle(stream)
    if fill or isinstance(value, (numbers.Number, str, bytes, _record.record)):
        _core.go_fill(target, _dtypes.pack(dtype, value), handle)
        return
    if isinstance(value, _core.ArrayBase):
        if _name_of(value) == dtype:
            _core.go_copyto(target, value, handle)
            return
        if value.device != "cpu":
            raise TypeError(f"memview: cannot assign a {_name_of(value)} array in {value.device} memory to a "
                            f"{dtype} array (no conversion on the device)")
    elif hasattr(value, "__cuda_array_interface__") and not hasattr(value, "__buffer__"):
        src = _cai.wrap(value, "memview: assignment", _cuda.import_sync())
        if _name_of(src) != dtype:
            typestr = value.__cuda_array_interface__["typestr"]
            src.release()
            raise TypeError(f"memview: cannot assign a {typestr} CUDA array to a {dtype} array "
                            "(no conversion on the device)")
        _core.go_copyto(target, src, handle)
        return
    # a host value: written into a host temporary of the target's shape by the C
    # engine (broadcasting, casts, nested lists), then copied by Go
    tmp = _core.empty(target.shape, dtype, "C")  # a parent's: CUDA needs Go anyway
    try:
        tmp[...] = value
        _core.go_copyto(target, tmp, handle)
    finally:
        tmp.release()


_core.set_codecs(_dtypes.element, _dtypes.pack, sequence, convert, void, _cdata.item_format, device,
                 _record.record)
