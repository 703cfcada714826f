"""The examples' tests check, after each test, that memory came back: memview's
pool, its array handles, and gopy's handles of Go values."""
import gc

import pytest

import memview as mv
from memview._ext import _pyext


def _state():
    gc.collect()
    pool = mv.default_pool()
    return pool.bytes_allocated, pool.num_live, mv.live_handles(), _pyext.NumHandles()


@pytest.fixture(autouse=True)
def memory_comes_back():
    before = _state()
    yield
    after = _state()
    assert after == before, f"leak: (pool bytes, pool allocations, array handles, gopy handles) {before} -> {after}"
