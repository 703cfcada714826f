"""The stream API and the import-sync setting, as far as they can be checked
without a GPU: argument checking, and a clear CUDAError where a driver is needed.
The same calls run for real in test_gpu.py on a machine with a GPU."""
import pytest

import memview as mv

pytestmark = pytest.mark.gpu
no_driver = pytest.mark.skipif(mv.cuda.is_available(), reason="covers machines without a CUDA driver")


class CuPyLike:
    ptr = 0x1234


class TorchLike:
    cuda_stream = 0x5678


class Protocol:
    def __cuda_stream__(self):
        return (0, 0x9abc)


class BadProtocol:
    def __cuda_stream__(self):
        return 0x9abc


@pytest.mark.parametrize("stream, handle", [
    (None, 0), (1, 1), (2, 2), (0x7f00dead0000, 0x7f00dead0000),
    (CuPyLike(), 0x1234), (TorchLike(), 0x5678), (Protocol(), 0x9abc),
])
def test_stream_handles(stream, handle):
    assert mv.cuda.stream_handle(stream) == handle


@pytest.mark.parametrize("stream, exc", [
    (0, ValueError), (-1, ValueError), (True, TypeError), ("1", TypeError), (1.0, TypeError),
    (object(), TypeError), (BadProtocol(), TypeError),
])
def test_bad_stream_handles(stream, exc):
    with pytest.raises(exc, match="stream"):
        mv.cuda.stream_handle(stream)


def test_bad_stream_arguments_change_nothing():
    a = mv.arange(4)
    with pytest.raises(ValueError, match="stream"):
        a.fill(7, stream=0)
    with pytest.raises(TypeError, match="stream"):
        a.copy(stream="default")
    assert a.tolist() == [0, 1, 2, 3]


def test_host_work_ignores_the_stream_argument_without_a_driver():
    # Plain host arrays never need the driver, whatever stream is named.
    a = mv.zeros(3)
    a.fill(2.5, stream=mv.cuda.LEGACY_STREAM)
    b = a.copy(stream=mv.cuda.PER_THREAD_STREAM)
    assert b.tolist() == [2.5, 2.5, 2.5]


def test_import_sync_setting():
    assert mv.cuda.import_sync() is True
    mv.cuda.set_import_sync(False)
    try:
        assert mv.cuda.import_sync() is False
    finally:
        mv.cuda.set_import_sync(True)
    with pytest.raises(TypeError):
        mv.cuda.set_import_sync(1)
    with pytest.raises(TypeError, match="sync"):
        mv.from_cuda_array_interface(object(), sync="yes")


@no_driver
def test_streams_need_a_driver():
    with pytest.raises(mv.cuda.CUDAError):
        mv.cuda.Stream()
    with pytest.raises(mv.cuda.CUDAError):
        mv.cuda.synchronize()
    with pytest.raises(ValueError):
        mv.cuda.Stream(-1)
    with pytest.raises(ValueError):
        mv.cuda.Stream("gpu")
    with pytest.raises(TypeError):
        mv.cuda.Stream(True)


def test_pool_stats_shape():
    stats = mv.cuda.pool_stats()
    assert set(stats) == {"bytes_allocated", "num_live", "total_bytes_allocated", "num_allocations"}
    assert all(isinstance(v, int) and v >= 0 for v in stats.values())
    if not mv.cuda.is_available():
        assert stats["num_live"] == 0 and stats["bytes_allocated"] == 0
