"""memview.cuda: CUDA devices, streams and memory statistics.

The driver library is loaded at run time; without a driver or a GPU memview still
imports and works on the CPU: is_available() is False, and anything that needs a
device raises CUDAError.

Streams: memview's work on device arrays (copies, fills, ``to``) is enqueued on a
stream — the one passed as ``stream=`` (a memview Stream, a CuPy, Numba or PyTorch
stream, anything with ``__cuda_stream__``, or a CUDA Array Interface stream int),
else the legacy default stream, which every blocking stream (CuPy's, Numba's and
PyTorch's defaults) orders against. Device memory left with pending work reports
that stream in the ``__cuda_array_interface__`` of every view of it, so consumers
can wait for it; work on memory the CPU can reach (pinned, managed) is finished
before the call returns. A stream made elsewhere must stay alive while memory
reports it, as the CUDA Array Interface asks of producers.
"""
from __future__ import annotations

import weakref as _weakref

from . import _core

__all__ = ["CUDAError", "Stream", "is_available", "device_count", "synchronize", "pool_stats",
           "import_sync", "set_import_sync", "LEGACY_STREAM", "PER_THREAD_STREAM"]

#: No CUDA driver or device, or an error the CUDA driver reported (a RuntimeError).
CUDAError = _core.CUDAError

#: Stream handles with a fixed meaning (as in the CUDA Array Interface).
LEGACY_STREAM = 1
PER_THREAD_STREAM = 2

_import_sync = True


def device_count() -> int:
    """Number of CUDA devices the driver sees (0 without a driver)."""
    return _core.cuda_device_count()


def is_available() -> bool:
    """True if a CUDA driver and at least one device are present."""
    return device_count() > 0


def import_sync() -> bool:
    """Whether arrays imported from a producer that names a stream make memview's
    later work wait for that stream (True by default; see set_import_sync)."""
    return _import_sync


def set_import_sync(enabled: bool) -> None:
    """Opt out (False) of, or back into (True), waiting for an imported array's
    stream. When on, importing records an event on the producer's stream and each
    memview operation on the array makes its own stream wait for that event on the
    device — the host never blocks. Turn it off only when you order the work
    yourself."""
    global _import_sync
    if not isinstance(enabled, bool):
        raise TypeError("memview.cuda.set_import_sync: enabled must be a bool")
    _import_sync = enabled


def _ordinal(device) -> int:
    if isinstance(device, bool):
        raise TypeError("memview.cuda: device must be an int or 'cuda[:N]', not bool")
    if isinstance(device, int):
        if device < 0:
            raise ValueError(f"memview.cuda: device ordinal must not be negative: {device}")
        if device >= 1 << 31:
            raise ValueError(f"memview.cuda: device ordinal {device} is out of range")
        return device
    if device == "cuda":
        return 0
    if isinstance(device, str) and device.startswith("cuda:") and device[5:].isdigit():
        return int(device[5:])
    raise ValueError(f"memview.cuda: device must be an ordinal or 'cuda[:N]', not {device!r}")


def _handle(h, what) -> int:
    if not 0 < h < 1 << 64:
        raise ValueError(f"memview: {what} {h} is not a CUDA stream handle (1 legacy default, "
                         "2 per-thread default, or a stream pointer below 2**64)")
    return h


def stream_handle(stream) -> int:
    """The driver handle of stream: 0 for None (memview's default, the legacy
    default stream), else the handle of a memview Stream, of an object with
    ``__cuda_stream__`` (returns ``(version, handle)``), of a CuPy (``.ptr``) or
    PyTorch (``.cuda_stream``) stream, or a CUDA Array Interface stream int (> 0)."""
    if stream is None:
        return 0
    if isinstance(stream, bool):
        raise TypeError("memview: stream must be a stream object or an int, not bool")
    if isinstance(stream, int):
        return _handle(stream, "stream")
    if isinstance(stream, Stream):
        stream._check()
        return stream.handle
    proto = getattr(stream, "__cuda_stream__", None)
    if proto is not None:
        v = proto()
        if not (isinstance(v, tuple) and len(v) == 2 and isinstance(v[1], int) and not isinstance(v[1], bool)):
            raise TypeError(f"memview: __cuda_stream__ must return (version, handle), not {v!r}")
        return _handle(v[1] or LEGACY_STREAM, "__cuda_stream__ handle")
    for attr in ("ptr", "cuda_stream"):
        h = getattr(stream, attr, None)
        if isinstance(h, int) and not isinstance(h, bool):
            return _handle(h or LEGACY_STREAM, f"stream .{attr}")
    raise TypeError(f"memview: {type(stream).__name__!r} is not a CUDA stream")


class Stream:
    """A CUDA stream that memview creates on a device and destroys when closed or
    collected. Pass it as ``stream=`` to memview operations, or its ``handle`` to
    other libraries (``cupy.cuda.ExternalStream(s.handle)``)."""

    __slots__ = ("_handle", "_device", "_finalizer", "__weakref__")

    def __init__(self, device=0, *, non_blocking: bool = False):
        ordinal = _ordinal(device)
        self._handle = _core.cuda_stream_create(ordinal, bool(non_blocking))
        self._device = ordinal
        self._finalizer = _weakref.finalize(self, _core.cuda_stream_destroy, self._handle)

    @property
    def handle(self) -> int:
        """The driver's CUstream handle."""
        return self._handle

    ptr = handle

    @property
    def device(self) -> str:
        """The stream's device, as "cuda:N"."""
        return f"cuda:{self._device}"

    @property
    def closed(self) -> bool:
        """True once close() ran."""
        return not self._finalizer.alive

    def __cuda_stream__(self):
        self._check()  # a closed stream's handle names destroyed driver state
        return (0, self._handle)

    def synchronize(self) -> None:
        """Block until all work on the stream is done."""
        self._check()
        _core.cuda_stream_sync(self._device, self._handle, False)

    def query(self) -> bool:
        """True if all work on the stream is done (does not block)."""
        self._check()
        return _core.cuda_stream_sync(self._device, self._handle, True)

    def close(self) -> None:
        """Destroy the stream (enqueued work still completes; memory with work still
        pending on it reports the legacy default stream from then on, which waits
        for that work). Closing twice is harmless."""
        self._finalizer()

    def _check(self):
        if self.closed:
            raise ValueError("memview.cuda.Stream: the stream is closed")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        state = "closed" if self.closed else f"handle={self._handle:#x}"
        return f"<memview.cuda.Stream {self.device} {state}>"


def synchronize(stream=None, device=0) -> None:
    """Block the host until the work on stream (default: the legacy default stream
    of device) is done."""
    h = stream_handle(stream) or LEGACY_STREAM
    if isinstance(stream, Stream):
        stream.synchronize()
        return
    _core.cuda_stream_sync(_ordinal(device), h, False)


def pool_stats() -> dict:
    """Statistics of memview's CUDA memory pools (device, pinned and managed),
    summed: bytes_allocated, num_live, total_bytes_allocated, num_allocations."""
    b, live, total, count = _core.cuda_pool_stats()
    return {"bytes_allocated": b, "num_live": live, "total_bytes_allocated": total,
            "num_allocations": count}
