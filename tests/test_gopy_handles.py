"""Arguments gopy's wrappers pass to Go by handle (structs, pointers, interfaces, slices
other than those memview lends, each element of a variadic parameter of such a type):
anything that is no gopy object is a TypeError naming the function, the argument and
its Go type (gopy's wrapper failed with AttributeError: 'int' object has no attribute
'handle'), and Go does not run; gopy objects pass as before."""
import pytest

import memview as mv

if "gopkg" not in mv.go_packages():  # built in? (not just a directory of that name)
    pytest.skip("tests/gopkg is built in by the test build (python3 build.py test)", allow_module_level=True)
import gopkg  # noqa: E402
from memview._ext import go  # noqa: E402


def test_gopy_objects_pass():
    b, c = gopkg.NewBox(2), gopkg.NewBox(3)
    assert gopkg.BoxN(b) == 2 and gopkg.BoxN(b=c) == 3
    assert b.Add(c) == 5 and b.N == 5
    assert gopkg.Stringify(b) == "box(5)"
    assert gopkg.Join(go.Slice_string(["a", "b"])) == "a,b"
    assert gopkg.CountBoxes() == 0 and gopkg.CountBoxes(b, c) == 8
    del b, c


@pytest.mark.parametrize("call, where", [
    (lambda b: gopkg.BoxN(5), "gopkg.BoxN() argument 'b' must be a gopy object of Go type *"),
    (lambda b: gopkg.BoxN(b=None), "gopkg.BoxN() argument 'b' must be a gopy object of Go type *"),
    (lambda b: b.Add("x"), "gopkg.Box.Add() argument 'o' must be a gopy object of Go type *"),
    (lambda b: gopkg.Stringify(3.5), "gopkg.Stringify() argument 's' must be a gopy object of Go type fmt.Stringer"),
    (lambda b: gopkg.Join(["a", "b"]), "gopkg.Join() argument 'parts' must be a gopy object of Go type []string"),
    (lambda b: gopkg.CountBoxes(b, 7), "gopkg.CountBoxes() argument 'boxes' must be a gopy object of Go type *"),
])
def test_what_is_no_gopy_object_is_a_type_error(call, where):
    b = gopkg.NewBox(4)
    with pytest.raises(TypeError) as e:
        call(b)
    assert str(e.value).startswith(where), e.value
    assert type(e.value.__context__) is not AttributeError
    assert b.N == 4   # Go did not run
    del b


def test_memory_go_keeps_lives_as_long_as_the_go_value():
    """A Go function may keep a []T it was lent (a constructor storing it): the array
    lent stays alive with the Go value returned, or the receiver of a method, instead
    of being freed under Go (which then read whatever reused the memory)."""
    import gc
    import weakref

    import numpy as np

    k = gopkg.KeepSlice(np.arange(6.0) + 100)          # the only reference is Go's
    m = gopkg.KeepSlice(mv.full(6, 105.0))
    junk = [np.full(6, -1.0) for _ in range(200)] + [mv.full(6, -1.0) for _ in range(200)]
    assert k.At(5) == 105.0 and m.At(3) == 105.0
    first = np.full(4, 7.0)
    ref = weakref.ref(first)
    k.Reset(first)
    del first
    gc.collect()
    assert ref() is not None and k.At(3) == 7.0      # kept by the receiver
    k.Reset(np.full(4, 8.0))                         # a later call through Reset replaces it
    gc.collect()
    assert ref() is None and k.At(0) == 8.0
    del k, m, junk
