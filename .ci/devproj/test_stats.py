import numpy as np

import stats


def test_mean_and_scale_in_place():
    x = np.arange(4, dtype=np.float64)
    assert stats.Mean(x) == 1.5
    stats.Scale(x, 2.0)  # Go writes the NumPy array's own memory
    assert x.tolist() == [0.0, 2.0, 4.0, 6.0]
