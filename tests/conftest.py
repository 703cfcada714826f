"""Shared fixtures: every test must give back every byte and every handle."""
import gc

import pytest

import memview as mv


def _state():
    gc.collect()
    pool = mv.default_pool()
    return pool.bytes_allocated, pool.num_live, mv.live_handles()


@pytest.fixture(autouse=True)
def memory_comes_back():
    """Pool bytes, live allocations and live handles end where they started."""
    before = _state()
    yield
    after = _state()
    assert after == before, f"leak: (bytes, allocations, handles) {before} -> {after}"
