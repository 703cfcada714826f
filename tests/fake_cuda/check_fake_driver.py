"""memview's CUDA code paths against a fake driver (fake_cuda.c): run by
tests/test_fake_cuda_driver.py in a subprocess whose LD_LIBRARY_PATH makes
libcuda.so.1 the fake. "Device memory" is host memory here, so every result is
checked by copying back to the host and comparing with NumPy; the fake checks that
memview calls the driver correctly (context current and restored, writes inside
allocations, valid pitches, live streams and events)."""
import ctypes
import gc

import numpy as np
import pytest

import memview as mv
from fakedriver import Producer, driver_used_correctly, fake  # noqa: F401 (an autouse fixture)


def test_the_fake_is_loaded_and_checks():
    assert mv.cuda.is_available() and mv.cuda.device_count() == 2
    calls = fake.fake_calls()
    mv.zeros(4, device="cuda").release()
    assert fake.fake_calls() > calls  # memview really went through the fake
    # The fake's checks catch misuse: a call with no context current, a write
    # outside every allocation.
    assert fake.cuMemsetD8Async(ctypes.c_ulonglong(0x10), 0, 8, ctypes.c_void_p(1)) != 0
    assert fake.fake_violations() == 1
    fake.fake_reset_violations()


DTYPES = ["bool", "int8", "uint16", "int32", "float16", "float32", "float64", "complex64", "complex128"]
LAYOUTS = {
    "C": lambda x: x, "F": lambda x: np.asfortranarray(x), "step": lambda x: x[::2, 1::3],
    "negative": lambda x: x[::-1, ::-2], "transposed": lambda x: x.T, "row": lambda x: x[3],
    "0-d": lambda x: x[2, 5], "empty": lambda x: x[3:3],
}


@pytest.mark.parametrize("device", ["cuda", "cuda_managed", "cuda_host"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_round_trips(device, dtype, layout):
    base = (np.arange(8 * 12).reshape(8, 12) % 7).astype(dtype)
    src = np.asarray(LAYOUTS[layout](base))
    d = mv.from_buffer(src).to(device)
    assert d.shape == src.shape and d.device.startswith(device)
    assert np.array_equal(np.asarray(d.to("cpu")), src)
    assert d.tolist() == src.tolist()
    if d.ndim == 2 and d.size:
        for key in [(slice(None, None, -1), slice(None, None, 2)), (slice(1, None, 3), slice(None, None, -1))]:
            assert d[key].to("cpu").tolist() == src[key].tolist()
            assert d[key].copy().tolist() == src[key].tolist()
            assert d.T[key[::-1]].to("cpu").tolist() == src.T[key[::-1]].tolist()


def test_allocation_is_zeroed_and_pooled():
    a = mv.empty((5, 7), "float64", device="cuda")
    assert a.tolist() == [[0.0] * 7] * 5  # the fake hands out 0xAB garbage
    assert mv.cuda.pool_stats()["num_live"] == 1
    del a
    gc.collect()
    assert mv.cuda.pool_stats()["num_live"] == 0 and fake.fake_live_allocations() == 0
    with pytest.raises(MemoryError):
        mv.empty(1 << 45, "uint8", device="cuda")
    with pytest.raises(ValueError, match="device 3"):
        mv.empty(3, device="cuda:3")


def test_assignment_and_fill_match_numpy():
    want = np.zeros((6, 10))
    d = mv.zeros((6, 10), device="cuda")
    for key, value in [((slice(None, None, 2), slice(1, None)), np.arange(27.0).reshape(3, 9)),
                       ((slice(None, None, -1), 0), np.arange(6.0)), ((1,), 5.5),
                       ((slice(None), slice(None, None, -3)), np.ones(4) * 9)]:
        want[key] = value
        d[key] = value
        assert d.tolist() == want.tolist(), key
    d[::-1, ::-1] = d  # overlapping device-to-device
    want[::-1, ::-1] = want.copy()
    assert d.tolist() == want.tolist()
    e = mv.zeros((6, 10), device="cuda")
    e[...] = d[::-1]  # device to device with reversed rows
    assert e.tolist() == want[::-1].tolist()
    for dtype, value in [("int8", -3), ("int16", 300), ("float32", 1.5), ("float64", -2.25),
                         ("complex128", 1 + 2j), ("bool", True), ("uint8", 0)]:
        f = mv.full((5, 7), value, dtype, device="cuda")
        ref = np.full((5, 7), value, dtype)
        assert f.tolist() == ref.tolist()
        f[1::2, ::3].fill(0)
        ref[1::2, ::3] = 0
        assert f.tolist() == ref.tolist()
    r = mv.zeros(4, dtype="T{<i:a:>d:b:B:c:}", device="cuda")  # 13-byte records
    r.fill((1, 2.5, 3))
    r[::2] = (4, 5.0, 6)
    assert r.tolist() == [(4, 5.0, 6), (1, 2.5, 3)] * 2


def test_streams_and_pending_work():
    with mv.cuda.Stream(non_blocking=True) as s:
        d = mv.arange(1000, dtype="int64", device="cuda", stream=s)
        e = d[::-1].copy(stream=s)
        assert e.__cuda_array_interface__["stream"] == s.handle
        f = d.copy(stream=s)  # device to device, no host wait: pending on s
        assert f.__cuda_array_interface__["stream"] == s.handle
        s.synchronize()
        assert s.query() is True
        assert e.tolist() == list(range(999, -1, -1)) and f.tolist() == list(range(1000))
        g = mv.zeros(3, device="cuda")
        g.fill(7, stream=mv.cuda.LEGACY_STREAM)
        assert g.__cuda_array_interface__["stream"] == mv.cuda.LEGACY_STREAM
        mv.cuda.synchronize()
    assert s.closed


def test_imports_record_and_wait_on_the_producers_stream():
    with mv.cuda.Stream() as producer_stream:
        p = Producer(16, producer_stream.handle)
        before = fake.fake_live_events()
        a = mv.from_cuda_array_interface(p)
        assert fake.fake_live_events() == before + 1  # an event on the producer's stream
        a[::2] = np.arange(8.0)  # memview's work waits for it (cuStreamWaitEvent)
        assert a.to("cpu").tolist()[:4] == [0.0, 0.0, 1.0, 0.0]
        b = mv.from_cuda_array_interface(p, sync=False)
        assert fake.fake_live_events() == before + 1  # opted out: no event
        del a, b
        gc.collect()
        assert fake.fake_live_events() == before  # the event went with the memory
        del p
        gc.collect()


def test_pinned_and_managed_are_host_visible():
    p = mv.arange(10, dtype="float32", device="cuda_host")
    n = np.asarray(p)
    n[0] = 42
    assert p.to("cuda").tolist()[0] == 42
    m = mv.zeros(16, "int32", device="cuda_managed")
    np.asarray(m)[:] = 3
    assert m.to("cpu").tolist() == [3] * 16 and m.__cuda_array_interface__["data"][0] == m.ptr
    del n


# ---- the exchange protocols on device memory

import os  # noqa: E402
import pickle  # noqa: E402
import sys  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from _dlpack_ctypes import CUDA, CUDA_HOST, CUDA_MANAGED, IS_COPIED, versioned  # noqa: E402


def pending_array(stream):
    """A device array with work left pending on stream (a device-to-device copy)."""
    d = mv.arange(64, dtype="float32", device="cuda")
    f = d.copy(stream=stream)
    assert f.__cuda_array_interface__["stream"] == stream.handle
    return f


def test_dlpack_consumer_stream_waits_by_event():
    with mv.cuda.Stream() as s, mv.cuda.Stream() as consumer:
        f = pending_array(s)
        events, waits = fake.fake_live_events(), fake.fake_waits()
        cap = f.__dlpack__(stream=consumer.handle, max_version=(1, 0))
        t = versioned(cap)
        assert (t.dl_tensor.device.device_type, t.dl_tensor.device.device_id) == (CUDA, 0)
        assert t.dl_tensor.data == f.ptr and t.flags == 0
        assert fake.fake_waits() == waits + 1  # the consumer's stream waits for s, on the device
        assert fake.fake_live_events() == events  # the event went once the wait was enqueued
        for stream in (s.handle, -1):  # the same stream, or no ordering asked for: nothing to do
            f.__dlpack__(stream=stream, max_version=(1, 0))
        assert fake.fake_waits() == waits + 1
        f.__dlpack__(max_version=(1, 0))  # None: the legacy default stream waits
        assert fake.fake_waits() == waits + 2
        del t, cap
        s.synchronize()


def test_dlpack_device_round_trip_and_copies():
    d = mv.arange(12, dtype="int32", device="cuda").reshape(3, 4)[:, ::-1]
    g = mv.from_dlpack(d)
    assert g.device == "cuda:0" and g.ptr == d.ptr and g.tolist() == d.tolist() and g.base is d
    h = np.from_dlpack(d, device="cpu")  # dl_device=(CPU, 0): memview copies to the host
    assert h.tolist() == d.tolist()
    cap = d.__dlpack__(max_version=(1, 0), dl_device=(1, 0))
    assert versioned(cap).flags == IS_COPIED
    with pytest.raises(BufferError, match="copy=False"):
        d.__dlpack__(max_version=(1, 0), dl_device=(1, 0), copy=False)
    c = mv.from_dlpack(d, copy=True)
    assert c.device == "cuda:0" and c.ptr != d.ptr and c.tolist() == d.tolist()
    back = mv.from_dlpack(mv.arange(5.0), device="cuda")  # a host array copied to the device
    assert back.device == "cuda:0" and back.tolist() == [0, 1, 2, 3, 4]
    del cap


def test_host_visible_device_memory_reaches_numpy_in_place():
    m = mv.arange(6, dtype="float64", device="cuda_managed")
    assert m.__dlpack_device__() == (CUDA_MANAGED, 0)
    n = np.from_dlpack(m, device="cpu")
    assert n.ctypes.data == m.ptr and n.tolist() == [0, 1, 2, 3, 4, 5]
    p = mv.arange(4, dtype="int16", device="cuda_host")
    assert p.__dlpack_device__() == (CUDA_HOST, 0)
    q = np.from_dlpack(p)
    assert q.ctypes.data == p.ptr
    del n, q


def test_arrow_device_array_sync_event():
    import ctypes
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    with mv.cuda.Stream() as s:
        f = pending_array(s)
        events = fake.fake_live_events()
        sc, dc = f.__arrow_c_device_array__()
        raw = ctypes.string_at(get(dc, b"arrow_device_array"), 128)
        device_id, device_type = int.from_bytes(raw[80:88], "little"), int.from_bytes(raw[88:92], "little")
        sync_event = int.from_bytes(raw[96:104], "little")
        assert (device_type, device_id) == (CUDA, 0) and sync_event
        assert fake.fake_live_events() == events + 1  # alive until the consumer releases the array
        del sc, dc
        gc.collect()
        assert fake.fake_live_events() == events

        class DeviceOnly:
            def __init__(self, a):
                self.a = a

            def __arrow_c_device_array__(self, requested_schema=None, **kw):
                return self.a.__arrow_c_device_array__(requested_schema, **kw)

        waits = fake.fake_waits()
        g = mv.from_arrow(DeviceOnly(f))  # memview's default stream waits for the producer's event
        assert fake.fake_waits() == waits + 1
        assert g.device == "cuda:0" and g.readonly and g.tolist() == list(range(64))
        s.synchronize()
    z = mv.zeros(3, device="cuda")
    sc, dc = z.__arrow_c_device_array__()
    raw = ctypes.string_at(get(dc, b"arrow_device_array"), 128)
    assert int.from_bytes(raw[96:104], "little") == 0  # nothing pending: no event


def test_device_arrays_pickle_back_to_the_device():
    d = mv.arange(10, dtype="float64", device="cuda")[::3]
    for protocol in (2, 5):
        e = pickle.loads(pickle.dumps(d, protocol=protocol))
        assert e.device == "cuda:0" and e.tolist() == d.tolist() and e.ptr != d.ptr
    m = mv.arange(3, dtype="int8", device="cuda_managed")
    assert pickle.loads(pickle.dumps(m, protocol=5)).device == "cuda_managed:0"
