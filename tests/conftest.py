"""Shared fixtures: every test must give back every byte and every handle.

Every test runs under a memview.CheckedPool made the default pool: a leak fails
the test with the Go call site and the Python traceback of each allocation
not freed.
"""
import gc
import os

import pytest

import memview as mv
from memview import _core
from memview._ext import _pyext


def _state(collect=True):
    if collect:
        gc.collect()
    pool = mv.default_pool()
    cuda = mv.cuda.pool_stats()  # device, pinned and managed pools (zeros without a GPU)
    return (pool.bytes_allocated, pool.num_live, mv.live_handles(),
            cuda["bytes_allocated"], cuda["num_live"], _pyext.NumHandles(),
            _core.blocks_stats()[2])  # blocks of the creation cache held by arrays


# MEMVIEW_TEST_POOL=plain runs every test under a plain host pool instead, the
# kind of pool the creation cache serves (pyext/core_blocks.c): small arrays are then
# made in C from cached blocks, as in a program that keeps the default pool.
# The leak check is the pool's statistics alone (they say what the user holds).
PLAIN = os.environ.get("MEMVIEW_TEST_POOL") == "plain"


_collected = False


@pytest.fixture(autouse=True)
def memory_comes_back():
    """Pool bytes, live allocations and live handles (host and CUDA pools, and
    gopy's handles of Go values) end where they started, and nothing allocated
    under the test's checked pool is left."""
    global _collected
    # the last test's check left the state collected: a full collection costs more
    # the more objects the session holds, and is needed only when something changed
    before = _state(collect=not _collected)
    _collected = True
    checked = mv.Pool("host") if PLAIN else mv.CheckedPool(mv.default_pool())
    outer = mv.set_default_pool(checked)
    try:
        yield checked
    finally:
        mv.set_default_pool(outer)
    def held():  # what the test's pool still holds
        return (checked.bytes_allocated, checked.num_live) != (0, 0) if PLAIN else checked.leaks()

    after = _state(collect=False)
    if after != before or held():  # garbage not yet collected, or a leak
        after = _state()
    if PLAIN:
        assert not held(), f"leak under the plain pool: {checked!r}"
    leaks = [] if PLAIN else held()
    assert not leaks, f"memview: {len(leaks)} allocation(s) not freed:\n" + "\n".join(leaks)
    assert after == before, (f"leak: (host bytes, host allocations, handles, CUDA bytes, CUDA allocations, "
                              f"gopy handles, cache blocks in use) {before} -> {after}")
