"""Shared fixtures: every test must give back every byte and every handle.

Every test runs under a memview.CheckedPool made the default pool: a leak fails
the test with the Go call site and the Python traceback of each allocation
not freed.
"""
import gc

import pytest

import memview as mv
from memview._ext import _pyext


def _state():
    gc.collect()
    pool = mv.default_pool()
    cuda = mv.cuda.pool_stats()  # device, pinned and managed pools (zeros without a GPU)
    return (pool.bytes_allocated, pool.num_live, mv.live_handles(),
            cuda["bytes_allocated"], cuda["num_live"], _pyext.NumHandles())


@pytest.fixture(autouse=True)
def memory_comes_back():
    """Pool bytes, live allocations and live handles (host and CUDA pools, and
    gopy's handles of Go values) end where they started, and nothing allocated
    under the test's checked pool is left."""
    before = _state()
    checked = mv.CheckedPool(mv.default_pool())
    outer = mv.set_default_pool(checked)
    try:
        yield checked
    finally:
        mv.set_default_pool(outer)
    after = _state()
    leaks = checked.leaks()
    assert not leaks, f"memview: {len(leaks)} allocation(s) not freed:\n" + "\n".join(leaks)
    assert after == before, (f"leak: (host bytes, host allocations, handles, CUDA bytes, CUDA allocations, "
                              f"gopy handles) {before} -> {after}")
