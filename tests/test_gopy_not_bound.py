"""A Go package with generic types and functions, type constraints, type aliases,
fields of generic types, and names that are Python keywords builds with memview (gopy
stops on each of them, or writes a module Python cannot import): the build hides
exactly those from gopy (tools/gopysig/hide.go, through a build overlay and the
package driver in tools/gopysig/driver.go) and binds everything else, including the
functions that take or return an alias (as the type it names: unalias.go there)."""
import numpy as np
import pytest

import memview as mv

if "gopkg" not in mv.go_packages():  # built in? (not just a directory of that name)
    pytest.skip("tests/gopkg is built in by the test build (python3 build.py test)", allow_module_level=True)
import gopkg  # noqa: E402

NOT_BOUND = ["Number", "Pair", "SumOf", "MakePair", "Celsius", "Readings", "Span", "Temps", "None", "True"]


def test_what_gopy_cannot_bind_is_absent():
    for name in NOT_BOUND:
        assert not hasattr(gopkg, name), name
        assert not hasattr(gopkg, "_" + name), name   # nor under the name the overlay gave it
    t = gopkg.Tally()
    assert not hasattr(t, "Last") and not hasattr(t, "Ptr")


def test_functions_of_aliases_take_the_types_they_name():
    assert gopkg.Warmer(1.5) == 2.5
    with pytest.raises(TypeError, match="Warmer"):
        gopkg.Warmer("1.5")
    # A []float64 behind an alias takes NumPy and memview arrays without a copy, as
    # a plain []float64 parameter does: Go's writes land in the array.
    a = np.arange(4.0)
    assert gopkg.Offset(a, 0.5) == 8.0
    assert a.tolist() == [0.5, 1.5, 2.5, 3.5]
    m = mv.arange(3.0)
    assert gopkg.Offset(m, 1.0) == 6.0
    assert m.tolist() == [1.0, 2.0, 3.0]


def test_what_is_bound_works():
    t = gopkg.Tally()
    assert (t.Hit(), t.Hit()) == (1, 2)
    assert t.Hits == 2 and t.LastKey() == 2   # the hidden field is still there, in Go
    t.Hits = 10
    assert t.Hit() == 11
    n = gopkg.Named()
    n.Key, n.Val = "k", "v"
    assert (n.Key, n.Val) == ("k", "v")
    del t, n


def test_names_that_are_python_keywords_are_left_out():
    f = gopkg.Flags()
    assert not hasattr(f, "False") and not hasattr(f, "None")
    f.Set = 5
    assert f.Count() == 5   # Go reaches the hidden field and method as written
    del f


def test_aliases_wherever_an_api_has_them():
    """Each alias is spelled out for gopy as the type it names
    (tools/gopysig/unalias.go): another package's type (time.Duration, in a file
    that does not import time), an alias of an alias, any, struct fields and a
    variable and a constant whose types their values give."""
    assert gopkg.Twice(21) == 42
    assert gopkg.MeanOf(np.array([1.0, 2.0, 6.0])) == 3.0
    assert gopkg.KindOf("x") == "string"   # gopy passes any (interface{}) as a str
    with pytest.raises(TypeError, match="KindOf"):
        gopkg.KindOf(1)
    assert gopkg.Limit() == 40.0 and gopkg.Freezing == 0.0
    t = gopkg.Thermo()
    t.Now, t.Every = 2.5, 7
    assert (t.Now, t.Every) == (2.5, 7)
    del t
    for name in ("Temps", "Span"):
        assert not hasattr(gopkg, name)
