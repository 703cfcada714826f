"""Copies too large for the cache stream their stores (pyext/ops_host.c,
mv_copy_stream): every byte must land, whatever the target's alignment, and
memory must come back."""
import numpy as np
import pytest

import memview as mv

STREAM_MIN = 32 << 20  # mv_stream_min's floor; a larger last-level cache raises it


def _stream_size():
    return max(STREAM_MIN, 3 * _l3() // 4) + (5 << 10) + 3


def _l3():
    import os
    try:
        return os.sysconf("SC_LEVEL3_CACHE_SIZE")
    except (ValueError, OSError):
        return 0


@pytest.mark.parametrize("offset", [0, 1, 3, 8, 15])
def test_streamed_copy_of_every_byte(offset):
    n = _stream_size()
    rng = np.random.default_rng(offset)
    src = rng.integers(0, 256, n, dtype=np.uint8)
    with mv.zeros(n + 32, "uint8") as a:
        view = a[offset:offset + n]  # dense, at any alignment
        view[:] = src
        got = np.asarray(a)
        assert np.array_equal(got[offset:offset + n], src)
        assert not got[:offset].any() and not got[offset + n:].any()
        del got
        view.release()


def test_streamed_copy_between_memview_arrays():
    n = _stream_size() // 8 + 1
    with mv.arange(n, dtype="float64") as b, mv.zeros(n) as a:
        a[...] = b
        assert np.array_equal(np.asarray(a), np.arange(n, dtype="float64"))
