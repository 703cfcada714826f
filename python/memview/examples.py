"""Examples of Go types lending memory to Python through memview.Exporter.

RGBImage is a Go type (pyext/example_image.go) that owns its pixels and
implements memview's Exporter interface; Python borrows them with
memview.from_exporter, NumPy uses them in place, and the image's own Go methods
(invert, set_pixel) work on the same bytes.
"""
from __future__ import annotations

import weakref as _weakref

from . import _core

__all__ = ["RGBImage"]


class RGBImage:
    """A height x width x 3 uint8 image owned by Go."""

    __slots__ = ("_id", "width", "height", "_finalizer", "__weakref__")

    def __init__(self, width: int, height: int):
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
        """Go sets one pixel."""
        r, g, b = rgb
        _core.example_image_call(self._id, 1, x, y, r, g, b)

    def close(self) -> None:
        """Stop lending; the pixels are freed when the last borrowed view goes."""
        self._finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
