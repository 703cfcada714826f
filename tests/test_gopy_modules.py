"""Go packages of modules whose path ends in a major version (/vN), in a
subfolder of their module, bind --with (gopyext.local_version), under an
import name of their own (--with DIR=NAME: the test build binds Go package
moments as vstats)."""
import numpy as np
import pytest

import memview as mv

if "vstats" not in mv.go_packages():
    pytest.skip("tests/gopkgs/vmod/moments=vstats is built in by the test build (python3 build.py test)",
                allow_module_level=True)


def test_a_package_of_a_major_version_module():
    import vstats as moments

    r = mv.go_packages()["vstats"]
    assert r["path"] == "example.com/mvtest/vmod/v2/moments"
    assert (r["functions"], r["bound"], r["fast"], r["left_out"]) == (2, 2, 2, {})
    x = np.array([1.0, 2.0, 4.0, 9.0])
    mean, var, skew = moments.Moments(x)
    d = x - x.mean()
    assert (mean, var) == (x.mean(), x.var())
    assert skew == pytest.approx((d**3).mean() / x.var() ** 1.5)
    assert moments.Version() == 2


def test_one_module_under_its_import_name():
    import vstats

    import memview._ext.moments as ext
    assert ext is vstats and "moments" not in mv.go_packages()
