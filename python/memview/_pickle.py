"""Pickling memview arrays: the functions a pickle calls to rebuild them.

Protocol 5 sends a host array's data out of band as a PickleBuffer (no copy with
a buffer_callback; rebuilt in place over whatever buffer comes back, read-only
if that buffer is — Ray and shared memory hand back read-only memory). Protocols
2–4 carry the bytes in band and rebuild a Go-owned copy. Device arrays travel as
a host copy and are copied back to the same kind of device when rebuilt.
"""
from __future__ import annotations

import pickle

from . import _core


def reduce(a, protocol: int):
    """The __reduce_ex__ of a memview array."""
    if a.released:
        raise ValueError("memview: cannot pickle a released array")
    if a.device != "cpu":
        host = a.to("cpu")
        return (rebuild_on, (host, a.device))
    src = a if a.c_contiguous or a.f_contiguous else a.copy("C")
    order = "F" if src.f_contiguous and not src.c_contiguous else "C"
    # the PEP 3118 format names the element type exactly, records included
    if protocol >= 5:
        return (rebuild, (pickle.PickleBuffer(src), src.shape, src.format, order))
    return (rebuild_copy, (src.tobytes(order), src.shape, src.format, order))


def rebuild(buf, shape, dtype, order):
    """An array over buf's bytes (protocol 5): zero-copy, read-only when buf is.
    Bytes that are not aligned for dtype are copied into Go-owned memory."""
    try:
        return _core.from_bytes(buf, tuple(shape), dtype, order, -1)
    except ValueError as e:
        if "aligned" not in str(e):
            raise
    with memoryview(buf) as m:
        readonly = m.readonly
    a = rebuild_copy(buf, shape, dtype, order)
    return _core.readonly_view(a) if readonly else a


def rebuild_copy(data, shape, dtype, order):
    """A new Go-owned array holding data's bytes (protocols 2–4)."""
    a = _core.empty(tuple(shape), dtype, order)
    try:
        a.frombytes(data, order)
    except BaseException:
        a.release()
        raise
    return a


def rebuild_on(host, device: str):
    """A pickled device array: its host copy, copied back to device."""
    return host.to(device)
