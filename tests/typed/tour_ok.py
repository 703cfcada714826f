"""A typed use of the bound Go package tour (tests/gopkgs/tour): mypy passes it
against the stub the build writes (as Python 3.12 and later: numpy declares
its arrays buffers there)."""
import numpy as np

import tour

h: int = tour.Hash(b"abc")
lo, hi = tour.MinMax(np.array([1.0, 2.0]))
total: float = lo + hi + tour.Mean(np.array([1.0])) + tour.Scale
n: int = tour.Round(2.5, tour.Ceil) + tour.Round(2.5, 1)
p: tour.Point = tour.Point(X=1.0, Y=2.0).Scaled(2.0)
inside: bool = tour.Within(1.0, from_=0.0, to=2.0)
try:
    tour.Check(0)
except tour.ErrEmpty as e:
    err: RuntimeError = e
