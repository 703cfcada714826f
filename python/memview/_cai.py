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


def _ints(value, what, who, allow_negative):
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{who}: {what} must be a tuple of ints, not {type(value).__name__!r}")
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
        out.append(v)
    return tuple(out)


def parse(cai: dict, who: str) -> dict:
    """Validate an interface dict; return its fields normalised (stream 0 for none)."""
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
    data = cai["data"]
    if not (isinstance(data, tuple) and len(data) == 2):
        raise TypeError(f"{who}: data must be a (pointer, readonly) tuple, not {data!r}")
    ptr, readonly = data
    if isinstance(ptr, bool) or not isinstance(ptr, int) or ptr < 0:
        raise TypeError(f"{who}: the data pointer must be a non-negative int, not {ptr!r}")
    if not isinstance(readonly, bool):
        raise TypeError(f"{who}: the readonly flag must be a bool, not {readonly!r}")
    strides = cai.get("strides")
    if strides is not None:
        strides = _ints(strides, "strides", who, allow_negative=True)
        if len(strides) != len(shape):
            raise ValueError(f"{who}: {len(strides)} strides for {len(shape)} dimensions")
    if cai.get("mask") is not None:
        raise ValueError(f"{who}: masked CUDA arrays (a 'mask' entry) are not supported")
    stream = cai.get("stream")
    if stream is None:
        stream = 0
    elif isinstance(stream, bool) or not isinstance(stream, int):
        raise TypeError(f"{who}: stream must be None or an int, not {stream!r}")
    elif stream == 0:
        raise ValueError(f"{who}: stream 0 is disallowed by the CUDA Array Interface "
                         "(use 1 for the legacy default stream, 2 for per-thread)")
    return {"shape": shape, "typestr": typestr, "ptr": ptr, "readonly": readonly,
            "strides": strides, "stream": stream, "version": version}


def wrap(obj, who: str, sync: bool):
    """A memview array over obj's CUDA memory (see memview.from_cuda_array_interface)."""
    f = parse(interface_of(obj, who), who)
    return _core.from_cai(obj, f["ptr"], f["shape"], f["strides"], f["typestr"], f["readonly"],
                          f["stream"], sync)
