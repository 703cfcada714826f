"""Float, bool and string arguments of bound Go functions: converted in one place each
(pyext/gopy.c's mv_go_float_arg, mv_go_bool_arg and mv_go_str_arg, which the C
pybindgen writes calls: gopyext.check_params), as Python converts them, with the Go
function's name and the argument's in every error, and nothing reaching Go when the
conversion fails."""
import math

import numpy as np
import pytest

import memview as mv

if "gopkg" not in mv.go_packages():  # built in? (not just a directory of that name)
    pytest.skip("tests/gopkg is built in by the test build (python3 build.py test)", allow_module_level=True)
import gopkg  # noqa: E402
from memview._ext import go  # noqa: E402


class Floaty:
    def __float__(self):
        return 2.5


class Indexy:
    def __index__(self):
        return 7


class BadTruth:
    def __bool__(self):
        raise ZeroDivisionError("no truth here")


class BadFloat:
    def __float__(self):
        raise KeyError("no float here")


def test_float64_takes_what_float_takes():
    for v, want in [(1.5, 1.5), (-0.0, -0.0), (3, 3.0), (True, 1.0), (np.float32(0.5), 0.5),
                    (np.int64(-4), -4.0), (Floaty(), 2.5), (Indexy(), 7.0), (2**53 + 1, float(2**53 + 1)),
                    (math.inf, math.inf), (1e308, 1e308)]:
        got = gopkg.EchoFloat64(v)
        assert got == want and math.copysign(1, got) == math.copysign(1, want), (v, got)
        assert gopkg.EchoFloat64(v=v) == want
    assert math.isnan(gopkg.EchoFloat64(math.nan))


def test_float32_rounds_as_a_float32_array_stores():
    for v in (0.1, 1e-50, 3.4e38, 1e300, -1e300, 2**127 * 1.999, 16777217):
        with np.errstate(over="ignore"):  # NumPy warns of the infinity; the Go call does not
            want = float(np.float32(v))
        assert gopkg.EchoFloat32(v) == want == mv.full(1, v, "float32")[0], v
    assert math.isnan(gopkg.EchoFloat32(math.nan))


@pytest.mark.parametrize("echo", ["EchoFloat64", "EchoFloat32"])
def test_float_refusals_name_the_function_and_argument(echo):
    f = getattr(gopkg, echo)
    for bad, name in [("1.5", "str"), (None, "NoneType"), (b"1", "bytes"), ([1.0], "list"),
                      (1j, "complex"), (np.array([1.0, 2.0]), "ndarray")]:
        with pytest.raises(TypeError) as e:
            f(bad)
        assert str(e.value) == f"gopkg.{echo}() argument 'v' must be a real number, not '{name}'", e.value
    bits = 64 if echo == "EchoFloat64" else 32
    with pytest.raises(OverflowError, match=rf"gopkg\.{echo}\(\) argument 'v': Python integer 100000000000\.\.\. "
                                            rf"\(401 digits\) is too large to convert to float{bits}"):
        f(10**400)
    with pytest.raises(KeyError, match="no float here"):  # the object's own error, as float() raises it
        f(BadFloat())


def test_bool_takes_truth_and_raises_its_errors():
    for v, want in [(True, True), (False, False), (0, False), (2, True), ("", False), ("x", True),
                    (None, False), ([], False), ([0], True), (np.bool_(True), True), (np.array([0]), False)]:
        assert gopkg.EchoBool(v) is want, v
    with pytest.raises(ValueError, match="truth value of an array with more than one element"):
        gopkg.EchoBool(np.array([1, 2]))
    with pytest.raises(ZeroDivisionError, match="no truth here"):
        gopkg.EchoBool(BadTruth())


def test_bool_slice_element_refused_changes_nothing():
    """gopy's own helpers go through the same conversions (here Slice_bool_set): an
    object whose truth test raises used to reach Go as true, with the exception left set
    (SystemError)."""
    s = go.Slice_bool([False, True])
    with pytest.raises(ZeroDivisionError):
        s[0] = BadTruth()
    with pytest.raises(ValueError):
        s[1] = np.array([1, 2])
    assert list(mv.asarray(s).tolist()) == [False, True]
    s[0] = "non-empty"
    assert s[0] is True


def test_strings():
    for v in ("", "plain", "ünïcödé ✓", "🐍" * 100, "x" * 100_000):
        assert gopkg.EchoString(v) == v
        assert gopkg.StringLen(v) == len(v.encode())
    for bad, name in [(3, "int"), (b"bytes", "bytes"), (None, "NoneType"), (bytearray(b"x"), "bytearray")]:
        with pytest.raises(TypeError) as e:
            gopkg.EchoString(bad)
        assert str(e.value) == f"gopkg.EchoString() argument 'v' must be str, not '{name}'", e.value
    with pytest.raises(ValueError, match=r"gopkg\.EchoString\(\) argument 'v' contains a NUL character"):
        gopkg.EchoString("a\x00b")
    with pytest.raises(UnicodeEncodeError):
        gopkg.EchoString("lone \udc80 surrogate")


def test_string_slice_element_refused_changes_nothing():
    s = go.Slice_string(["a", "b"])
    with pytest.raises(TypeError, match=r"Slice_string_set\(\) argument 'value' must be str, not 'int'"):
        s[0] = 5
    with pytest.raises(ValueError, match="NUL character"):
        s[1] = "x\x00y"
    assert [s[0], s[1]] == ["a", "b"]


def test_nothing_leaks_from_refused_arguments():
    """Refusals in a loop leave no handle behind and every object's count where it was."""
    import sys
    obj = "held"
    before = sys.getrefcount(obj), mv.live_handles()
    for _ in range(2000):
        for f, bad in ((gopkg.EchoFloat64, obj), (gopkg.EchoString, 5), (gopkg.EchoBool, BadTruth())):
            try:
                f(bad)
            except (TypeError, ZeroDivisionError):
                pass
        assert gopkg.EchoString(obj) == obj
    assert (sys.getrefcount(obj), mv.live_handles()) == before
