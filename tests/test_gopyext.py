"""gopyext.py, the gopy part of the build: which packages it accepts, the build
module it writes, which parameters take memory, and that every edit of gopy's
output fails loudly when gopy's output no longer matches it."""
import os
import pathlib
import shutil
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import gopyext  # noqa: E402

needs_go = pytest.mark.skipif(shutil.which("go") is None, reason="needs the Go toolchain")
ENV = dict(os.environ, GOFLAGS="-mod=mod")


@needs_go
def test_resolve_packages_in_their_modules():
    p = gopyext.resolve(ROOT / "examples" / "sigproc", ENV)
    assert (p.import_path, p.module_path, p.module_dir) == (
        "example.com/sigproc", "example.com/sigproc", ROOT / "examples" / "sigproc")
    q = gopyext.resolve(ROOT / "tests" / "gopkg", ENV)
    assert (q.import_path, q.module_path, q.module_dir) == (
        "github.com/memview/memview/tests/gopkg", "github.com/memview/memview", ROOT)
    with pytest.raises(gopyext.BuildError, match="not a directory"):
        gopyext.resolve(ROOT / "no-such-dir", ENV)
    with pytest.raises(gopyext.BuildError, match="no Go package"):
        gopyext.resolve(ROOT / "python", ENV)


@needs_go
def test_build_module_replaces(tmp_path):
    mod = tmp_path / "mod"
    (mod / "pkg").mkdir(parents=True)
    (mod / "pkg" / "pkg.go").write_text("package pkg\n")
    (mod / "go.mod").write_text("module example.net/mod\n\ngo 1.26\n\n"
                                "replace github.com/memview/memview => ../elsewhere\n"
                                "replace example.net/dep => ./dep\n")
    (mod / "go.sum").write_text("example.net/x v1.0.0 h1:abc=\n")
    p = gopyext.resolve(mod / "pkg", ENV)
    assert p.import_path == "example.net/mod/pkg"
    gen = tmp_path / "gen"
    gen.mkdir()
    gopyext.write_build_module(gen, ROOT, [p], ENV)
    gomod = (gen / "go.mod").read_text()
    assert f"replace github.com/memview/memview => {ROOT}\n" in gomod  # this checkout, not ../elsewhere
    assert f"replace example.net/mod => {mod}\n" in gomod
    assert f"replace example.net/dep => {mod / 'dep'}\n" in gomod  # made absolute
    assert "elsewhere" not in gomod
    gosum = (gen / "go.sum").read_text()
    assert "example.net/x v1.0.0 h1:abc=" in gosum and "github.com/go-python/gopy" in gosum


def test_names_a_package_may_not_have():
    def pkg(name):
        return gopyext.GoPackage(dir=pathlib.Path(name), import_path=name, module_path=name,
                                 module_dir=pathlib.Path("."), name=name)
    gopyext.check_names([pkg("sigproc"), pkg("rgbimage")])
    for bad in ("memview", "pyext", "go", "numpy", "json", "_hidden", "lambda"):
        with pytest.raises(gopyext.BuildError, match="cannot be a top-level Python package"):
            gopyext.check_names([pkg(bad)])
    with pytest.raises(gopyext.BuildError, match="also that of"):
        gopyext.check_names([pkg("sigproc"), pkg("sigproc")])


def test_which_parameters_take_memory():
    A = gopyext.ARRAY
    fn = {"params": [{"name": "x", "type": "[]float64"}, {"name": "a", "type": A},
                     {"name": "n", "type": "int"}, {"name": "s", "type": "example.com/p.Samples"},
                     {"name": "b", "type": "[]byte"}, {"name": "m", "type": "[][]float64"}],
          "results": ["error"], "variadic": False}
    assert gopyext.memory_params(fn) == {0: "float64", 1: "array", 4: "byte"}
    assert gopyext.binding(fn) == {"params": ["x", "a", "n", "s", "b", "m"],
                                   "memory": {0: "float64", 1: "array", 4: "byte"}, "handles": {},
                                   "callables": {}, "variadic": False, "go_run": False, "error_only": True,
                                   "copy_ro": [0, 4], "errors": [], "result": None}  # not analysed: read-only buffers go as copies
    fn["params"][4]["readonly"] = "store"  # a store found: refused
    assert gopyext.binding(fn)["copy_ro"] == [0]
    # By handle: what gopy passes as x.handle (gopysig's "handle"), but memory lent;
    # callables: Go funcs (gopysig's "func"); goRun for a function without results.
    typed = {"params": [{"name": "p", "type": "*example.com/p.Point", "handle": True},
                        {"name": "x", "type": "[]float64", "handle": True},
                        {"name": "f", "type": "func(int) int", "func": True},
                        {"name": "rest", "type": "[]io.Reader", "handle": True}],
             "results": [], "variadic": True}
    assert gopyext.binding(typed) == {"params": ["p", "x", "f", "rest"], "memory": {1: "float64"},
                                      "handles": {0: "*example.com/p.Point", 3: "io.Reader"},
                                      "callables": {2: "func(int) int"}, "variadic": True, "go_run": True,
                                      "error_only": False, "copy_ro": [1], "errors": [], "result": None}
    variadic = {"params": [{"name": "xs", "type": "[]float64"}], "results": [], "variadic": True}
    assert gopyext.binding(variadic) is None  # gopy passes *args there
    plain = {"params": [{"name": "n", "type": "int"}], "results": ["float64", "error"], "variadic": False}
    assert gopyext.binding(plain) is None
    # an error parameter: gopy takes a str, and memview's wrapper passes "" (nil) for None
    takes_error = {"params": [{"name": "n", "type": "int"}, {"name": "err", "type": "error"}],
                   "results": ["int"], "variadic": False}
    assert gopyext.binding(takes_error)["errors"] == [1]
    # a []T or []string result: an array or a list on gopy's path too
    assert gopyext.binding({**plain, "results": ["[]float64"]})["result"] == "array"
    assert gopyext.binding({**plain, "results": ["[]string", "error"]})["result"] == "list"


def test_edits_fail_loudly_when_gopy_output_changes(tmp_path):
    f = tmp_path / "pyext.go"
    f.write_text("package main\n")
    with pytest.raises(gopyext.BuildError, match="gopy output changed"):
        gopyext.patch_generated_go(f)
    f.write_text("#cgo CFLAGS: -x\n#cgo LDFLAGS: -y\n#include <Python.h>\n")
    with pytest.raises(gopyext.BuildError, match="gopy output changed"):
        gopyext.patch_generated_go(f)
    s = tmp_path / "build.py"
    s.write_text("mod.add_function('x', None, [])\n")
    with pytest.raises(gopyext.BuildError, match="error-returning functions"):
        gopyext.patch_pybindgen_script(s, {})
    s.write_text("add_checked_function(mod, 'p_F', retval('char*'), [])\n")
    with pytest.raises(gopyext.BuildError, match="RequestGC"):
        gopyext.patch_pybindgen_script(s, {})
    s.write_text("add_checked_function(mod, 'p_F', retval('char*'), [])\n"
                 "mod.add_function('RequestGC', None, [])\nmod.add_function('_gopy_clear_go_tls', None, [])\n")
    with pytest.raises(gopyext.BuildError, match="pybindgen import"):
        gopyext.patch_pybindgen_script(s, {})
    w = tmp_path / "pkg.py"
    w.write_text("import gc\ngc.callbacks.append(lambda phase, info: _pyext.RequestGC())\n")
    with pytest.raises(gopyext.BuildError, match="garbage collector hook"):
        gopyext.patch_generated_py(w)
    c = tmp_path / "pyext.c"
    c.write_text("int x;\n")
    with pytest.raises(gopyext.BuildError, match="cmpfunc"):
        gopyext.patch_generated_c(c)


def test_built_output_has_every_edit():
    gen = pathlib.Path(sys.modules["memview"].__file__).parent.parent / "gen"
    if not (gen / "pyext.go").exists():
        pytest.skip("run from an installed wheel: gopy's output is not at hand")
    go = (gen / "pyext.go").read_text()
    saves = go.count("_saved_thread := C.PyEval_SaveThread()")
    assert saves > 0 and go.count("gopyrt.Recover(recover(), unsafe.Pointer(&_saved_thread))") == saves
    assert "C.PyExc_RuntimeError, estr" not in go and "gopyrt.SetError(__err, unsafe.Pointer(estr))" in go
    assert go.count("(_handle CGoHandle") == go.count("gopyrt.BadHandle(__err, ")
    assert "gopyh.Embed(" not in go  # no unchecked type assertion of a handle's value
    assert ("gopyrt.Value[" in go) == ("(_handle CGoHandle" in go)  # (memview alone binds no methods)
    assert "C.CString(__err.Error())" not in go and "C.CString(gopyrt.Message(__err))" in go
    assert "PyComplex_AsCComplex" not in go and "#cgo LDFLAGS" not in go
    script = (gen / "build.py").read_text()
    assert "add_checked_function(mod, 'pyext_Install', retval('char*')" not in script
    assert "add_checked_string_function(mod, 'pyext_Install', retval('char*')" in script
    assert "gopyext.check_params(" in script
    assert "RequestGC" not in script and "_gopy_clear_go_tls" not in script
    for wrapper in gen.glob("*.py"):  # gopy's wrappers: no hook of Go's collector into Python's
        if wrapper.name != "build.py":
            assert "_gopy_gc" not in wrapper.read_text(), wrapper.name
    c = (gen / "pyext.c").read_text()
    assert '"Out of range"' not in c  # pybindgen's checks of small ints, which let -1 through
    assert c.count("mv_go_int_arg(") > 1
    for conv in ("mv_go_float_arg(", "mv_go_bool_arg(", "mv_go_str_arg("):  # (go.Slice_* helpers)
        assert c.count(conv) > 1, conv
    assert "PyObject_IsTrue(py_" not in c  # pybindgen's bools, which dropped the truth test's error


def test_go_names_are_python_names():
    sig = [{"name": "rgbimage", "funcs": [{"name": "New"}], "methods": {"Image": [{"name": "SetPixel"}]}}]
    assert gopyext.go_names(sig) == {"rgbimage_New": "rgbimage.New",
                                     "rgbimage_Image_SetPixel": "rgbimage.Image.SetPixel"}


def test_scalar_parameters_are_converted_by_memview(tmp_path):
    """pybindgen, as the patched script runs it, writes a call of pyext/gopy.c's
    conversion for every C type gopy passes a Go integer, float, bool or string as
    (mv_go_int_arg with the Go type's width and sign, mv_go_float_arg, mv_go_bool_arg,
    mv_go_str_arg), with the function's Python name and the argument's; no PyArg code
    of its own (run in a subprocess: check_params changes pybindgen's type table)."""
    pytest.importorskip("pybindgen")
    calls = gopyext.param_calls()
    params = ", ".join(f"param({t!r}, 'v{i}')" for i, t in enumerate(calls))
    script = tmp_path / "build.py"
    script.write_text(
        "from pybindgen import retval, param, Function, Module, FileCodeSink\n"
        "mod = Module('_m')\n"
        f"mod.add_function('pkg_Type_F', None, [{params}])\n"
        "import sys\nmod.generate(FileCodeSink(sys.stdout))\n")
    gopyext.patch_pybindgen_params(script, {"pkg_Type_F": "pkg.Type.F"})
    import subprocess
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True).stdout
    for i, (ctype, bits_signed) in enumerate(gopyext.INT_PARAMS.items()):
        bits, signed = bits_signed
        assert f'mv_go_int_arg(py_v{i}, {bits}, {signed}, "pkg.Type.F", "v{i}", &v{i})' in out, ctype
    for i, ctype in enumerate(calls):
        want = calls[ctype].format(obj=f"py_v{i}", where=f'"pkg.Type.F", "v{i}"', value=f"v{i}")
        assert want in out, (ctype, want)
    assert 'mv_go_float_arg(py_v' in out and 'mv_go_str_arg(py_v' in out and 'mv_go_bool_arg(py_v' in out
    parse = next(line for line in out.splitlines() if "PyArg_ParseTupleAndKeywords" in line)
    assert '"' + "O" * len(calls) + '"' in parse

def test_c_string_quotes_any_go_name():
    """Go names may hold any Unicode letter; the C that names them in messages quotes
    every byte that is not a letter, digit, '_' or '.' (read back here as C reads it)."""
    import re as _re
    for name in ["pkg.Type.F", "π", "größe", "a\"b\\c", "x y", "日本.関数"]:
        lit = gopyext.c_string(name)
        assert lit[0] == lit[-1] == '"' and _re.fullmatch(r'"([A-Za-z0-9_.]|\\[0-7]{3})*"', lit), lit
        raw = _re.sub(rb"\\([0-7]{3})", lambda m: bytes([int(m.group(1), 8)]), lit[1:-1].encode())
        assert raw.decode() == name


def test_local_versions_name_the_major_version():
    v = "0.0-00010101000000-000000000000"
    assert gopyext.local_version("example.com/m") == f"v0.{v}"
    assert gopyext.local_version("github.com/a/b/v2") == f"v2.{v}"
    assert gopyext.local_version("github.com/a/b/v4") == f"v4.{v}"
    assert gopyext.local_version("gopkg.in/yaml.v3") == f"v3.{v}"
    assert gopyext.local_version("gopkg.in/check.v1") == f"v1.{v}"
    assert gopyext.local_version("example.com/v1") == f"v0.{v}"  # /v1 is no major-version suffix
    assert gopyext.local_version("example.com/m/v1x") == f"v0.{v}"


@needs_go
def test_build_module_of_a_major_version(tmp_path):
    p = gopyext.resolve(ROOT / "tests" / "gopkgs" / "vmod" / "moments", ENV)
    assert (p.import_path, p.module_path) == ("example.com/mvtest/vmod/v2/moments", "example.com/mvtest/vmod/v2")
    gopyext.write_build_module(tmp_path, ROOT, [p], ENV)
    assert "require example.com/mvtest/vmod/v2 v2.0.0-00010101000000-000000000000\n" in (tmp_path / "go.mod").read_text()


def test_import_names_given_with_the_directory():
    assert gopyext.split_name("/x/y=stats2") == ("/x/y", "stats2")
    assert gopyext.split_name("/x/y") == ("/x/y", "")
    assert gopyext.split_name("/x/y=2bad") == ("/x/y=2bad", "")  # not an identifier: a directory name

    def pkg(goname, import_name=""):
        return gopyext.GoPackage(dir=pathlib.Path(goname), import_path=f"example.com/{goname}",
                                 module_path="example.com", module_dir=pathlib.Path("."), name=goname,
                                 import_name=import_name)
    with pytest.raises(gopyext.BuildError, match=r"'stat' cannot be .*--with stat=NAME"):
        gopyext.check_names([pkg("stat")])
    ps = [pkg("stat", "gostat"), pkg("snappy", "gosnappy")]
    gopyext.check_names(ps)
    assert [p.import_name for p in ps] == ["gostat", "gosnappy"]
    with pytest.raises(gopyext.BuildError, match="import name 'gostat' is also that of"):
        gopyext.check_names([pkg("stat", "gostat"), pkg("other", "gostat")])
    with pytest.raises(gopyext.BuildError, match="gopy binds each package under its Go name"):
        gopyext.check_names([pkg("stat", "a"), pkg("stat", "b")])
