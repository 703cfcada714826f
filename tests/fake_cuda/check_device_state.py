"""Device state and kernels against the fake driver, which runs work only when
something waits for it: what a consumer sees through __cuda_array_interface__
after each way of writing a device array (through the array, a view made
before, a view made after), managed memory read by the host, closed streams,
device copies that must not touch the host, unaligned fills, driver error
names, empty imports on another device. Run by tests/test_fake_cuda_driver.py."""
import gc
import os
import subprocess
import sys

import numpy as np
import pytest

import memview as mv
from fakedriver import Producer, consume, driver_used_correctly, fake, produce  # noqa: F401 (an autouse fixture)


def fresh(shape=(6, 8)):
    """A device array holding 0, 1, 2, ... (the values are on the device and
    nothing is pending when this returns)."""
    a = mv.from_buffer(np.arange(np.prod(shape), dtype=np.float64).reshape(shape)).to("cuda")
    assert a.__cuda_array_interface__["stream"] is None
    return a


def writes():
    """Each way of writing a device array `a`, with the NumPy equivalent."""
    other = fresh()

    def setitem_view(a, n):
        a[::2] = 1.0
        n[::2] = 1.0

    def setitem_device(a, n):
        a[...] = other[::-1]
        n[...] = np.arange(48.0).reshape(6, 8)[::-1]

    def setitem_strided_device(a, n):
        a[1::2, ::-1] = other[::2]
        n[1::2, ::-1] = np.arange(48.0).reshape(6, 8)[::2]

    def fill(a, n):
        a.fill(3.5)
        n[...] = 3.5

    def fill_view(a, n):
        a[:, 1::3].fill(-2.0)
        n[:, 1::3] = -2.0

    def from_host(a, n):
        a[2:] = np.ones((4, 8))
        n[2:] = 1.0

    def broadcast_row(a, n):
        a[...] = other[4]
        n[...] = np.arange(48.0).reshape(6, 8)[4]

    return other, [setitem_view, setitem_device, setitem_strided_device, fill, fill_view, from_host, broadcast_row]


@pytest.mark.parametrize("which", range(7))
def test_every_view_reports_pending_work(which):
    other, ways = writes()
    write = ways[which]
    a = fresh()
    before = a[1:, ::-1]  # a view made before the write
    want = np.arange(48.0).reshape(6, 8)
    write(a, want)
    after = a.T  # and one made after
    # the views first: a consumer of one view must not depend on another having waited
    for obj, ref in [(before, want[1:, ::-1]), (after, want.T), (a, want)]:
        got = consume(obj)
        assert np.array_equal(got, ref), f"{write.__name__}: a consumer read {got} through {obj.shape}"
    del other


def test_copies_and_to_report_their_work():
    a = fresh()
    for make in (lambda: a[::-1].copy(), lambda: a.T.copy("C"), lambda: a[:, ::2].to("cuda")):
        e = make()
        v = e[1:]
        assert np.array_equal(consume(v), consume(e)[1:])
    c = a[::-1].copy()
    assert np.array_equal(consume(c), np.arange(48.0).reshape(6, 8)[::-1])
    # the source of a pending copy reports the work too (it must not be
    # overwritten before the copy has read it)
    s = fresh()
    t = s[:, ::-1].copy()
    assert s.__cuda_array_interface__["stream"] == mv.cuda.LEGACY_STREAM
    del t


def test_import_sync_reports_and_orders():
    with mv.cuda.Stream(non_blocking=True) as ps:
        p = Producer(16, ps.handle)
        produce(ps.handle, p.ptr, 0x3F, 8 * 16)  # still queued when memview imports
        a = mv.from_cuda_array_interface(p)
        v = a[::2]
        assert v.__cuda_array_interface__["stream"] == ps.handle
        h = a.to("cpu")  # memview's copy waits for the producer's work (an event), not for nothing
        assert np.asarray(h).view(np.uint8).tolist() == [0x3F] * 128
        a[1::2] = 5.0  # memview writes: the work is pending on memview's stream now
        assert all(x == 5.0 for x in consume(a)[1::2]) and consume(v)[0] != 5.0
        del a, v, h
        gc.collect()
        del p
        gc.collect()


def test_without_the_import_event_the_read_is_wrong():
    # The check above is not vacuous: with ordering turned off, memview's copy
    # does not wait for the producer, and reads the bytes from before its work.
    with mv.cuda.Stream(non_blocking=True) as ps:
        p = Producer(16, ps.handle)
        produce(ps.handle, p.ptr, 0x3F, 8 * 16)
        a = mv.from_cuda_array_interface(p, sync=False)
        h = a.to("cpu")
        assert np.asarray(h).view(np.uint8).tolist() == [0] * 128
        assert fake.fake_sync_stream(ps.handle, 0) == 0
        del a, h
        gc.collect()
        del p
        gc.collect()


def test_managed_memory_is_ready_for_the_host():
    m = mv.zeros((4, 6), "float64", device="cuda_managed")
    n = np.asarray(m)  # a host view made before the GPU writes
    m.fill(3.0)
    assert (n == 3.0).all() and (np.asarray(m) == 3.0).all()
    d = fresh((4, 6))
    m[::-1] = d  # device to managed, reversed
    assert np.array_equal(n, np.arange(24.0).reshape(4, 6)[::-1])
    m[:, ::2].fill(0)
    want = np.arange(24.0).reshape(4, 6)[::-1]
    want[:, ::2] = 0
    if "sigproc" in mv.go_packages():  # Go code reading and writing the managed memory
        import sigproc
        assert sigproc.Sum(m) == want.sum()
        sigproc.Scale(m, 2.0)
        want *= 2
    assert np.array_equal(n, want)
    assert m.__cuda_array_interface__["stream"] is None  # nothing is left pending on it
    p = mv.zeros(5, "int32", device="cuda_host")
    q = np.asarray(p)
    p.fill(7)
    assert q.tolist() == [7] * 5
    del n, q


def test_closed_streams_are_never_named():
    d = fresh((10, 10))
    with mv.cuda.Stream(non_blocking=True) as s:
        e = d[::-1].copy(stream=s)
        v = e[::3]
        assert e.__cuda_array_interface__["stream"] == s.handle
        f = mv.zeros((10, 10), device="cuda")
        f.fill(4.0, stream=s)
    dead = s.handle
    for obj in (e, v, f, d):
        assert obj.__cuda_array_interface__["stream"] != dead
    assert np.array_equal(consume(e), np.arange(100.0).reshape(10, 10)[::-1])
    assert np.array_equal(consume(v), np.arange(100.0).reshape(10, 10)[::-1][::3])
    assert (consume(f) == 4.0).all()
    e.fill(1.0)  # memview's own later work must not use the dead stream either
    assert e.tolist()[0] == [1.0] * 10


def test_device_copies_stay_on_the_device():
    d = fresh((8, 12))
    e = mv.zeros((8, 12), device="cuda")
    t0, k0, c0 = fake.fake_transfers(), fake.fake_launches(), fake.fake_copies2d()
    e[...] = d[::-1]
    e[::2, ::-1] = d[1::2, ::1]
    f = d[::-1, ::-2].copy()
    g = d.T.copy()
    e[...] = d[3]  # broadcast
    e[1:, 1:] = e[:-1, :-1]  # overlapping
    assert fake.fake_transfers() == t0, "a device-to-device copy went through host memory"
    assert fake.fake_copies2d() == c0
    assert fake.fake_launches() > k0
    base = np.arange(96.0).reshape(8, 12)
    want = np.zeros((8, 12))
    want[...] = base[3]
    want[1:, 1:] = want[:-1, :-1].copy()
    assert np.array_equal(consume(e), want)
    assert np.array_equal(consume(f), base[::-1, ::-2]) and np.array_equal(consume(g), base.T)


def test_copies_between_two_devices():
    d = fresh((5, 7))
    e = mv.zeros((7, 5), device="cuda:1")
    e[...] = d.T[::-1]
    assert e.device == "cuda:1" and np.array_equal(e.to("cpu"), np.arange(35.0).reshape(5, 7).T[::-1])
    back = e[::2].to("cuda:0")
    assert np.array_equal(consume(back), np.arange(35.0).reshape(5, 7).T[::-1][::2])
    f = mv.zeros((5, 7), device="cuda:1")
    f.fill(2.0)  # pending on device 1's legacy stream, which device 0's does not order against
    g = mv.zeros((5, 7), device="cuda:0")
    g[...] = f
    assert (consume(g) == 2.0).all()


@pytest.mark.parametrize("typestr, value, offset", [(">i2", 0x0102, 1), (">i4", -7, 2), (">f8", 1.5, 4),
                                                    ("<i2", 0x0304, 0), ("<f4", 2.5, 0)])
def test_fills_at_any_alignment(typestr, value, offset):
    p = Producer(9, None, typestr=typestr, offset=offset)
    a = mv.from_cuda_array_interface(p)
    a.fill(value)
    a[::4].fill(0)
    want = np.full(9, value, dtype=typestr)
    want[::4] = 0
    assert consume(a).tobytes() == want.tobytes()
    del a
    gc.collect()
    del p


def test_wide_records_fill():
    r = mv.zeros(5, dtype="T{<q:a:<q:b:<q:c:<q:d:<q:e:<q:f:<q:g:<q:h:<q:i:}", device="cuda")  # 72 bytes
    r[::2].fill(tuple(range(9)))
    got = r.tolist()
    assert got[0] == tuple(range(9)) and got[1] == (0,) * 9 and got[4] == tuple(range(9))


def test_empty_import_reports_its_device():
    class Empty:
        __cuda_array_interface__ = {"shape": (0,), "typestr": "<f4", "data": (0, False), "version": 3}

    fake.fake_set_current(1)  # the producer's device is current, as with CuPy's Device(1)
    try:
        a = mv.from_cuda_array_interface(Empty())
    finally:
        fake.fake_set_current(-1)
    assert a.device == "cuda:1"
    p = Producer(4, None, device=1)
    assert mv.from_cuda_array_interface(p).device == "cuda:1"


def run_with(env, code):
    return subprocess.run([sys.executable, "-c", code], env=dict(os.environ, **env), capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("code, name, desc", [
    (803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "unsupported display driver"),
    (804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "forward compatibility"),
    (34, "CUDA_ERROR_STUB_LIBRARY", "stub library"),
])
def test_driver_errors_have_names(code, name, desc):
    r = run_with({"MEMVIEW_FAKE_INIT_RESULT": str(code)}, """
import memview as mv
assert not mv.cuda.is_available()
try:
    mv.zeros(3, device="cuda")
except mv.cuda.CUDAError as e:
    print(e)
""")
    assert r.returncode == 0, r.stderr
    assert f"{name} (CUresult {code}): " in r.stdout and desc in r.stdout, r.stdout


def test_a_kernel_module_that_does_not_load_says_why():
    r = run_with({"MEMVIEW_FAKE_PTX_FAIL": "1"}, """
import memview as mv
d = mv.zeros((4, 4), device="cuda")
try:
    d[::2, ::-1] = 1.0
except mv.cuda.CUDAError as e:
    print(e)
""")
    assert r.returncode == 0, r.stderr
    assert "CUDA_ERROR_INVALID_PTX" in r.stdout and "the fake's JIT error log" in r.stdout, r.stdout


def test_long_rows_move_by_2d_copies_to_and_from_the_host():
    host = np.arange(12 * 300.0).reshape(12, 300)
    d = mv.zeros((12, 400), device="cuda")
    c0, k0 = fake.fake_copies2d(), fake.fake_launches()
    d[:, 50:350] = host  # 12 rows of 2400 bytes, into a pitched device region
    back = np.zeros((12, 300))
    mv.from_buffer(back)[...] = d[:, 50:350]
    assert fake.fake_copies2d() == c0 + 2 and fake.fake_launches() == k0  # no kernel, no temporary
    assert np.array_equal(back, host)
    assert np.array_equal(consume(d)[:, 50:350], host) and (consume(d)[:, :50] == 0).all()
    d[:, ::3] = host[:, :134]  # short rows: staged, moved, and laid out by a kernel
    assert fake.fake_launches() > k0
    want = np.zeros((12, 400))
    want[:, 50:350] = host
    want[:, ::3] = host[:, :134]
    assert np.array_equal(consume(d), want)
