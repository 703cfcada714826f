"""The SimpleArray seed's running example, exactly as the seed gives it."""
import numpy as np

import memview as mv


def test_running_example():
    base = np.arange(24, dtype=np.float64).reshape(4, 6)
    view = base[::-1, ::2]
    arr = mv.from_buffer(view)
    assert arr.shape == (4, 3)
    assert arr.strides == (-48, 16)
    assert arr.ptr == view.ctypes.data  # element 0 is base + 18 elements
    assert arr.ptr - base.ctypes.data == 18 * 8
    arr[1, 2] = -1
    assert base[2, 4] == -1
    roundtrip = np.asarray(arr)
    roundtrip[3, 1] = -2
    assert base[0, 2] == -2
    assert np.shares_memory(base, roundtrip)
    assert arr.nbytes == 96
    assert arr.tolist() == view.tolist()
