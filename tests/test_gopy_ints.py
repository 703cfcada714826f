"""Integer arguments of bound Go functions: each Go integer type takes exactly
its range (both ends included) from Python ints and from anything with
__index__, and refuses the rest before Go runs — in one place, pyext/gopy.c's
mv_go_int_arg, which the C pybindgen writes calls (gopyext.check_params).
The refusals themselves are rows of the bad-input catalogue
(tests/test_bad_inputs_go.py)."""
import pathlib

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


def test_named_integer_results_are_instances_of_the_int_subclass():
    """A result of a named integer type is an instance of the package's int
    subclass, as its constants are; with one other result, the tuple holds
    one; two such results stay plain ints, as the stub says."""
    assert issubclass(gopkg.Level, int) and isinstance(gopkg.High, gopkg.Level)
    for n, want in ((-1, gopkg.Low), (3, gopkg.Medium), (11, gopkg.High)):
        got = gopkg.LevelOf(n)
        assert type(got) is gopkg.Level and got == want and repr(got) == repr(want)
    r = gopkg.Raise(gopkg.Low)
    assert type(r) is gopkg.Level and r == gopkg.Medium and repr(r) == "gopkg.Medium"
    assert gopkg.Raise(2) is not None and type(gopkg.Raise(2)) is gopkg.Level
    with pytest.raises(gopkg.ErrNotALevel, match="not a level"):
        gopkg.Raise(7)
    level, count = gopkg.LevelAndCount(4)
    assert type(level) is gopkg.Level and level == gopkg.Medium and type(count) is int and count == 4
    both = gopkg.Levels(0, 20)
    assert both == (0, 2) and all(type(x) is int for x in both)
    stub = (pathlib.Path(mv.__file__).parent.parent / "gopkg" / "__init__.pyi").read_text()
    assert "def LevelOf(n: int) -> Level: ..." in stub
    assert "def LevelAndCount(n: int) -> tuple[Level, int]: ..." in stub
    assert "def Levels(a: int, b: int) -> tuple[int, int]: ..." in stub
