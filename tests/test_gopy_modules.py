"""Go packages of modules whose path ends in a major version (/vN), in a
subfolder of their module, bind --with (gopyext.local_version)."""
import numpy as np
import pytest

import memview as mv

if "moments" not in mv.go_packages():
    pytest.skip("tests/gopkgs/vmod/moments is built in by the test build (python3 build.py test)",
                allow_module_level=True)


def test_a_package_of_a_major_version_module():
    import moments

    assert mv.go_packages()["moments"] == "example.com/mvtest/vmod/v2/moments"
    x = np.array([1.0, 2.0, 4.0, 9.0])
    mean, var, skew = moments.Moments(x)
    d = x - x.mean()
    assert (mean, var) == (x.mean(), x.var())
    assert skew == pytest.approx((d**3).mean() / x.var() ** 1.5)
    assert moments.Version() == 2
