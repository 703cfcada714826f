"""Examples of Go types lending memory to Python through memview.Exporter.

RGBImage is a Go type (pyext/example_image.go) that owns its pixels and
implements memview's Exporter interface; Python borrows them with
memview.from_exporter, NumPy uses them in place, and the image's own Go methods
(invert, set_pixel) work on the same bytes.
"""
from __future__ import annotations

import operator as _operator
import weakref as _weakref

from . import _core

__all__ = ["RGBImage"]


def _channel(v) -> int:
    if isinstance(v, bool):
        raise TypeError("memview.examples.RGBImage: a channel value must be an int, not bool")
    v = _operator.index(v)
    if not 0 <= v <= 255:
        raise OverflowError(f"memview.examples.RGBImage: Python integer {v} out of bounds for uint8")
    return v


class RGBImage:
    """A height x width x 3 uint8 image owned by Go."""

    __slots__ = ("_id", "width", "height", "_finalizer", "__weakref__")

    def __init__(self, width: int, height: int):
        width, height = _operator.index(width), _operator.index(height)
        if not (-(1 << 63) <= width < 1 << 63 and -(1 << 63) <= height < 1 << 63):
            raise ValueError(f"memview.examples.RGBImage: size {width}x{height} is too big")
        self._id = _core.example_image(width, height)
        self.width, self.height = width, height
        self._finalizer = _weakref.finalize(self, _core.example_image_call, self._id, 2)

    @property
    def exporter_id(self) -> int:
        """The id memview.from_exporter takes."""
        return self._id

    def pixels(self, *, writable: bool = True):
        """The pixels as a memview array of shape (height, width, 3), without a copy."""
        from . import from_exporter
        return from_exporter(self._id, writable=writable)

    def invert(self) -> None:
        """Go inverts every channel in place (255 - v)."""
        _core.example_image_call(self._id, 0)

    def set_pixel(self, x: int, y: int, rgb) -> None:
        """Go sets one pixel to rgb, three ints in [0, 255] (OverflowError
        outside, as NumPy's uint8 assignment; nothing is written)."""
        r, g, b = (_channel(v) for v in rgb)
        x, y = _operator.index(x), _operator.index(y)
        for v, n, axis in ((x, self.width, 1), (y, self.height, 0)):
            if not 0 <= v < n:
                raise IndexError(f"memview.examples.RGBImage: index {v} is out of bounds for axis {axis} "
                                 f"with size {n}")
        _core.example_image_call(self._id, 1, x, y, r, g, b)

    def close(self) -> None:
        """Stop lending; the pixels are freed when the last borrowed view goes."""
        self._finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
