"""memview.Pool and its wrappers: the memory pools allocations come from.

A Pool object names a Go memview.Pool by id; the statistics are Go's. Memory
always goes back to the pool it came from, whatever happens to the Pool object
or to the default pool meanwhile.
"""
from __future__ import annotations

import contextlib
import json
import sys

from . import _core

_LOGS: dict = {}  # logging pool id -> callable that receives its lines


def _pool_log(pool_id: int, line: str) -> None:
    """Called by C for each line of a logging pool (with the GIL)."""
    log = _LOGS.get(pool_id)
    if log is None:  # the LoggingPool object is gone; its memory is still freed
        print(line, file=sys.stderr)
    else:
        log(line)


_core.set_pool_log(_pool_log)


def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


class Pool:
    """A memory pool: where Go-owned memory comes from, with statistics (Arrow's
    MemoryPool). ``Pool("host")`` (slabs below 1 MiB, a mapping each from there),
    ``Pool("mmap")`` (a mapping per allocation) — both share the process-wide
    allocator of their backend but count their own statistics — or a CUDA device
    name (``"cuda:0"``, ``"cuda_host"``, ``"cuda_managed"``) for memory there.

    Pass ``pool=`` to empty, zeros, full, arange, copy, Buffer and Builder.
    Statistics count capacities (sizes rounded up to 64 bytes), as Arrow's do.
    """

    __slots__ = ("_id", "_inner", "__weakref__")

    def __init__(self, backend: str = "host"):
        if getattr(self, "_id", 0):
            raise TypeError("memview.Pool: the pool is already made")
        if not isinstance(backend, str):
            raise TypeError(f"memview.Pool: backend must be a str such as 'host' or 'mmap', not {backend!r}")
        self._inner = None
        self._id = _core.pool_new(_core.POOL_BACKEND, backend)

    @classmethod
    def _adopt(cls, pool_id: int) -> Pool:
        p = object.__new__(cls)
        p._id, p._inner = pool_id, None
        return p

    def __del__(self):
        pool_id = getattr(self, "_id", 0)
        if pool_id:
            self._id = 0
            try:
                _LOGS.pop(pool_id, None)
                _core.pool_drop(pool_id)
            except (AttributeError, TypeError):
                pass  # at interpreter exit, when the module is already torn down

    def _stats(self):
        # A Pool made without __init__ (Pool.__new__) names no pool of its own:
        # id 0, the default pool.
        return _core.pool_stats(getattr(self, "_id", 0))

    @property
    def bytes_allocated(self) -> int:
        """Bytes allocated now and not yet freed."""
        return self._stats()[0]

    @property
    def max_memory(self) -> int:
        """The peak of bytes_allocated."""
        return self._stats()[1]

    @property
    def total_bytes_allocated(self) -> int:
        """Bytes of every allocation made, freed or not (growing a buffer counts
        what it grows by)."""
        return self._stats()[2]

    @property
    def num_allocations(self) -> int:
        """Number of allocations (and reallocations that grew) made."""
        return self._stats()[3]

    @property
    def num_live(self) -> int:
        """Number of allocations not yet freed."""
        return self._stats()[4]

    @property
    def backend_name(self) -> str:
        """The allocator beneath: "host", "mmap", "cuda", "cuda_host" or "cuda_managed"."""
        return self._stats()[5]

    @property
    def device(self) -> str:
        """Where the pool's memory lives."""
        return self._stats()[6]

    @property
    def inner(self) -> Pool | None:
        """The pool a wrapper allocates through (None for a backend pool)."""
        return self._inner

    def stats(self) -> dict:
        """Every statistic at once (one consistent reading)."""
        b, peak, total, count, live, backend, device = self._stats()
        return {"bytes_allocated": b, "max_memory": peak, "total_bytes_allocated": total,
                "num_allocations": count, "num_live": live, "backend_name": backend, "device": device}

    def __repr__(self):
        s = self.stats()
        where = "" if s["device"] == "cpu" else f", device={s['device']!r}"
        return (f"memview.{type(self).__name__}(backend={s['backend_name']!r}{where}: "
                f"{_size(s['bytes_allocated'])} in {s['num_live']} live allocations, "
                f"peak {_size(s['max_memory'])}, {_size(s['total_bytes_allocated'])} in "
                f"{s['num_allocations']} allocations in all)")


def _wrap(cls, kind: int, inner: Pool | None) -> Pool:
    if inner is None:
        inner = default_pool()
    elif not isinstance(inner, Pool):
        raise TypeError(f"memview.{cls.__name__}: inner must be a memview.Pool, not {type(inner).__name__!r}")
    p = object.__new__(cls)
    p._id, p._inner = 0, inner
    p._id = _core.pool_new(kind, None, inner._id)
    return p


class ProxyPool(Pool):
    """A pool that allocates through ``inner`` (default: the default pool) and
    counts what goes through it, while ``inner`` counts it too (Arrow's
    ProxyMemoryPool): the statistics of one part of a program."""

    __slots__ = ()

    def __init__(self, inner: Pool | None = None):
        pass  # made by __new__

    def __new__(cls, inner: Pool | None = None):
        return _wrap(cls, _core.POOL_PROXY, inner)


class LoggingPool(Pool):
    """A pool that allocates through ``inner`` and logs every allocation,
    reallocation and free — size, address, failures — one line each (Arrow's
    LoggingMemoryPool). ``log`` receives each line (default: print to stderr);
    frees after this object is gone go to stderr."""

    __slots__ = ()

    def __init__(self, inner: Pool | None = None, log=None):
        pass  # made by __new__

    def __new__(cls, inner: Pool | None = None, log=None):
        if log is not None and not callable(log):
            raise TypeError("memview.LoggingPool: log must be a callable that takes a str")
        p = _wrap(cls, _core.POOL_LOGGING, inner)
        if log is not None:
            _LOGS[p._id] = log
        return p


class CheckedPool(Pool):
    """A pool for leak hunting: it allocates through ``inner`` and records, for
    each allocation not yet freed, the Go call stack and the Python traceback
    that made it. ``leaks()`` lists them; ``assert_empty()`` raises
    AssertionError naming each one's origin. The test suite runs every test
    under one (see tests/conftest.py)."""

    __slots__ = ()

    def __init__(self, inner: Pool | None = None):
        pass  # made by __new__

    def __new__(cls, inner: Pool | None = None):
        return _wrap(cls, _core.POOL_CHECKED, inner)

    def leaks(self) -> list:
        """One report per live allocation: size, address, Go call site, Python traceback."""
        return json.loads(_core.pool_leaks(getattr(self, "_id", 0)))

    def assert_empty(self) -> None:
        """Raise AssertionError, with every leak's origin, unless all memory came back."""
        leaks = self.leaks()
        if leaks:
            raise AssertionError(f"memview: {len(leaks)} allocation(s) not freed:\n" + "\n".join(leaks))


_default = Pool._adopt(_core.pool_default())


def default_pool() -> Pool:
    """The pool allocations without ``pool=`` come from: the process-wide pool
    (MEMVIEW_DEFAULT_POOL picks its backend), unless set_default_pool chose
    another."""
    return _default


def set_default_pool(pool: Pool) -> Pool:
    """Make pool the default (for every thread) and return the previous default."""
    global _default
    if not isinstance(pool, Pool):
        raise TypeError(f"memview.set_default_pool: a memview.Pool is required, not {type(pool).__name__!r}")
    if pool.device != "cpu":
        raise ValueError(f"memview.set_default_pool: the default pool must be host memory, not {pool.device}")
    _core.pool_default(getattr(pool, "_id", 0))
    old, _default = _default, pool
    return old


@contextlib.contextmanager
def using_pool(pool: Pool):
    """Make pool the default inside a with block."""
    old = set_default_pool(pool)
    try:
        yield pool
    finally:
        set_default_pool(old)


def pool_id(pool, who: str) -> int:
    """The id C takes for a pool= argument (0: the default pool)."""
    if pool is None:
        return 0
    if not isinstance(pool, Pool):
        raise TypeError(f"{who}: pool must be a memview.Pool or None, not {type(pool).__name__!r}")
    return getattr(pool, "_id", 0)
