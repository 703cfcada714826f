"""memview arrays through Dask distributed: as task arguments and results across
worker processes (LocalCluster(processes=True)), carried by pickle protocol 5
with the data out of band. Skipped where distributed is not installed."""
import gc
import time

import numpy as np
import pytest

import memview as mv

distributed = pytest.importorskip("distributed", reason="distributed is not installed (requirements-interop.txt)")
from distributed.protocol import deserialize, serialize  # noqa: E402


def test_serialization_is_out_of_band_and_zero_copy():
    a = mv.arange(1000, dtype="float64").reshape(10, 100)
    header, frames = serialize(a)
    assert header["serializer"] == "pickle"
    data = [f for f in frames if memoryview(f).nbytes == a.nbytes]
    assert len(data) == 1  # the elements travel as a frame of their own
    assert np.frombuffer(data[0], "u1").ctypes.data == a.ptr  # not copied
    b = deserialize(header, frames)
    assert isinstance(b, mv.Array) and b.tolist() == a.tolist()


def test_local_cluster_with_worker_processes(memory_comes_back):
    def scale(x, f):
        # runs in a worker process: x arrived as a memview array
        import numpy
        import memview
        assert isinstance(x, memview.Array)
        y = x.copy()
        numpy.multiply(y, f, out=y)  # in place, on the worker
        return y

    def total(x):
        import numpy
        return float(numpy.asarray(x).sum())

    handles = mv.live_handles()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=40) as cluster, \
            distributed.Client(cluster) as client:
        pids = set(client.run(lambda: __import__("os").getpid()).values())
        assert len(pids) == 2 and __import__("os").getpid() not in pids  # real worker processes
        a = mv.arange(12.0).reshape(3, 4)[:, ::-1]
        futures = [client.submit(scale, a, f, pure=False) for f in (2.0, 3.0)]
        results = client.gather(futures)
        for r, f in zip(results, (2.0, 3.0)):
            assert isinstance(r, mv.Array) and r.tolist() == (np.asarray(a) * f).tolist()
        assert client.submit(total, results[0]).result() == float(np.asarray(a).sum() * 2)
        del futures, results, a, r
    # The scheduler runs in this process and holds what it unpickled (the tasks'
    # arguments) until it is collected, a moment after the cluster closes (longer on a
    # loaded machine); the fixture then checks that every allocation of the test came back.
    del cluster, client
    pool = memory_comes_back
    deadline = time.monotonic() + 90  # a slow build (cgocheck2) on a loaded machine takes long
    while (pool.num_live or (hasattr(pool, "leaks") and pool.leaks()) or mv.live_handles() > handles) \
            and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.05)


def test_cuda_serializers_registered_and_round_trip_the_interface():
    from distributed.protocol.cuda import cuda_deserialize, cuda_serialize
    mv.register_dask()
    assert cuda_serialize.dispatch(mv.Array) is not None

    class FakeDevice:  # an interface over an address nobody reads: no GPU needed
        __cuda_array_interface__ = {"shape": (4, 6), "typestr": "<f4", "data": (0x7F0000000000, False),
                                    "version": 3}

    d = mv.from_cuda_array_interface(FakeDevice())
    header, frames = cuda_serialize.dispatch(mv.Array)(d)
    assert header["shape"] == (4, 6) and frames[0].ptr == d.ptr and frames[0].nbytes == d.nbytes
    back = cuda_deserialize.dispatch(mv.Array)(header, frames)
    assert back.ptr == d.ptr and back.shape == d.shape and back.device == d.device
    with pytest.raises(TypeError, match="device arrays"):
        cuda_serialize.dispatch(mv.Array)(mv.zeros(2))
