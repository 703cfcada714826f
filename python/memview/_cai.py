"""Reading the CUDA Array Interface (version 3, with the keys of versions 0–2).

Written from the interface's specification: shape, typestr, data = (ptr,
readonly), optional strides (None means C-contiguous), descr, mask, version and
stream. memview refuses what it cannot honour exactly (masks, unknown versions,
stream 0) with a clear error.
"""
from __future__ import annotations

import operator

from . import _core

SUPPORTED_VERSIONS = (0, 1, 2, 3)


def interface_of(obj, who: str) -> dict:
    """obj.__cuda_array_interface__, or TypeError if obj has none."""
    try:
        cai = obj.__cuda_array_interface__
    except AttributeError:
        raise TypeError(f"{who}: {type(obj).__name__!r} object has no __cuda_array_interface__") from None
    if not isinstance(cai, dict):
        raise TypeError(f"{who}: __cuda_array_interface__ must be a dict, not {type(cai).__name__!r}")
    return cai


#: Addresses are unsigned machine words: memory lies in [0, 2**64).
ADDRESS_SPACE = 1 << 64
_INT64 = 1 << 63


def _ints(value, what, who, allow_negative):
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{who}: {what} must be a tuple of ints, not {type(value).__name__!r}")
    if len(value) > _core.MAXDIM:
        raise ValueError(f"{who}: {what} has {len(value)} dimensions; at most {_core.MAXDIM} are allowed")
    out = []
    for v in value:
        if isinstance(v, bool):
            raise TypeError(f"{who}: {what} entries must be ints, not bool")
        try:
            v = operator.index(v)
        except TypeError:
            raise TypeError(f"{who}: {what} entries must be ints, not {type(v).__name__!r}") from None
        if v < 0 and not allow_negative:
            raise ValueError(f"{who}: {what} entries must not be negative: {tuple(value)}")
        if not -_INT64 <= v < _INT64:
            raise ValueError(f"{who}: {what} entry {v} does not fit in 64 bits: {tuple(value)}")
        out.append(v)
    return tuple(out)


def stream_int(stream, who: str) -> int:
    """A CUDA Array Interface stream as memview keeps it: 0 for None, else the
    int itself, which must be a stream (1 legacy default, 2 per-thread default,
    or a stream handle below 2**64). 0 and negative ints are refused."""
    if stream is None:
        return 0
    if isinstance(stream, bool) or not isinstance(stream, int):
        raise TypeError(f"{who}: stream must be None or an int, not {stream!r}")
    if stream == 0:
        raise ValueError(f"{who}: stream 0 is disallowed by the CUDA Array Interface "
                         "(use 1 for the legacy default stream, 2 for per-thread)")
    if not 0 < stream < ADDRESS_SPACE:
        raise ValueError(f"{who}: stream {stream} is not a CUDA stream (1 legacy default, "
                         "2 per-thread default, or a stream handle in [3, 2**64))")
    return stream


def span(shape, strides, itemsize):
    """The bytes [lo, hi) a layout reaches relative to element 0; (0, 0) when
    it has no elements."""
    if 0 in shape:
        return 0, 0
    lo, hi = 0, itemsize
    for n, st in zip(shape, strides):
        if st < 0:
            lo += (n - 1) * st
        else:
            hi += (n - 1) * st
    return lo, hi


def parse(cai: dict, who: str) -> dict:
    """Validate an interface dict — the one check every importer of CUDA
    memory uses (from_cuda_array_interface, gpumemoryview, assignment from a
    CUDA array) — and return its fields normalised (stream 0 for none), with
    the item size and the bytes the elements span. Refused: missing keys,
    unknown versions, masks, more than MAXDIM dimensions, a pointer outside
    [0, 2**64), elements that would reach below address 0 or past 2**64, a
    null pointer for a non-empty array, and streams the interface forbids."""
    for key in ("shape", "typestr", "data"):
        if key not in cai:
            raise ValueError(f"{who}: __cuda_array_interface__ lacks the required key {key!r}")
    version = cai.get("version", 0)
    if isinstance(version, bool) or version not in SUPPORTED_VERSIONS:
        raise ValueError(f"{who}: unsupported __cuda_array_interface__ version {version!r} "
                         f"(supported: {', '.join(map(str, SUPPORTED_VERSIONS))})")
    shape = _ints(cai["shape"], "shape", who, allow_negative=False)
    typestr = cai["typestr"]
    if not isinstance(typestr, str):
        raise TypeError(f"{who}: typestr must be a str, not {type(typestr).__name__!r}")
    itemsize = _core.dtype_info(typestr)[1]
    data = cai["data"]
    if not (isinstance(data, tuple) and len(data) == 2):
        raise TypeError(f"{who}: data must be a (pointer, readonly) tuple, not {data!r}")
    ptr, readonly = data
    if isinstance(ptr, bool) or not isinstance(ptr, int):
        raise TypeError(f"{who}: the data pointer must be an int, not {ptr!r}")
    if not 0 <= ptr < ADDRESS_SPACE:
        raise ValueError(f"{who}: data pointer {ptr:#x} is outside the address space [0, 2**64)")
    if not isinstance(readonly, bool):
        raise TypeError(f"{who}: the readonly flag must be a bool, not {readonly!r}")
    strides = cai.get("strides")
    if strides is not None:
        strides = _ints(strides, "strides", who, allow_negative=True)
        if len(strides) != len(shape):
            raise ValueError(f"{who}: {len(strides)} strides for {len(shape)} dimensions")
    if cai.get("mask") is not None:
        raise ValueError(f"{who}: masked CUDA arrays (a 'mask' entry) are not supported")
    stream = stream_int(cai.get("stream"), who)
    c_strides = []
    step = itemsize
    for n in reversed(shape):
        c_strides.append(step)
        step *= n
    lo, hi = span(shape, strides if strides is not None else tuple(reversed(c_strides)), itemsize)
    if hi - lo >= _INT64:
        raise ValueError(f"{who}: shape {shape} of {typestr} spans {hi - lo} bytes, more than fit in 64 bits")
    if hi > lo:
        if ptr == 0:
            raise ValueError(f"{who}: null data pointer for a non-empty array of shape {shape}")
        if ptr + lo < 0:
            raise ValueError(f"{who}: the elements at {ptr:#x} with strides {strides} reach {-lo} bytes "
                             "below it, past address 0")
        if ptr + hi > ADDRESS_SPACE:
            raise ValueError(f"{who}: {hi} bytes at {ptr:#x} (shape {shape}, strides {strides}) reach past "
                             "the end of the address space (2**64)")
    return {"shape": shape, "typestr": typestr, "ptr": ptr, "readonly": readonly,
            "strides": strides, "stream": stream, "version": version, "itemsize": itemsize,
            "nbytes": hi - lo}


def wrap(obj, who: str, sync: bool):
    """A memview array over obj's CUDA memory (see memview.from_cuda_array_interface)."""
    f = parse(interface_of(obj, who), who)
    return _core.from_cai(obj, f["ptr"], f["shape"], f["strides"], f["typestr"], f["readonly"],
                          f["stream"], sync)
