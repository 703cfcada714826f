"""memview.gpumemoryview: the cuDF-style byte view of any CUDA Array Interface object."""
from __future__ import annotations

import math

from . import _cai


class gpumemoryview:  # noqa: N801 - named after memoryview and cuDF's class
    """A minimal, zero-copy byte view of device memory described by a CUDA Array
    Interface: ``ptr``, ``nbytes`` (``size``, for the Span protocol), the source
    ``obj`` and its interface dict ``cai``. ``byte_slice`` gives sub-views that keep
    their parent alive. The read-only flag and the stream of the source are kept
    and passed on; the view itself is unhashable and weak-referenceable.
    """

    __slots__ = ("obj", "cai", "ptr", "nbytes", "__weakref__")

    def __init__(self, obj):
        try:
            cai = obj.__cuda_array_interface__
        except AttributeError:
            raise ValueError("gpumemoryview must be constructed from an object supporting the "
                             "CUDA array interface") from None
        if not isinstance(cai, dict):
            raise TypeError("gpumemoryview: __cuda_array_interface__ must be a dict")
        f = _cai.parse(cai, "memview.gpumemoryview")
        itemsize = f["itemsize"]
        contiguous = _c_strides(f["shape"], itemsize)
        if f["strides"] is not None and tuple(f["strides"]) != contiguous and math.prod(f["shape"]) > 1:
            raise ValueError("memview.gpumemoryview needs C-contiguous memory; "
                             f"strides {f['strides']} for shape {f['shape']} are not")
        self.obj = obj
        self.cai = cai
        self.ptr = f["ptr"]
        self.nbytes = math.prod(f["shape"]) * itemsize

    @property
    def size(self) -> int:
        """Bytes viewed (the Span protocol's name for nbytes)."""
        return self.nbytes

    @property
    def readonly(self) -> bool:
        """True if the source is read-only (passed on to slices and consumers)."""
        return self.cai["data"][1]

    @property
    def __cuda_array_interface__(self) -> dict:
        return self.cai

    def __len__(self) -> int:
        shape = self.cai["shape"]
        if not shape:
            raise TypeError("len() of a 0-d gpumemoryview")
        return shape[0]

    def byte_slice(self, s: slice) -> gpumemoryview:
        """Bytes [start, stop) as a new view that keeps this one alive; step must be 1,
        bounds are clipped as for slices, and empty ranges give zero-length views."""
        if not isinstance(s, slice):
            raise TypeError(f"byte_slice requires a slice, not {type(s).__name__}")
        start, stop, step = s.indices(self.nbytes)
        if step != 1:
            raise ValueError("byte_slice only supports step=1 slices")
        length = max(0, stop - start)
        ptr = self.ptr + start if length else self.ptr
        v = gpumemoryview.__new__(gpumemoryview)
        v.ptr = ptr
        v.nbytes = length
        v.obj = self
        v.cai = {"shape": (length,), "typestr": "|u1", "descr": [("", "|u1")],
                 "data": (ptr if length else 0, self.readonly), "strides": None,
                 "version": 3, "stream": self.cai.get("stream")}
        return v

    __hash__ = None

    def __repr__(self) -> str:
        return (f"memview.gpumemoryview(ptr={self.ptr:#x}, nbytes={self.nbytes}, "
                f"readonly={self.readonly}, obj={type(self.obj).__name__})")


def _c_strides(shape, itemsize):
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))
