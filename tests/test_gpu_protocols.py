"""The exchange protocols on a real GPU: DLPack stream ordering against CuPy
streams, device pickles, Dask's cuda serializers over real device memory.
Skipped, with the reason, where there is no CUDA device (the fake driver in
tests/fake_cuda covers memview's side of the calls in CI)."""
import pickle

import pytest

import memview as mv

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not mv.cuda.is_available(), reason="no CUDA device: memview.cuda.is_available() is False"),
]


def test_dlpack_on_a_cupy_stream():
    cp = pytest.importorskip("cupy", reason="cupy is not installed")
    with mv.cuda.Stream(non_blocking=True) as s:
        d = mv.arange(1 << 20, dtype="float32", device="cuda")
        f = d.copy(stream=s)  # pending on s
        consumer = cp.cuda.Stream(non_blocking=True)
        with consumer:
            c = cp.from_dlpack(f)  # CuPy passes its current stream; memview makes it wait for s
            total = float(c.sum())
        assert total == float(sum(range(1 << 20)))
        assert c.data.ptr == f.ptr


def test_device_pickle_round_trip():
    d = mv.arange(100, dtype="int32", device="cuda")[::7]
    e = pickle.loads(pickle.dumps(d, protocol=5))
    assert e.device == d.device and e.tolist() == d.tolist()


def test_dask_cuda_serializers_move_device_memory():
    pytest.importorskip("distributed", reason="distributed is not installed")
    from distributed.protocol.cuda import cuda_deserialize, cuda_serialize
    mv.register_dask()
    d = mv.arange(24, dtype="float64", device="cuda").reshape(4, 6)[:, ::2]
    header, frames = cuda_serialize.dispatch(mv.Array)(d)
    back = cuda_deserialize.dispatch(mv.Array)(header, frames)
    assert back.device == "cuda:0" and back.tolist() == d.tolist()
