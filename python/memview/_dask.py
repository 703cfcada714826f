"""Dask distributed serializers for memview arrays.

Host arrays need nothing: Dask's "pickle" family uses protocol 5 with a
buffer_callback, so their elements travel as a frame of their own, without a copy.
Arrays in CUDA device memory get a "cuda" family serializer (as CuPy registers one):
the frame is the device memory itself (a gpumemoryview, which exposes the CUDA
Array Interface), so transports that move device memory (UCX) never stage it
through the host; the header carries shape, typestr and strides.
"""
from __future__ import annotations


def register() -> None:
    """Register memview's CUDA serializers with distributed (idempotent). memview
    calls it at import when distributed is already loaded; call it yourself if you
    import distributed after memview."""
    from distributed.protocol.cuda import cuda_deserialize, cuda_serialize

    from ._array import Array
    cuda_serialize.register(Array)(_serialize)
    cuda_deserialize.register(Array)(_deserialize)


def _serialize(x):
    from . import gpumemoryview
    if not x.device.startswith(("cuda:", "cuda_managed")):
        raise TypeError(f"memview: the cuda serializer takes device arrays, not {x.device} ones")
    if not (x.c_contiguous or x.f_contiguous):
        x = x.copy("C")
    header = {"shape": x.shape, "typestr": x.typestr, "format": x.format, "strides": x.strides,
              "device": x.device}
    return header, [gpumemoryview(x)]


class _Frame:
    """A received frame seen as the array it carries (CUDA Array Interface)."""

    def __init__(self, frame, header):
        self.frame = frame
        cai = frame.__cuda_array_interface__
        self.__cuda_array_interface__ = {"shape": tuple(header["shape"]), "typestr": header["typestr"],
                                         "strides": tuple(header["strides"]), "data": (cai["data"][0], False),
                                         "version": 3, "stream": cai.get("stream")}


def _deserialize(header, frames):
    from . import from_cuda_array_interface
    (frame,) = frames
    return from_cuda_array_interface(_Frame(frame, header))
