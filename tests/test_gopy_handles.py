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
