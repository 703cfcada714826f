"""A bound Go package as Python presents it (tests/gopkgs/tour): Go's
parameter names in signatures and keywords, docstrings with the typed and the
Go signature and the Go doc comment, and Go's sentinel errors as exception
classes that bound calls raise."""
import inspect
import os
import pickle

import numpy as np
import pytest

import memview as mv

if "tour" not in mv.go_packages():
    pytest.skip("tests/gopkgs/tour is built in by the test build (python3 build.py test)", allow_module_level=True)
import tour  # noqa: E402

GOPY_PATH = os.environ.get("MEMVIEW_GOPY_PATH") == "1"


def test_signatures_have_go_names():
    assert str(inspect.signature(tour.Hash)) == "(b)"
    assert str(inspect.signature(tour.Mean)) == "(xs)"
    assert str(inspect.signature(tour.MinMax)) == "(xs)"
    assert str(inspect.signature(tour.Round)) == "(x, m)"
    # Python keywords get a trailing _
    assert str(inspect.signature(tour.Within)) == "(x, from_, to)"
    # unnamed parameters are positional-only argN
    assert str(inspect.signature(tour.Pick)) == "(arg0, arg1, /)"
    # a method: self first
    assert list(inspect.signature(tour.Point.Scaled).parameters) == ["self", "f"]


def test_builtin_entries_carry_a_text_signature():
    if GOPY_PATH:
        pytest.skip("gopy's path: Python functions")
    assert tour.Hash.__text_signature__ == "($module, b)"
    assert tour.Within.__text_signature__ == "($module, x, from_, to)"
    assert tour.Pick.__text_signature__ == "($module, arg0, arg1, /)"


def test_keywords_work_by_go_names():
    b = bytearray(b"abc")  # (gopy's path takes no read-only buffer)
    assert tour.Hash(b=b) == tour.Hash(b) == 0xe71fa2190541574b  # FNV-1a 64 of "abc"
    assert tour.Within(1.0, from_=0.0, to=2.0) is True
    assert tour.Within(x=3.0, from_=0.0, to=2.0) is False
    assert tour.Mean(xs=np.array([1.0, 2.0, 6.0])) == 3.0
    assert tour.MinMax(xs=np.array([4.0, -1.0, 2.0])) == (-1.0, 4.0)
    assert tour.Round(x=2.5, m=tour.Ceil) == 3
    # not the names gopy gave them
    with pytest.raises(TypeError):
        tour.Within(1.0, myfrom=0.0, to=2.0)
    # positional-only: no keyword
    assert tour.Pick(np.zeros(3), 2) == 0.0
    with pytest.raises(TypeError):
        tour.Pick(arg0=np.zeros(3), arg1=2)


def test_docstrings():
    doc = tour.Hash.__doc__
    lines = doc.splitlines()
    assert lines[0] == "Hash(b: Buffer | None) -> int"
    assert lines[1] == "func Hash(b []byte) uint64"
    assert "Hash returns the 64-bit FNV-1a hash of b." in doc
    assert "[]int" not in doc and "long" not in doc
    assert tour.Mean.__doc__.splitlines()[:2] == ["Mean(xs: Buffer | None) -> float",
                                                  "func Mean(xs []float64) (float64, error)"]
    assert tour.MinMax.__doc__.splitlines()[0] == "MinMax(xs: Buffer | None) -> tuple[float, float]"
    assert tour.Within.__doc__.splitlines()[0] == "Within(x: float, from_: float, to: float) -> bool"
    assert tour.Pick.__doc__.splitlines()[0] == "Pick(arg0: Buffer | None, arg1: int, /) -> float"
    assert "func (p Point) Scaled(f float64) Point" in tour.Point.Scaled.__doc__
    assert "Scaled returns p with both coordinates multiplied by f." in tour.Point.Scaled.__doc__


def test_sentinel_errors_are_exception_classes():
    for name in ("ErrEmpty", "ErrRange", "EmptyInputErr"):
        cls = getattr(tour, name)
        assert isinstance(cls, type) and issubclass(cls, tour.Error) and issubclass(cls, RuntimeError)
    assert tour.Error.__module__ == "tour"
    # an alias is the same class
    assert tour.EmptyInputErr is tour.ErrEmpty
    assert tour.ErrEmpty is not tour.ErrRange


def test_bound_calls_raise_the_sentinel_class():
    # a wrapped sentinel (fmt.Errorf %w): errors.Is
    with pytest.raises(tour.ErrEmpty, match=r"^tour\.Mean: tour: empty input$"):
        tour.Mean(np.zeros(0))
    with pytest.raises(tour.ErrRange, match="mode 7"):
        tour.Round(1.0, 7)
    # the sentinel itself, and its alias's value
    with pytest.raises(tour.ErrEmpty, match="^tour: empty input$"):
        tour.Check(0)
    with pytest.raises(tour.EmptyInputErr):
        tour.Check(1)
    assert tour.Check(2) is None
    # still a RuntimeError, as documented before
    with pytest.raises(RuntimeError):
        tour.Mean(np.zeros(0))


def test_error_types_are_exception_classes():
    assert issubclass(tour.ParseError, tour.Error)
    with pytest.raises(tour.ParseError, match=r"^tour\.Parse: line -3: negative$") as info:
        tour.Parse(-3)
    assert tour.Parse(3) is None
    # the Go value's exported fields are the exception's attributes, and pickle with it
    e = info.value
    assert (e.Line, e.Msg) == (-3, "negative")
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is tour.ParseError and (back.Line, back.Msg, str(back)) == (-3, "negative", str(e))


def test_sentinel_exceptions_pickle():
    try:
        tour.Mean(np.zeros(0))
    except tour.ErrEmpty as e:
        back = pickle.loads(pickle.dumps(e))
    assert type(back) is tour.ErrEmpty and str(back) == "tour.Mean: tour: empty input"


def test_standard_sentinels_raise_builtin_exceptions():
    assert tour.Next(np.array([1.5]), 0) == 1.5
    with pytest.raises(EOFError, match=r"^tour\.Next: 3: EOF$"):
        tour.Next(np.array([1.5]), 3)


def test_fs_sentinels_and_package_classes_first():
    with pytest.raises(FileNotFoundError, match="^open nowhere: file does not exist$"):
        tour.Open("nowhere")
    assert tour.Clamp(0.5) == 0.5
    # wraps ErrRange and memview.ErrInvalid (ValueError): the package's class wins
    with pytest.raises(tour.ErrRange) as e:
        tour.Clamp(2.0)
    assert not isinstance(e.value, ValueError)


def test_named_int_type_is_an_int_subclass():
    assert issubclass(tour.Mode, int) and tour.Mode.__module__ == "tour"
    assert isinstance(tour.Floor, tour.Mode) and isinstance(tour.Ceil, tour.Mode)
    assert tour.Floor == 0 and tour.Ceil == 1
    assert repr(tour.Floor) == "tour.Floor" and repr(tour.Ceil) == "tour.Ceil"
    assert repr(tour.Mode(7)) == "tour.Mode(7)"
    assert pickle.loads(pickle.dumps(tour.Ceil)) == tour.Ceil
    assert tour.Round(2.5, tour.Floor) == 2 and tour.Round(2.5, 1) == 3
    assert tour.Scale == 1.0 / 3


def test_reprs_show_fields_only():
    p = tour.Point(X=1.0, Y=2.0)
    assert repr(p) == "tour.Point(X=1.0, Y=2.0)"
    assert repr(p.Scaled(2.0)) == "tour.Point(X=2.0, Y=4.0)"
    import gopkg
    b = gopkg.NewBox(3)
    assert repr(b) == "gopkg.Box(N=3)"
    assert "handle" not in repr(b) and "_memview" not in repr(b)


def test_dir_and_all_are_the_go_package():
    public = ["Ceil", "Check", "Clamp", "EmptyInputErr", "ErrEmpty", "ErrRange", "Error", "Floor", "Hash", "Mean",
              "MinMax", "Mode", "Next", "Open", "Parse", "ParseError", "Pick", "Point", "Round", "Scale", "Within"]
    assert sorted(tour.__all__) == public
    names = [n for n in dir(tour) if not n.startswith("__")]
    assert names == public
    import pydoc
    text = pydoc.render_doc(tour, renderer=pydoc.plaintext)
    for gone in ("Slice_", "_memview", "_pyext", "handle", "currentdir"):
        assert gone not in text
    assert "Hash(b: Buffer | None) -> int" in text and "ErrEmpty" in text


def test_stub_and_py_typed_ship():
    import pathlib
    here = pathlib.Path(mv.__file__).parent.parent / "tour"
    assert (here / "py.typed").exists()
    stub = (here / "__init__.pyi").read_text()
    compile(stub, "__init__.pyi", "exec")
    for line in ("def Hash(b: Buffer | None) -> int: ...", "def MinMax(xs: Buffer | None) -> tuple[float, float]: ...",
                 "def Within(x: float, from_: float, to: float) -> bool: ...",
                 "def Pick(arg0: Buffer | None, arg1: int, /) -> float: ...",
                 "class Mode(int): ...", "Floor: Mode", "class ErrEmpty(Error): ...", "class Error(RuntimeError): ...",
                 "    def Scaled(self, f: float) -> Point: ...", "    X: float", "Scale: float",
                 "def Round(x: float, m: Mode | int) -> int: ..."):
        assert line in stub.splitlines(), line


def _mypy(*args, env_path):
    import subprocess
    import sys
    env = {**os.environ, "MYPYPATH": str(env_path)}
    return subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull,
                           "--ignore-missing-imports", "--python-version", "3.12", *args],
                          capture_output=True, text=True, env=env, timeout=300)


def test_stubtest_and_mypy_over_the_stub():
    pytest.importorskip("mypy")
    import pathlib
    import subprocess
    import sys
    top = pathlib.Path(mv.__file__).parent.parent
    here = pathlib.Path(__file__).parent / "typed"
    # every bound package of the test build, with an empty allowlist
    bound = sorted(mv.go_packages())
    r = subprocess.run([sys.executable, "-m", "mypy.stubtest", *bound, "--mypy-config-file",
                        str(pathlib.Path(__file__).parent.parent / "tools" / "stubtest.ini")],
                       capture_output=True, text=True, timeout=300,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join([str(top), os.environ.get("PYTHONPATH", "")])})
    assert r.returncode == 0, r.stdout + r.stderr
    ok = _mypy(str(here / "tour_ok.py"), env_path=top)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    wrong = _mypy(str(here / "tour_wrong.py"), env_path=top)
    assert wrong.returncode == 1
    for line in (4, 5, 6):
        assert f"tour_wrong.py:{line}: error:" in wrong.stdout, wrong.stdout


def test_the_docs_show_the_stub_the_build_writes():
    import pathlib
    import re
    page = (pathlib.Path(__file__).parent.parent / "docs" / "go" / "python.md").read_text()
    shown = re.search(r"<!-- stub: tour -->\n```python\n(.*?)```\n", page, re.S)[1]
    built = (pathlib.Path(mv.__file__).parent.parent / "tour" / "__init__.pyi").read_text()
    assert shown == built


def test_value_objects_pickle_and_copy_by_value():
    import copy
    p = tour.Point(X=1.0, Y=2.0).Scaled(1.5)
    for back in (pickle.loads(pickle.dumps(p)), copy.copy(p), copy.deepcopy(p)):
        assert back == p and back is not p and type(back) is type(p)
    with pytest.raises(TypeError):
        hash(p)
    p.X = 7.0
    assert repr(p) == "tour.Point(X=7.0, Y=3.0)"
