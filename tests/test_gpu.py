"""Real CUDA arrays (CuPy, Numba, PyTorch) through memview, on a machine with a GPU.

Skipped, with the reason, where there is no CUDA device or library. Run them all
there with `python3 build.py gpu-check` (see README).
"""
import gc

import pytest

import memview as mv

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not mv.cuda.is_available(),
                       reason="no CUDA device: memview.cuda.is_available() is False"),
]


def _need(name):
    return pytest.importorskip(name, reason=f"{name} is not installed")


def test_driver_sees_devices():
    assert mv.cuda.device_count() >= 1


def test_cupy_both_ways():
    cp = _need("cupy")
    c = cp.arange(12, dtype=cp.float32).reshape(3, 4)
    a = mv.from_cuda_array_interface(c)
    assert a.ptr == c.data.ptr and a.device == f"cuda:{c.device.id}"
    assert a.shape == (3, 4) and a.strides == (16, 4) and a.base is c
    d = cp.asarray(a)  # CuPy consumes memview's interface: the same memory
    assert d.data.ptr == c.data.ptr
    d[1, 2] = -1
    assert float(c[1, 2]) == -1.0
    c[0, 0] = 42
    assert float(d[0, 0]) == 42.0
    del a, d


def test_cupy_strided_views():
    cp = _need("cupy")
    c = cp.arange(24, dtype=cp.float64).reshape(4, 6)
    a = mv.from_cuda_array_interface(c)
    for key in [(slice(None, None, -1), slice(None, None, 2)), (slice(1, 3), 4), (Ellipsis, slice(5, 0, -2))]:
        want = c[key]
        got = cp.asarray(a[key])
        assert got.data.ptr == want.data.ptr and got.strides == want.strides
        assert bool((got == want).all())
    t = cp.asarray(a.T)
    assert t.strides == c.T.strides and bool((t == c.T).all())


def test_lifetime_producer_dropped():
    cp = _need("cupy")
    c = cp.arange(1000, dtype=cp.int32)
    a = mv.from_cuda_array_interface(c)[::10]
    del c
    gc.collect()
    d = cp.asarray(a)
    assert int(d[5]) == 50  # the memory is still CuPy's and still alive
    del a, d
    gc.collect()
    assert mv.live_handles() == 0


def test_readonly_respected():
    cp = _need("cupy")
    c = cp.zeros(4, dtype=cp.float32)

    class ReadOnly:
        __cuda_array_interface__ = dict(c.__cuda_array_interface__, data=(c.data.ptr, True))

    a = mv.from_cuda_array_interface(ReadOnly())
    assert a.readonly and a.__cuda_array_interface__["data"] == (c.data.ptr, True)
    with pytest.raises(ValueError):
        a[0] = 1.0


def test_stream_is_carried():
    cp = _need("cupy")
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        c = cp.full((1 << 20,), 3.0, dtype=cp.float32)
        produced = c.__cuda_array_interface__.get("stream")
        a = mv.from_cuda_array_interface(c)
    assert a.__cuda_array_interface__["stream"] == produced
    total = float(cp.asarray(a).sum())  # CuPy waits on the carried stream, not the device
    assert total == 3.0 * (1 << 20)


def test_numba_both_ways():
    numba_cuda = _need("numba.cuda")
    cp = _need("cupy")
    import numpy as np
    d = numba_cuda.to_device(np.arange(8, dtype=np.float64))
    a = mv.from_cuda_array_interface(d)
    assert a.ptr == d.__cuda_array_interface__["data"][0]
    n = numba_cuda.as_cuda_array(a)  # Numba consumes memview's interface
    c = cp.asarray(a)
    c *= 2
    assert list(n.copy_to_host()) == [2.0 * i for i in range(8)]


def test_torch_tensor_import():
    torch = _need("torch")
    cp = _need("cupy")
    t = torch.arange(6, dtype=torch.float32, device="cuda").reshape(2, 3)
    a = mv.from_cuda_array_interface(t)
    assert a.ptr == t.data_ptr() and a.shape == (2, 3)
    c = cp.asarray(a)
    c[1, 1] = -5
    assert float(t[1, 1]) == -5.0


def test_gpumemoryview_on_cupy():
    cp = _need("cupy")
    c = cp.arange(16, dtype=cp.uint8)
    g = mv.gpumemoryview(c)
    assert g.ptr == c.data.ptr and g.nbytes == 16
    for s in [slice(1, 3), slice(None, 2), slice(3, None), slice(2, 2), slice(0, 10000)]:
        want = c[s]
        got = cp.asarray(g.byte_slice(s))
        assert got.size == want.size and bool((got == want).all())


# ---- Go-owned device memory, copies, fills and streams ----

def _np():
    return pytest.importorskip("numpy")


def test_go_device_array_shared_with_cupy():
    cp = _need("cupy")
    a = mv.zeros((3, 4), "float32", device="cuda")
    assert a.device == "cuda:0" and mv.cuda.pool_stats()["num_live"] == 1
    cai = a.__cuda_array_interface__
    assert cai["data"] == (a.ptr, False) and cai["strides"] is None and cai["stream"] is None
    c = cp.asarray(a)
    assert c.data.ptr == a.ptr
    assert bool((c == 0).all())  # zero-filled by the allocator
    c[1, 2] = 7  # CuPy writes Go's memory ...
    assert a.tolist()[1] == [0, 0, 7, 0]  # ... and memview reads it back
    a.fill(2.5)  # memview writes (a memset on the legacy default stream) ...
    assert a.__cuda_array_interface__["stream"] == mv.cuda.LEGACY_STREAM
    assert bool((c == 2.5).all())  # ... and CuPy sees it
    del c, a
    gc.collect()
    assert mv.cuda.pool_stats()["num_live"] == 0


def test_numba_reads_and_writes_go_device_memory():
    numba_cuda = _need("numba.cuda")
    np = _np()
    a = mv.arange(8, dtype="float64", device="cuda")
    d = numba_cuda.as_cuda_array(a)
    assert d.__cuda_array_interface__["data"][0] == a.ptr
    assert list(d.copy_to_host()) == list(range(8))
    d[3] = -1.0  # Numba writes Go's memory
    assert a[3] == -1.0
    n = numba_cuda.to_device(np.arange(4, dtype=np.int32))
    b = mv.asarray(n)
    b[1:3] = [10, 20]
    assert list(n.copy_to_host()) == [0, 10, 20, 3]


LAYOUTS = [
    ("C", lambda x: x),
    ("F", lambda x: x.T.copy().T),
    ("step", lambda x: x[::2, 1::3]),
    ("negative", lambda x: x[::-1, ::-2]),
    ("transposed", lambda x: x.T),
    ("row", lambda x: x[3]),
    ("0-d", lambda x: x[2, 5]),
    ("empty", lambda x: x[3:3]),
]


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int32", "float16", "float32", "float64",
                                   "complex64", "complex128"])
@pytest.mark.parametrize("name, view", LAYOUTS)
def test_host_device_round_trip(dtype, name, view):
    cp = _need("cupy")
    np = _np()
    base = (np.arange(8 * 12).reshape(8, 12) % 7).astype(dtype)
    src = view(base)
    h = mv.from_buffer(src)
    d = h.to("cuda")
    assert d.device == "cuda:0" and d.shape == src.shape
    got = cp.asnumpy(cp.asarray(d))
    assert got.dtype == src.dtype and np.array_equal(got, src)
    back = d.to("cpu")
    assert np.array_equal(np.asarray(back), src)
    # device-side strided views, copies and transfers back
    if d.ndim == 2 and d.size:
        for key in [(slice(None, None, -1), slice(None, None, 2)), (slice(1, None, 3), slice(None, None, -1))]:
            dv = d[key]
            assert np.array_equal(dv.to("cpu").tolist(), src[key].tolist())
            assert np.array_equal(cp.asnumpy(cp.asarray(dv.copy())), src[key])
            assert np.array_equal(np.asarray(d.T[key[::-1]].to("cpu")), src.T[key[::-1]])


def test_device_assignment_and_fill_match_numpy():
    cp = _need("cupy")
    np = _np()
    want = np.zeros((6, 10), dtype=np.float64)
    d = mv.zeros((6, 10), device="cuda")
    steps = [
        ((slice(None, None, 2), slice(1, None)), np.arange(27.0).reshape(3, 9)),
        ((slice(None, None, -1), 0), np.arange(6.0)),
        ((1,), 5.5),
        ((slice(None), slice(None, None, -3)), np.ones(4) * 9),
    ]
    for key, value in steps:
        want[key] = value
        d[key] = value
        assert np.array_equal(cp.asnumpy(cp.asarray(d)), want), key
    d[::-1, ::-1] = d  # overlapping device-to-device assignment
    want[::-1, ::-1] = want.copy()
    assert np.array_equal(np.asarray(d.to("cpu")), want)
    for dtype, value in [("int8", -3), ("int16", 300), ("float32", 1.5), ("float64", -2.25),
                         ("complex128", 1 + 2j), ("bool", True)]:
        f = mv.full((5, 7), value, dtype, device="cuda")
        assert f.tolist() == np.full((5, 7), value, dtype).tolist()
        f[1::2, ::3].fill(0)
        ref = np.full((5, 7), value, dtype)
        ref[1::2, ::3] = 0
        assert f.tolist() == ref.tolist()


def test_pinned_and_managed_memory():
    cp = _need("cupy")
    np = _np()
    p = mv.arange(10, dtype="float32", device="cuda_host")
    assert p.device == "cuda_host"
    n = np.asarray(p)  # pinned memory is host memory: the buffer protocol works
    n[0] = 42
    d = p.to("cuda")
    assert cp.asarray(d)[0] == 42
    m = mv.zeros(16, "int32", device="cuda_managed")
    assert m.device == "cuda_managed:0"
    cp.asarray(m)[:] = 3  # the GPU writes managed memory ...
    cp.cuda.runtime.deviceSynchronize()
    assert np.asarray(m).tolist() == [3] * 16  # ... the CPU reads it in place
    del n


# A kernel that really takes time: one block spins on the SM clock (clock64,
# which the compiler cannot remove) and only then adds 1 to every element. Work
# enqueued after it on its stream, or made to wait for it, sees the +1; work
# that does not wait runs meanwhile on the rest of the GPU and sees the values
# from before.
SPIN_SOURCE = r"""
extern "C" __global__ void memview_spin_then_add_one(float *x, long long n, long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) { }
    for (long long i = threadIdx.x; i < n; i += blockDim.x) x[i] += 1.0f;
}
"""
SPIN_CYCLES = 400_000_000  # about 0.2 s at 2 GHz: far longer than the copies below


def _spin(cp, c, stream):
    kernel = cp.RawKernel(SPIN_SOURCE, "memview_spin_then_add_one")
    with stream:
        kernel((1,), (256,), (c, cp.int64(c.size), cp.int64(SPIN_CYCLES)))


def test_stream_ordered_handoff_from_a_non_blocking_stream():
    cp = _need("cupy")
    np = _np()
    n = 1 << 20
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        c = cp.arange(n, dtype=cp.float32)
    s.synchronize()
    _spin(cp, c, s)  # still running on s when memview imports c
    with s:
        a = mv.from_cuda_array_interface(c)
    assert a.__cuda_array_interface__["stream"] == s.ptr
    h = a[::1024].to("cpu")  # waits for s on the device, through the import event
    assert np.array_equal(np.asarray(h), np.arange(0, n, 1024, dtype=np.float32) + 1)
    # Without the event the same read is wrong: memview's copy on the legacy
    # stream does not wait for the non-blocking stream, so it reads the values
    # from before the kernel that is still spinning.
    _spin(cp, c, s)
    b = mv.from_cuda_array_interface(c, sync=False)
    early = b[::1024].to("cpu")
    s.synchronize()
    assert np.array_equal(np.asarray(early), np.arange(0, n, 1024, dtype=np.float32) + 1)
    assert float(c[0]) == 2.0


def test_memview_work_is_reported_to_cupy():
    cp = _need("cupy")
    _np()
    s = cp.cuda.Stream(non_blocking=True)
    c = cp.zeros(1 << 20, dtype=cp.float32)
    _spin(cp, c, s)  # the producer's slow work
    with s:
        src = mv.from_cuda_array_interface(c)
    d = mv.zeros(1 << 20, "float32", device="cuda")
    view_before = d[::2]
    d[...] = src[::-1]  # a kernel on the legacy stream, after the producer's work (on the device)
    assert d.__cuda_array_interface__["stream"] == mv.cuda.LEGACY_STREAM
    assert view_before.__cuda_array_interface__["stream"] == mv.cuda.LEGACY_STREAM
    # CuPy, on a stream of its own that does not order against memview's, waits
    # for the stream the interface names; had it said None, CuPy would read zeros.
    with cp.cuda.Stream(non_blocking=True):
        got = cp.asarray(view_before)
        assert bool((got == 1.0).all())
    s.synchronize()


def test_memview_streams():
    cp = _need("cupy")
    np = _np()
    with mv.cuda.Stream(non_blocking=True) as s:
        assert s.device == "cuda:0" and s.__cuda_stream__() == (0, s.handle)
        d = mv.arange(1 << 20, dtype="int64", device="cuda", stream=s)
        e = d[::-1].copy(stream=s)  # device to device: enqueued, the host does not wait
        assert e.__cuda_array_interface__["stream"] == s.handle
        s.synchronize()
        assert s.query() is True
        got = cp.asnumpy(cp.asarray(e))
        assert np.array_equal(got, np.arange(1 << 20)[::-1])
        cs = cp.cuda.ExternalStream(s.handle)
        f = mv.zeros(4, device="cuda")
        f.fill(9, stream=cs)  # any stream object with .ptr
        mv.cuda.synchronize(cs)
        assert f.tolist() == [9.0] * 4
    assert s.closed
    with pytest.raises(ValueError, match="closed"):
        s.synchronize()


def test_device_errors_are_clean():
    a = mv.zeros(4, device="cuda")
    with pytest.raises(ValueError, match="device"):
        mv.empty(3, device=f"cuda:{mv.cuda.device_count()}")
    with pytest.raises(MemoryError):
        mv.empty(1 << 50, "uint8", device="cuda")
    with pytest.raises(BufferError):
        memoryview(a)

    class ReadOnly:
        __cuda_array_interface__ = dict(a.__cuda_array_interface__, data=(a.ptr, True))

    r = mv.from_cuda_array_interface(ReadOnly())
    for op in (lambda: r.fill(1), lambda: r.__setitem__(0, 1), lambda: r[1:].fill(2, stream=1)):
        with pytest.raises(ValueError, match="read-only"):
            op()
    a[:] = mv.arange(4, dtype="int32", device="cuda")  # converted through the host
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_go_memory_outlives_its_memview_array_while_cupy_holds_it():
    cp = _need("cupy")
    a = mv.arange(1000, dtype="int32", device="cuda")
    c = cp.asarray(a)[::10]  # CuPy keeps the memview array (its owner) alive
    del a
    gc.collect()
    assert mv.cuda.pool_stats()["num_live"] == 1
    assert int(c[5]) == 50
    del c
    gc.collect()
    assert mv.cuda.pool_stats()["num_live"] == 0


# ---- memview's kernels, pending work on the memory, closed streams ----

KERNEL_LAYOUTS = [
    ("reversed", lambda x: x[::-1]),
    ("reversed both", lambda x: x[::-1, ::-1]),
    ("columns", lambda x: x[:, ::3]),
    ("transposed", lambda x: x.T),
    ("reversed columns of a transpose", lambda x: x.T[::-2]),
    ("broadcast row", lambda x: x[2:3]),
]


@pytest.mark.parametrize("dtype", ["int8", "uint16", "float32", "float64", "complex128"])
@pytest.mark.parametrize("name, view", KERNEL_LAYOUTS)
def test_device_copies_by_kernel_match_numpy(dtype, name, view):
    cp = _need("cupy")
    np = _np()
    base = (np.arange(9 * 14).reshape(9, 14) % 11).astype(dtype)
    d = mv.from_buffer(base).to("cuda")
    src = view(d)
    ref = view(base)
    out = mv.zeros((9, 14) if name == "broadcast row" else ref.shape, dtype, device="cuda")
    out[...] = src  # device to device: one kernel, any strides
    want = np.broadcast_to(ref, out.shape)
    assert np.array_equal(cp.asnumpy(cp.asarray(out)), want)
    assert np.array_equal(np.asarray(src.copy().to("cpu")), ref)
    assert np.array_equal(np.asarray(out[::-1, ::2].copy().to("cpu")), want[::-1, ::2])


def test_records_and_unaligned_items_on_the_device():
    cp = _need("cupy")
    np = _np()
    dt = np.dtype([("a", "<i4"), ("b", "<f8"), ("c", "u1")])  # 13-byte packed records
    host = np.zeros(7, dt)
    host["a"], host["b"], host["c"] = range(7), np.arange(7) / 2, range(10, 17)
    d = mv.from_buffer(host).to("cuda")
    r = d[::-1].copy()
    assert r.tolist() == host[::-1].tolist()
    r[::2] = (99, 1.5, 3)
    want = host[::-1].copy()
    want[::2] = (99, 1.5, 3)
    assert r.tolist() == want.tolist()
    raw = cp.zeros(64, dtype=cp.uint8)

    class Odd:  # big-endian 16-bit items at an odd address: the driver's 16-bit memset cannot fill them
        __cuda_array_interface__ = {"shape": (9,), "typestr": ">i2", "data": (raw.data.ptr + 1, False),
                                    "version": 3}

    a = mv.from_cuda_array_interface(Odd())
    a.fill(0x0102)
    a[::3].fill(-1)
    want = np.full(9, 0x0102, ">i2")
    want[::3] = -1
    assert cp.asnumpy(raw[1:19]).tobytes() == want.tobytes()


def test_pending_work_is_seen_by_every_view():
    cp = _need("cupy")
    a = mv.zeros((512, 512), "float32", device="cuda")
    before = a[::2, 1:]
    a[::2] = 1.0  # through a temporary view
    after = a.T
    for obj in (a, before, after):
        assert obj.__cuda_array_interface__["stream"] == mv.cuda.LEGACY_STREAM
    with cp.cuda.Stream(non_blocking=True):
        assert float(cp.asarray(before).sum()) == 256 * 511
        assert float(cp.asarray(after)[0, ::2].sum()) == 256


def test_closed_stream_is_never_named():
    cp = _need("cupy")
    np = _np()
    d = mv.arange(1 << 20, dtype="float32", device="cuda")
    with mv.cuda.Stream(non_blocking=True) as s:
        e = d[::-1].copy(stream=s)
        v = e[::2]
        assert e.__cuda_array_interface__["stream"] == s.handle
    for obj in (e, v):
        assert obj.__cuda_array_interface__["stream"] not in (s.handle,)
    with cp.cuda.Stream(non_blocking=True):
        got = cp.asnumpy(cp.asarray(v))
    assert np.array_equal(got, np.arange(1 << 20, dtype=np.float32)[::-1][::2])


def test_managed_memory_is_ready_for_the_host():
    np = _np()
    m = mv.zeros(1 << 24, "float32", device="cuda_managed")
    n = np.asarray(m)  # a host view made before the GPU writes
    m.fill(3.0)
    assert float(n[-1]) == 3.0 and float(n[0]) == 3.0
    d = mv.arange(1 << 24, dtype="float32", device="cuda")
    m[...] = d[::-1]
    assert float(n[0]) == (1 << 24) - 1 and float(n[:4].sum()) == sum(range((1 << 24) - 4, 1 << 24))
    del n


def test_empty_import_reports_its_device():
    cp = _need("cupy")
    if mv.cuda.device_count() < 2:
        pytest.skip("one GPU here: an empty array's device cannot be told from device 0")
    with cp.cuda.Device(1):
        e = cp.empty(0, dtype=cp.float32)
        assert mv.from_cuda_array_interface(e).device == "cuda:1"


def test_copies_between_two_devices():
    np = _np()
    if mv.cuda.device_count() < 2:
        pytest.skip("needs two GPUs")
    d = mv.from_buffer(np.arange(35.0).reshape(5, 7)).to("cuda:0")
    e = mv.zeros((7, 5), device="cuda:1")
    e[...] = d.T[::-1]
    assert np.array_equal(np.asarray(e.to("cpu")), np.arange(35.0).reshape(5, 7).T[::-1])


def test_python_host_functions_on_a_stream_do_not_deadlock():
    """A CuPy stream carrying a Python host function (launch_host_func): the driver runs
    it on its own thread, where it needs the GIL. memview waits for that stream without
    holding the GIL, so none of these waits deadlocks (each runs in a thread with a
    time limit, so a deadlock fails the test instead of hanging the run)."""
    import threading
    cp = _need("cupy")
    s = cp.cuda.Stream(non_blocking=True)
    ran = []
    d = mv.zeros(1 << 20, device="cuda")
    waits = {
        "Stream.synchronize": lambda: mv.cuda.synchronize(stream=s),
        "fill then read back": lambda: (d.fill(1.0, stream=s), d.tolist()[:1]),
        "copy to the host": lambda: d.copy(stream=s).to("cpu").release(),
    }
    for name, wait in waits.items():
        s.launch_host_func(lambda _: ran.append(name), None)
        t = threading.Thread(target=wait, daemon=True)
        t.start()
        t.join(60)
        assert not t.is_alive(), f"{name}: memview waited for the stream holding the GIL"
        s.synchronize()
    assert ran == list(waits)
    del d
