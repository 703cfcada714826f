"""Pools you choose: mv.Pool(backend), pool= on every function that allocates,
the proxy, logging and checked wrappers, and the default pool."""
import gc
import inspect
import re
import sys

import numpy as np
import pytest

import memview as mv


def _line():
    return inspect.currentframe().f_back.f_lineno


@pytest.mark.parametrize("backend", ["host", "mmap"])
def test_backend_pools(backend):
    p = mv.Pool(backend)
    assert p.backend_name == backend and p.device == "cpu" and p.inner is None
    assert p.stats() == {"bytes_allocated": 0, "max_memory": 0, "total_bytes_allocated": 0,
                         "num_allocations": 0, "num_live": 0, "backend_name": backend, "device": "cpu"}
    a = mv.empty((10, 10), pool=p)  # 800 bytes -> capacity 832
    assert (p.bytes_allocated, p.num_live, p.num_allocations, p.max_memory) == (832, 1, 1, 832)
    assert re.fullmatch(rf"memview\.Pool\(backend='{backend}': 832 B in 1 live allocations, "
                        r"peak 832 B, 832 B in 1 allocations in all\)", repr(p)), repr(p)
    del a
    gc.collect()
    assert p.bytes_allocated == 0 and p.total_bytes_allocated == 832


def test_pool_cannot_be_made_twice():
    p = mv.Pool()
    with pytest.raises(TypeError):
        p.__init__("mmap")
    assert p.backend_name == "host"


def test_repr_sizes():
    p = mv.Pool()
    bufs = [mv.Buffer(3 << 20, pool=p)]
    assert "3.0 MiB in 1 live allocations" in repr(p)
    del bufs


@pytest.mark.parametrize("backend, exc", [("jemalloc", ValueError), ("", ValueError), (3, TypeError),
                                          (None, TypeError), ("cuda:x", ValueError)])
def test_bad_backends(backend, exc):
    with pytest.raises(exc):
        mv.Pool(backend)


@pytest.mark.skipif(mv.cuda.is_available(), reason="checks the behaviour without a CUDA driver")
def test_device_pools_need_a_driver():
    with pytest.raises(mv.cuda.CUDAError):
        mv.Pool("cuda:0")


ALLOCATORS = {
    "empty": lambda p: mv.empty(5, "int32", pool=p),
    "zeros": lambda p: mv.zeros((2, 3), pool=p),
    "full": lambda p: mv.full(4, 2.5, pool=p),
    "arange": lambda p: mv.arange(10, pool=p),
    "copy": lambda p: mv.arange(10).copy(pool=p),
    "copy F": lambda p: mv.arange(12.0).reshape(3, 4).copy("F", pool=p),
    "Buffer": lambda p: mv.Buffer(100, pool=p),
    "Buffer from bytes": lambda p: mv.Buffer(b"abc", pool=p),
    "resizable Buffer": lambda p: mv.Buffer(b"abc", pool=p, resizable=True),
    "Builder": lambda p: _built(p),
}


def _built(p):
    b = mv.Builder("int16", pool=p)
    b.extend(range(5))
    return b.finish()


@pytest.mark.parametrize("name", list(ALLOCATORS))
def test_pool_argument_everywhere(name):
    p = mv.Pool("mmap")
    default = mv.default_pool()
    before = default.num_allocations
    x = ALLOCATORS[name](p)
    assert p.num_live == 1 and p.num_allocations == 1
    assert default.num_allocations - before <= 1  # only a temporary source, not the result
    del x
    gc.collect()
    assert p.num_live == 0
    with pytest.raises(TypeError):
        ALLOCATORS[name]("mmap")


def test_pool_on_another_device_is_refused():
    p = mv.Pool()
    with pytest.raises(ValueError, match="allocates on cpu"):
        mv.empty(3, device="cuda", pool=p)
    with pytest.raises(ValueError):
        mv.arange(3.0).to("cuda_host", pool=p)
    assert p.num_allocations == 0


def test_proxy_pool():
    inner = mv.Pool()
    proxy = mv.ProxyPool(inner)
    assert proxy.inner is inner and proxy.backend_name == "host"
    a = mv.empty(100, "uint8", pool=inner)      # 128 in inner only
    b = mv.Buffer(10, pool=proxy, resizable=True)  # 64 in both
    b.resize(200)                                 # -> 256 in both
    assert (proxy.bytes_allocated, proxy.num_allocations, proxy.num_live) == (256, 2, 1)
    assert (inner.bytes_allocated, inner.num_allocations, inner.num_live) == (384, 3, 2)
    assert repr(proxy).startswith("memview.ProxyPool(backend='host': 256 B in 1 live")
    del a, b
    gc.collect()
    assert proxy.bytes_allocated == inner.bytes_allocated == 0
    assert mv.ProxyPool().inner is mv.default_pool()
    with pytest.raises(TypeError):
        mv.ProxyPool("host")


def test_logging_pool_lines():
    lines = []
    p = mv.LoggingPool(mv.Pool(), log=lines.append)
    b = mv.Buffer(100, pool=p, resizable=True)
    addr = b.address
    b.resize(1000)
    addr2 = b.address
    b.release()
    assert lines == [f"memview: host: allocate 128 bytes at {addr:#x}",
                     f"memview: host: reallocate 128 bytes at {addr:#x} to 1024 bytes at {addr2:#x}",
                     f"memview: host: free 1024 bytes at {addr2:#x}"]
    assert p.num_live == 0 and p.total_bytes_allocated == 1024
    with pytest.raises(TypeError):
        mv.LoggingPool(log="stderr")


def test_logging_pool_default_is_stderr(capfd):
    p = mv.LoggingPool()
    a = mv.empty(3, pool=p)
    del a
    gc.collect()
    err = capfd.readouterr().err
    assert re.search(r"memview: host: allocate 64 bytes at 0x[0-9a-f]+\n.*free 64 bytes at", err), err


def test_logging_callback_errors_do_not_break_allocation(monkeypatch):
    def bad(line):
        raise RuntimeError("log failed")
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", seen.append)
    p = mv.LoggingPool(log=bad)
    a = mv.empty(3, pool=p)
    assert a.tolist() == [0.0, 0.0, 0.0]
    del a
    gc.collect()
    assert [str(u.exc_value) for u in seen] == ["log failed", "log failed"]
    assert p.num_live == 0


def test_logging_callback_may_allocate():
    """A log function that itself allocates from the same pool is not logged
    again (no recursion)."""
    seen = []

    def log(line):
        seen.append(line)
        mv.empty(2, pool=p)
    p = mv.LoggingPool(log=log)
    a = mv.empty(3, pool=p)
    del a
    gc.collect()
    assert len(seen) == 2 and p.num_live == 0


def test_checked_pool_reports_the_origin():
    p = mv.CheckedPool()
    kept = mv.zeros(7, pool=p); line = _line()  # noqa: E702
    freed = mv.empty(3, pool=p)
    del freed
    leaks = p.leaks()
    assert len(leaks) == 1
    report = leaks[0]
    assert report.startswith("memview: leak of 64 bytes at ")
    assert "pyext.mvgo_empty" in report and "memview.Empty" in report  # the Go call site
    assert f'File "{__file__}", line {line}, in test_checked_pool_reports_the_origin' in report
    with pytest.raises(AssertionError, match=rf"(?s)1 allocation\(s\) not freed:\n.*line {line}"):
        p.assert_empty()
    del kept
    p.assert_empty()


def test_checked_pool_origin_of_allocations_without_the_gil():
    """A copy of 64 KiB or more allocates without the GIL: the traceback is still
    the Python caller's."""
    p = mv.CheckedPool()
    src = mv.arange(1 << 14, dtype="float64")
    c = src.copy(pool=p); line = _line()  # noqa: E702
    assert f"line {line}, in test_checked_pool_origin_of_allocations_without_the_gil" in p.leaks()[0]
    del c


def test_default_pool(memory_comes_back):
    # the suite's fixture made a checked pool the default for this test
    assert mv.default_pool() is memory_comes_back
    p = mv.Pool()
    with mv.using_pool(p) as q:
        assert q is p and mv.default_pool() is p
        a = mv.empty(3)
        b = mv.arange(4).copy()
    assert mv.default_pool() is memory_comes_back
    assert p.num_live == 2
    del a, b  # memory goes back to the pool it came from
    gc.collect()
    assert p.num_live == 0
    old = mv.set_default_pool(p)
    try:
        assert old is memory_comes_back
    finally:
        mv.set_default_pool(old)
    with pytest.raises(TypeError):
        mv.set_default_pool("host")


def test_pool_object_may_go_before_its_memory():
    p = mv.LoggingPool(mv.Pool(), log=lambda line: None)
    a = mv.empty(3, pool=p)
    inner = p.inner
    del p
    gc.collect()
    a[0] = 1.0  # the memory is alive, the pool too (in Go)
    del a
    gc.collect()
    assert inner.num_live == 0


def test_live_handles_count_buffers_and_builders():
    n = mv.live_handles()
    b = mv.Buffer(1)
    bl = mv.Builder()
    assert mv.live_handles() == n + 2
    del b, bl
    gc.collect()
    assert mv.live_handles() == n


def test_numpy_sees_pool_memory():
    p = mv.Pool()
    a = mv.full((2, 2), 3.0, pool=p)
    n = np.asarray(a)
    assert n.ctypes.data == a.ptr and n.sum() == 12.0
    del a, n
    gc.collect()
    assert p.num_live == 0


def test_stderr_fallback_after_the_logger_is_gone(capfd):
    p = mv.LoggingPool(log=lambda line: None)
    a = mv.empty(2, pool=p)
    p.__del__()  # the logging function is dropped with the object
    del a
    gc.collect()
    assert re.search(r"memview: host: free 64 bytes at 0x[0-9a-f]+", capfd.readouterr().err)


def test_core_functions_check_their_arguments():
    from memview import _core
    b = mv.Buffer(8)
    bl = mv.Builder()
    for call, exc in [
        (lambda: _core.buffer_slice(3, 0, 1, False), TypeError),
        (lambda: _core.buffer_view(b, "float64", (1,), "x", 0), TypeError),
        (lambda: _core.buffer_view(b, "float64", [1], None, 0), TypeError),
        (lambda: _core.buffer_view(b, "float64", (1,), (8, 8), 0), ValueError),
        (lambda: _core.buffer_resize(object(), 1, True, False), TypeError),
        (lambda: _core.buffer_on(b, "tpu", True, 0), ValueError),
        (lambda: _core.buffer_new(1, 1 << 40, False), ValueError),  # no pool with that id
        (lambda: _core.buffer_new(1, -1, False), OverflowError),
        (lambda: _core.buffer_from(3, 0, True), TypeError),
        (lambda: _core.buffer_release(3), TypeError),
        (lambda: _core.array_on(3, "cpu"), TypeError),
        (lambda: _core.array_on(mv.arange(2), "tpu"), ValueError),
        (lambda: _core.builder_append(3, 1), TypeError),
        (lambda: _core.builder_extend(bl, 3), TypeError),
        (lambda: _core.builder_extend_buffer(bl, 3), TypeError),
        (lambda: _core.builder_extend_buffer(bl, b"abc"), TypeError),  # 1-byte items into float64
        (lambda: _core.builder_new("float64", 0, 3), TypeError),
        (lambda: _core.builder_new("nope", 0, len), TypeError),
        (lambda: _core.pool_stats("x"), TypeError),
        (lambda: _core.pool_stats(1 << 40), ValueError),
        (lambda: _core.pool_leaks(1 << 40), ValueError),
        (lambda: _core.pool_new(9, None, 0), ValueError),
        (lambda: _core.pool_new(_core.POOL_CHECKED, None, 1 << 40), ValueError),
        (lambda: _core.pool_default(1 << 40), ValueError),
        (lambda: _core.set_pool_log(3), TypeError),
        (lambda: _core.set_builder_type(int), TypeError),
    ]:
        with pytest.raises(exc):
            call()
    _core.pool_drop(1 << 40)  # forgetting an unknown id is harmless
    assert bytes(b) == bytes(8) and len(bl) == 0
