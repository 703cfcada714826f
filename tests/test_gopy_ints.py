"""Integer arguments of bound Go functions: each Go integer type takes exactly
its range (both ends included) from Python ints and from anything with
__index__, and refuses the rest before Go runs — in one place, pyext/gopy.c's
mv_go_int_arg, which the C pybindgen writes calls (gopyext.check_params).
The refusals themselves are rows of the bad-input catalogue
(tests/test_bad_inputs_go.py)."""
import numpy as np
import pytest

import memview as mv

if "gopkg" not in mv.go_packages():  # built in? (not just a directory of that name)
    pytest.skip("tests/gopkg is built in by the test build (python3 build.py test)", allow_module_level=True)
import gopkg  # noqa: E402
from memview._ext import go  # noqa: E402

RANGES = {"Int8": (-2**7, 2**7 - 1), "Int16": (-2**15, 2**15 - 1), "Int32": (-2**31, 2**31 - 1),
          "Int64": (-2**63, 2**63 - 1), "Int": (-2**63, 2**63 - 1), "Rune": (-2**31, 2**31 - 1),
          "Uint8": (0, 2**8 - 1), "Byte": (0, 2**8 - 1), "Uint16": (0, 2**16 - 1), "Uint32": (0, 2**32 - 1),
          "Uint64": (0, 2**64 - 1), "Uint": (0, 2**64 - 1), "Uintptr": (0, 2**64 - 1)}


@pytest.mark.parametrize("name", list(RANGES))
def test_each_go_integer_type_takes_its_whole_range(name):
    echo = getattr(gopkg, "Echo" + name)
    lo, hi = RANGES[name]
    for v in (lo, lo + 1, 0, 1, hi - 1, hi):
        assert echo(v) == v
        assert echo(v=v) == v
    assert echo(np.int8(-5 if lo < 0 else 5)) == (-5 if lo < 0 else 5)  # __index__, as NumPy's own ints
    if hi >= 200:
        assert echo(np.uint8(200)) == 200
    with pytest.raises(OverflowError, match=f"Python integer {hi + 1} out of bounds"):
        echo(hi + 1)
    with pytest.raises(OverflowError, match=f"Python integer {lo - 1} out of bounds"):
        echo(lo - 1)


@pytest.mark.skipif("rgbimage" not in mv.go_packages(), reason="examples/rgbimage is not built in")
def test_a_refused_pixel_writes_nothing():
    import rgbimage
    im = rgbimage.New(2, 1)
    for args in ((0, 0, 300, 1, 1), (0, 0, 1, -1, 1), (0, 0, 1, 1, 1000), (1, 0, 1, 2, 2**64)):
        with pytest.raises(OverflowError, match="out of bounds for uint8"):
            im.SetPixel(*args)
    assert mv.asarray(im).tolist() == [[[0, 0, 0], [0, 0, 0]]]  # nothing wrapped, nothing written
    im.SetPixel(1, 0, 255, 0, 128)
    assert mv.asarray(im).tolist() == [[[0, 0, 0], [255, 0, 128]]]


def test_gopy_slice_elements_are_converted_the_same_way():
    s = go.Slice_uint8([0, 255])
    assert mv.asarray(s).tolist() == [0, 255]
    with pytest.raises(OverflowError, match=r"Slice_uint8_set\(\) argument 'value': Python integer 256"):
        s[0] = 256
    assert mv.asarray(s).tolist() == [0, 255]
    u = go.Slice_uint64([2**64 - 1])
    assert u[0] == 2**64 - 1
    i = go.Slice_int64([-2**63])
    assert i[0] == -2**63
