"""Shared fixtures: every test must give back every byte and every handle."""
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
    gopy's handles of Go values) end where they started."""
    before = _state()
    yield
    after = _state()
    assert after == before, (f"leak: (host bytes, host allocations, handles, CUDA bytes, CUDA allocations, "
                              f"gopy handles) {before} -> {after}")
