"""Build Go packages with gopy into one abi3 CPython extension, together with memview.

This is the part of the build that memview's own extension and every
`build.py ... --with DIR` build share; build.py calls build(). The steps:

1. A build module, out/gen/go.mod, that requires memview (replaced by this
   checkout) and the module of each package built with it (replaced by its
   directory, with that module's own replace directives carried over).
2. One `gopy gen` of memview's pyext and every package: one extension, one Go
   runtime (a process can hold only one: golang/go#18976).
3. The edits gopy's output needs (patch_*), each failing loudly when gopy's
   output no longer matches it.
4. The links: a first one for the cgo header pybindgen's C includes, then the
   abi3 .so for the limited API of Python 3.11, not linked to a libpython.
5. The importable layout: memview's Python facade with gopy's output in
   memview/_ext (the .so and the wrappers gopy writes), the table gopysig
   makes of the parameters that take memory (memview/_ext/_bindings.py), and
   for each Go package a top-level package of its name.
"""
from __future__ import annotations

import json
import os

import gopyfast
import keyword
import pprint
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

MODULE = "pyext"  # memview's Go package gopy binds; the extension is _pyext.abi3.so
EXT = "_ext"  # the subpackage of memview that holds gopy's output
LIMITED_API = "0x030b0000"  # Python 3.11: the oldest version the abi3 .so loads in
ARRAY = "*github.com/memview/memview/memview.Array"
# Element types of the Go slices memview lends Python memory as (pyext/gopy_bridge.go).
SLICE_ELEMS = {"bool", "int8", "int16", "int32", "rune", "int64", "int", "uint8", "byte", "uint16",
               "uint32", "uint64", "uint", "uintptr", "float32", "float64", "complex64", "complex128"}
RESERVED = {"memview", MODULE, "go", "numpy"}  # names a Go package built --with may not have


def log(msg: str) -> None:
    print(f"[build.py] {msg}", flush=True)


def run(cmd: list, cwd: Path, env: dict | None = None, capture: bool = False) -> str:
    log(" ".join(str(c) for c in cmd))
    r = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, check=True,
                       stdout=subprocess.PIPE if capture else None, text=True)
    return r.stdout if capture else ""


class BuildError(Exception):
    """A package cannot be built as asked (the message says why)."""


# ---------------------------------------------------------------- Go packages


@dataclass
class GoPackage:
    """A Go package to build with memview, and the module it belongs to."""
    dir: Path
    import_path: str
    module_path: str
    module_dir: Path
    name: str = ""  # the Go package name, known once gopysig has read it
    import_name: str = ""  # the Python import name: --with DIR=NAME, else the Go name
    no_go_mod: bool = False  # a module from the cache that has no go.mod (see cached_module)


def module_info(module_dir: Path, env: dict) -> dict:
    """go.mod as `go mod edit -json` reads it (no network, no build)."""
    out = subprocess.run(["go", "mod", "edit", "-json"], cwd=module_dir, env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def split_name(arg: str | Path) -> tuple[str, str]:
    """--with DIR=NAME as (DIR, NAME); (DIR, "") without =NAME (a directory
    whose own name holds "=" stays one)."""
    s = str(arg)
    d, eq, name = s.rpartition("=")
    if not eq or Path(s).is_dir() or not name.isidentifier():
        return s, ""
    return d, name


def resolve(pkg_dir: str | Path, env: dict) -> GoPackage:
    """The import path and module of the Go package in pkg_dir (--with
    DIR[=NAME]: NAME is the Python import name)."""
    pkg_dir, import_name = split_name(pkg_dir)
    d = Path(pkg_dir).resolve()
    if not d.is_dir():
        raise BuildError(f"--with {pkg_dir}: not a directory")
    if not [p for p in d.glob("*.go") if not p.name.endswith("_test.go")]:
        raise BuildError(f"--with {pkg_dir}: no Go package there (no .go files)")
    m = d
    while not (m / "go.mod").exists():
        if m.parent == m:
            cached = cached_module(d, env)
            if cached is None:
                raise BuildError(f"--with {pkg_dir}: not inside a Go module (no go.mod above it, "
                                 "and not in the module cache)")
            path, m = cached
            break
        m = m.parent
    else:
        path = module_info(m, env)["Module"]["Path"]
    rel = d.relative_to(m).as_posix()
    return GoPackage(dir=d, import_path=path if rel == "." else f"{path}/{rel}", module_path=path, module_dir=m,
                     import_name=import_name, no_go_mod=not (m / "go.mod").exists())


def cached_module(d: Path, env: dict) -> tuple[str, Path] | None:
    """(module path, module directory) of a directory in the module cache whose
    module has no go.mod (one that predates modules, such as
    github.com/spaolacci/murmur3@v1.1.0); None outside the cache. The cache
    spells capitals as '!' and a lower-case letter."""
    cache = subprocess.run(["go", "env", "GOMODCACHE"], env=env, check=True, capture_output=True,
                           text=True).stdout.strip()
    if not cache:
        return None
    try:
        rel = d.relative_to(Path(cache).resolve()).parts
    except ValueError:
        return None
    for i, part in enumerate(rel):
        if "@" in part and part != "cache":
            name = "/".join((*rel[:i], part.partition("@")[0]))
            return re.sub(r"!([a-z])", lambda c: c[1].upper(), name), Path(cache).resolve().joinpath(*rel[:i + 1])
        if part == "cache" and i == 0:
            return None
    return None


def _replace_target(new: dict, module_dir: Path) -> str:
    """A replace directive's target, with a directory made absolute."""
    path = new["Path"]
    if "Version" in new:
        return f"{path} {new['Version']}"
    if path.startswith(("./", "../")) or path in (".", ".."):
        return str((module_dir / path).resolve())
    return path


def local_version(module_path: str) -> str:
    """The version a module given by its directory is required at (replaced by
    that directory): a pseudo-version of the major version its path names, as
    the go command checks it: v0 for example.com/m, v2 for example.com/m/v2,
    v3 for gopkg.in/yaml.v3 (and v1 for gopkg.in/check.v1)."""
    m = re.fullmatch(r"gopkg\.in/(?:[^/]+/)?[^/]+\.v(\d+)(?:-unstable)?", module_path)
    if m is None:
        m = re.search(r"/v(\d+)$", module_path)
        if m is not None and int(m[1]) < 2:
            m = None
    return f"v{m[1] if m else 0}.0.0-00010101000000-000000000000"


def write_build_module(gen: Path, root: Path, packages: list[GoPackage], env: dict) -> None:
    """Write gen/go.mod and gen/go.sum: memview from root, each package's module
    from its directory, and those modules' own replace directives."""
    info = module_info(root, env)
    memview = info["Module"]["Path"]
    requires = {r["Path"]: r["Version"] for r in info.get("Require") or []}
    lines = ["// Written by build.py (gopyext.py): the module gopy's output is built in.",
             "module memview.local/extension", "", f"go {info['Go']}", "",
             f"require github.com/go-python/gopy {requires['github.com/go-python/gopy']}",
             f"require {memview} v0.0.0-00010101000000-000000000000",
             f"replace {memview} => {root}"]
    replaced = {memview: str(root)}
    sums = set((root / "go.sum").read_text().splitlines())
    for mod_path, mod_dir in sorted({(p.module_path, p.module_dir) for p in packages}):
        if mod_path == memview:
            continue
        if mod_path in replaced:
            raise BuildError(f"module {mod_path} is given from two directories")
        if not (mod_dir / "go.mod").exists():
            # A replacement directory needs a go.mod: build a copy that has the one
            # the go command would give it (a module path, no go line: Go 1.16's rules).
            copy = gen / "modules" / mod_path
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(mod_dir, copy, ignore=shutil.ignore_patterns("*_test.go", "testdata"))
            for f in copy.rglob("*"):
                f.chmod(0o755 if f.is_dir() else 0o644)  # the cache's files are read-only
            (copy / "go.mod").write_text(f"module {mod_path}\n")
            mod_dir = copy
        lines += [f"require {mod_path} {local_version(mod_path)}", f"replace {mod_path} => {mod_dir}"]
        replaced[mod_path] = str(mod_dir)
        for rep in module_info(mod_dir, env).get("Replace") or []:
            old, target = rep["Old"]["Path"], _replace_target(rep["New"], mod_dir)
            if old == memview:
                if Path(target).resolve() != root:
                    log(f"note: {mod_path} replaces {memview} with {target}; building with {root}")
                continue
            if old in replaced and replaced[old] != target:
                raise BuildError(f"modules disagree on the replacement of {old}: {replaced[old]} or {target}")
            if old not in replaced:
                lines.append(f"replace {old} => {target}")
                replaced[old] = target
        if (mod_dir / "go.sum").exists():
            sums.update((mod_dir / "go.sum").read_text().splitlines())
    (gen / "go.mod").write_text("\n".join(lines) + "\n")
    (gen / "go.sum").write_text("\n".join(sorted(s for s in sums if s.strip())) + "\n")


# ---------------------------------------------------------------- edits of gopy's output


def patch(path: Path, edits: list[tuple[str, str]]) -> None:
    """Apply exact text edits to a generated file; fail loudly if one no longer matches."""
    text = path.read_text()
    for old, new in edits:
        if old not in text:
            raise BuildError(f"gopy output changed: {path.name} no longer contains {old!r}; "
                             f"update the edits in gopyext.py")
        text = text.replace(old, new)
    path.write_text(text)


def patch_re(path: Path, pattern: str, repl, what: str, count: int | None = None) -> int:
    """Apply a regular-expression edit everywhere it matches (at least once, or
    exactly count times when count is given); fail loudly otherwise."""
    text, n = re.subn(pattern, repl, path.read_text(), flags=re.M)
    if (count is None and n == 0) or (count is not None and n != count):
        raise BuildError(f"gopy output changed: {what} matched {n} times in {path.name}"
                         f"{'' if count is None else f' (expected {count})'}; update gopyext.py")
    path.write_text(text)
    return n


def patch_generated_go(path: Path) -> None:
    """The Go main gopy generates: limited API, no libpython, and memview's
    exceptions and panic recovery in every bound function."""
    text = path.read_text()
    cflags = re.compile(r"^#cgo CFLAGS: .*$", re.M)
    ldflags = re.compile(r"^#cgo LDFLAGS: .*$", re.M)
    if not cflags.search(text) or not ldflags.search(text):
        raise BuildError(f"gopy output changed: no #cgo CFLAGS/LDFLAGS lines in {path.name}")
    # The include path and the abi3 define come from CGO_CFLAGS; libpython is not linked:
    # the interpreter that loads the extension provides every Python symbol.
    text = cflags.sub("#cgo CFLAGS: -Wno-error -Wno-implicit-function-declaration -Wno-int-conversion", text, 1)
    text = ldflags.sub("", text, 1)
    path.write_text(text)
    patch(path, [
        ("#include <Python.h>\n", "#include <Python.h>\n#include <stdlib.h>\n"),
        # PyComplex_AsCComplex and Py_complex are not in the limited API.
        ("v := C.PyComplex_AsCComplex(o)\n\treturn complex(float32(v.real), float32(v.imag))",
         "return complex(float32(C.PyComplex_RealAsDouble(o)), float32(C.PyComplex_ImagAsDouble(o)))"),
        ("v := C.PyComplex_AsCComplex(o)\n\treturn complex(float64(v.real), float64(v.imag))",
         "return complex(float64(C.PyComplex_RealAsDouble(o)), float64(C.PyComplex_ImagAsDouble(o)))"),
        ('import (\n', f'import (\n\t"github.com/memview/memview/{MODULE}/gopyrt"\n'),
    ])
    # A Go error raises the exception memview raises for it (TypeError for
    # memview.ErrType, ...), not RuntimeError for everything.
    patch_re(path, r"C\.PyErr_SetString\(C\.PyExc_RuntimeError, estr\)",
             "gopyrt.SetError(__err, unsafe.Pointer(estr))", "the error exception")
    # ... with a message as memview's own read: no ": invalid argument" at the end.
    patch_re(path, r"estr := C\.CString\(__err\.Error\(\)\)", "estr := C.CString(gopyrt.Message(__err))",
             "the error message")
    # An error parameter: gopy makes errors.New of the string Python passed, so
    # that it is never nil; "" (memview's wrapper passes it for None) is nil.
    path.write_text(path.read_text().replace("errors.New(C.GoString(", "gopyrt.ErrorArg(C.GoString("))
    # No Go panic aborts the interpreter: every function that releases the GIL
    # defers gopyrt.Recover first, and notes (_saved_thread = nil) when it has
    # the GIL back, so that Recover knows whether to take it.
    n = patch_re(path, r"^(\t+)_saved_thread := C\.PyEval_SaveThread\(\)\n",
                 r"\g<0>\1defer func() { gopyrt.Recover(recover(), unsafe.Pointer(&_saved_thread)) }()\n",
                 "the GIL release")
    d = patch_re(path, r"^(\t+)defer C\.PyEval_RestoreThread\(_saved_thread\)\n",
                 r"\1defer func() { C.PyEval_RestoreThread(_saved_thread); _saved_thread = nil }()\n",
                 "the deferred GIL re-take")
    e = patch_re(path, r"^(\t+)C\.PyEval_RestoreThread\(_saved_thread\)\n",
                 r"\g<0>\1_saved_thread = nil\n", "the GIL re-take")
    if d + e < n:
        raise BuildError(f"gopy output changed: {n} GIL releases but {d + e} re-takes in {path.name}")
    # A method called with a handle gopy does not know returned without taking
    # the GIL back (a crash); it raises ValueError instead. (memview alone binds
    # no methods.)
    methods = path.read_text().count("(_handle CGoHandle")  # every bound method's signature
    patch_re(path, r'^(\t+)(vifc, __err := gopyh\.VarFromHandleTry\(.*, ("[^"]*")\)\n\t+if __err != nil \{\n)',
             r"\1\2\1\tgopyrt.BadHandle(__err, \3)\n", "the method handle check", count=methods)
    # A handle of a Go value of another type (rgbimage.Image(handle=other.handle))
    # is a ValueError naming both types, not a panic of gopy's type assertion.
    embeds = path.read_text().count("gopyh.Embed(")
    if embeds:
        patch_re(path, r"gopyh\.Embed\((\w+), reflect\.TypeOf\(([\w.]+)\{\}\)\)\.\((\*[\w.]+)\)",
                 r"gopyrt.Value[\3](\1, reflect.TypeOf(\2{}))", "the handle type assertions", count=embeds)


# A callback gopy writes for a Go func parameter (taking a Python callable).
_CALLBACK = re.compile(
    r"(?P<check>\t+_gstate := C\.PyGILState_Ensure\(\)\n"
    r"\t+if C\.PyCallable_Check\(_fun_arg\) == 0 \{\n\t+C\.PyGILState_Release\(_gstate\)\n"
    r"\t+return(?: (?P<zero>[^\n]+))?\n\t+\}\n)"
    r"(?P<body>(?:(?!\t+(?:_fcret := )?C\.PyObject_CallObject\().*\n)*?)"
    r"(?P<i>\t+)(?P<ret>_fcret := )?C\.PyObject_CallObject\(_fun_arg, (?P<args>_fcargs|nil)\)\n"
    r"(?P<decref>(?P=i)C\.gopy_decref\(_fcargs\)\n)?"
    r"(?P=i)C\.gopy_err_handle\(\)\n"
    r"(?P=i)C\.PyGILState_Release\(_gstate\)\n"
    r"(?:(?P=i)return (?P<conv>[^\n]+)\n)?")


def _callback(m: re.Match) -> str:
    i = m["i"]
    out = [m["check"] + m["body"], f"{i}_fcret := C.PyObject_CallObject(_fun_arg, {m['args']})\n",
           m["decref"] or ""]
    if m["ret"]:
        if not m["conv"] or not m["zero"]:
            raise BuildError("gopy output changed: a callback with a result has no zero or conversion")
        # A Go string is read from a str (gopy read bytes: PyBytes_AsString).
        conv = m["conv"].replace("C.PyBytes_AsString(_fcret)", "C.PyUnicode_AsUTF8AndSize(_fcret, nil)")
        out += [f"{i}_fcv := {m['zero']}\n", f"{i}if _fcret != nil {{\n", f"{i}\t_fcv = {conv}\n",
                f"{i}\tC.gopy_decref(_fcret)\n", f"{i}}}\n"]
    else:
        out.append(f"{i}C.gopy_decref(_fcret)\n")
    out += [f"{i}_cberr.Save()\n", f"{i}C.PyGILState_Release(_gstate)\n"]
    if m["ret"]:
        out.append(f"{i}return _fcv\n")
    return "".join(out)


def patch_callbacks(path: Path) -> None:
    """gopy's callbacks (a Go func parameter given a Python callable) read the
    callable's result after releasing the GIL, and read it even when the call
    raised (NULL): both crash. They also leaked the result and printed the
    exception. Each callback now converts its result with the GIL held (a Go
    string from a str), drops its reference, and saves any exception
    (gopyrt.CallbackErr) for the bound function to raise as it returns. Runs
    on the file as goimports formatted it."""
    text = path.read_text()
    funcs = re.split(r"(?m)^(?=func )", text)
    for k, f in enumerate(funcs):
        if "\t_fun_arg := " not in f:
            continue
        head = re.match(r"func \w+\(.*\) *(?P<ret>[^{ ][^{]*?)? *\{\n", f)
        if head is None:
            raise BuildError("gopy output changed: a function taking a callback has no signature line")
        zero = f"*new({head['ret'].strip()})" if head["ret"] else ""
        f, c = _CALLBACK.subn(_callback, f)
        if c == 0:
            raise BuildError("gopy output changed: no callback where _fun_arg is taken")
        # goRun=True: the goroutine may call back after the function returned, so
        # it holds a reference to the callable until it ends (gopy held none).
        # (The reference is taken before the GIL is released.)
        f, gos = re.subn(r"^(?P<i>\t+)go (?P<call>[\w.]+\((?:.*\n)*?(?P=i)\}[^\n]*\))\n",
                         lambda g: (f"{g['i']}go func() {{\n"
                                    f"{g['i']}\tdefer gopyrt.DecRefGIL(unsafe.Pointer(_fun_arg))\n"
                                    f"{g['i']}\t{g['call']}\n{g['i']}}}()\n"), f, flags=re.M)
        take = "\tif boolPyToGo(goRun) {\n\t\tC.gopy_incref(_fun_arg)\n\t}\n" if gos else ""
        if gos and not re.search(r"\bgoRun C\.char\b", f.split("\n", 1)[0]):
            raise BuildError("gopy output changed: a goroutine started without goRun")
        f, d = re.subn(r"^(\t)_fun_arg := (\w+)\n", lambda g: f"{g[0]}{take}\t_cberr := gopyrt.NewCallbackErr()\n",
                       f, flags=re.M)
        f, e1 = re.subn(r"C\.PyEval_RestoreThread\(_saved_thread\); _saved_thread = nil \}\(\)",
                        "C.PyEval_RestoreThread(_saved_thread); _saved_thread = nil; _cberr.Restore() }()", f)
        f, e2 = re.subn(r"^(\t+)(C\.PyEval_RestoreThread\(_saved_thread\)\n\1_saved_thread = nil\n)",
                        rf"\1\2\1if _cberr.Restore() {{\n\1\treturn {zero}\n\1}}\n", f, flags=re.M)
        if d != 1 or e1 + e2 == 0:
            raise BuildError("gopy output changed: a function taking a callback does not take the GIL back "
                             "where expected")
        funcs[k] = f
    path.write_text("".join(funcs))


def patch_generated_py(path: Path) -> None:
    """A Python wrapper gopy writes (one per package, and go.py): gopy 0.5 has
    each hook a call of Go's garbage collector into Python's (gc.callbacks).
    That made every collection of Python's youngest generation wait for a
    whole Go collection (0.1 us became 1.2 ms here; an allocation-heavy loop
    ran 6.7 times slower), and hung a forked child on its first collection, in
    a Go runtime whose other threads did not survive the fork. memview's
    memory is not on the Go heap, and Go collects on its own: the hook goes."""
    patch_re(path, r"^(?:#[^\n]*\n)*try:\n\timport gc as _gopy_gc\n"
                   r"\tdef _gopy_gc_cb\(phase, info\):\n\t\tif phase == 'stop':\n\t\t\t_\w+\.RequestGC\(\)\n"
                   r"\t_gopy_gc\.callbacks\.append\(_gopy_gc_cb\)\nexcept Exception:\n\tpass\n",
             "", "the garbage collector hook", count=1)
    if "RequestGC" in path.read_text():
        raise BuildError(f"gopy output changed: {path.name} still calls RequestGC; update gopyext.py")


def patch_pybindgen_script(path: Path, names: dict) -> None:
    """gopy's pybindgen script: a function that returns a Go error hands C a
    malloc'd string (empty when there is no error) that nothing freed; it is
    freed as for functions returning a Go string. And every integer, float,
    bool and string parameter is converted by memview (check_params), not by
    pybindgen's codes."""
    patch_re(path, r"^add_checked_function\((mod, '[^']+', retval\('char\*'\))",
             r"add_checked_string_function(\1", "the error-returning functions")
    # Two functions gopy 0.5 adds to the module that no Python may call:
    # RequestGC runs Go's collector (see patch_generated_py), and
    # _gopy_clear_go_tls, by gopy's own account, crashes CPython 3.12 and newer.
    patch(path, [("mod.add_function('RequestGC', None, [])\n", ""),
                 ("mod.add_function('_gopy_clear_go_tls', None, [])\n", "")])
    patch_pybindgen_params(path, names)


def patch_pybindgen_params(path: Path, names: dict) -> None:
    """Have a pybindgen script call check_params(names) before it adds functions."""
    here = str(Path(__file__).resolve().parent)
    setup = ("# memview (gopyext.py): parameters converted, range-checked and named by memview\n"
             f"import sys\nsys.path.insert(0, {here!r})\nimport gopyext\ngopyext.check_params({names!r})\n")
    patch_re(path, r"^from pybindgen import .*\n", lambda m: m.group(0) + setup, "the pybindgen import", count=1)


# The C integer types gopy passes Go integers as, with their width and sign:
# int8..int64 and rune; uint8 (byte)..uint64, uint and uintptr (uint64_t); C
# int for the indices of gopy's own helpers (Slice_float64_elem, ...).
INT_PARAMS = {"int8_t": (8, 1), "int16_t": (16, 1), "int32_t": (32, 1), "int": (32, 1), "int64_t": (64, 1),
              "uint8_t": (8, 0), "uint16_t": (16, 0), "uint32_t": (32, 0), "unsigned int": (32, 0),
              "uint64_t": (64, 0)}

# The other C types gopy passes Go scalars as, with the C call that converts a
# Python object to each (pyext/gopy.c): float64, float32, bool and string.
OTHER_PARAMS = {"double": "mv_go_float_arg({obj}, 64, {where}, &{value})",
                "float": "mv_go_float_arg({obj}, 32, {where}, &{value})",
                "bool": "mv_go_bool_arg({obj}, {where}, &{value})",
                "char*": "mv_go_str_arg({obj}, {where}, &{value})"}


def param_calls() -> dict:
    """{C type: the C call that converts a parameter of that type}, for every
    type check_params takes over."""
    calls = {t: f"mv_go_int_arg({{obj}}, {bits}, {signed}, {{where}}, &{{value}})"
             for t, (bits, signed) in INT_PARAMS.items()}
    calls.update(OTHER_PARAMS)
    return calls


def c_string(text: str) -> str:
    """text as a C string literal: letters, digits, '_' and '.' as they are, every
    other byte of its UTF-8 as an octal escape (Go names may be any Unicode letters)."""
    out = []
    for b in text.encode():
        c = chr(b)
        out.append(c if (c.isascii() and (c.isalnum() or c in "_.")) else f"\\{b:03o}")
    return '"' + "".join(out) + '"'


def check_params(names: dict) -> None:
    """Run in gopy's pybindgen script (patch_pybindgen_script): make pybindgen
    convert each C type of param_calls with pyext/gopy.c's functions, which
    name the Go function (by its Python name, from names: C name ->
    "pkg.Type.Method") and the argument in every error:
      - integers (mv_go_int_arg) refuse bools and non-integers (TypeError) and
        values outside the Go type's range (OverflowError); pybindgen's own
        codes wrap silently ("b", "B", "H", "I" and "K" do not check the
        range, and its "> 0xff" checks let -1 through as 255);
      - floats (mv_go_float_arg) take what float() takes, as pybindgen's "d"
        and "f" do, with the function's name in the TypeError;
      - bools (mv_go_bool_arg) take any object's truth, as pybindgen does, but
        an error raised by the truth test is raised (pybindgen ignored it and
        Go got true, with the exception left set: a SystemError);
      - strings (mv_go_str_arg) take str only, with the names in the errors."""
    from pybindgen.typehandlers import base, ctypeparser

    def handler(ctype: str, call: str):
        parent = base.param_type_matcher.lookup(ctype)[0]

        def convert_python_to_c(self, wrapper):
            func = names.get(wrapper.function_name, wrapper.function_name)
            obj = wrapper.declarations.declare_variable("PyObject*", "py_" + self.name, "NULL")
            value = wrapper.declarations.declare_variable(ctype, self.name, self.default_value)
            wrapper.parse_params.add_parameter("O", ["&" + obj], self.name, optional=bool(self.default_value))
            where = f"{c_string(func)}, {c_string(self.name)}"
            wrapper.before_call.write_error_check(
                f"{obj} != NULL && " + call.format(obj=obj, where=where, value=value) + " < 0")
            wrapper.call_params.append(value)

        # CTYPES empty: pybindgen's metaclass registers nothing; the table entry is replaced below.
        return type(parent.__name__ + "GoChecked", (parent,),
                    {"CTYPES": [], "convert_python_to_c": convert_python_to_c})

    for ctype, call in param_calls().items():
        cls = handler(ctype, call)
        base.param_type_matcher._types[ctypeparser.normalize_type_string(ctype)] = cls
        if base.param_type_matcher.lookup(ctype)[0] is not cls:
            raise BuildError(f"pybindgen changed: its handler of {ctype} parameters cannot be replaced; "
                             "update gopyext.check_params")


def go_names(signatures: list[dict]) -> dict:
    """{C name gopy gives a bound function: its Python name}: "rgbimage_Image_SetPixel"
    is rgbimage.Image.SetPixel, for messages about its arguments."""
    names = {}
    for pkg in signatures:
        n = pkg["name"]
        names.update({f"{n}_{f['name']}": f"{n}.{f['name']}" for f in pkg["funcs"]})
        for typ, fns in pkg["methods"].items():
            names.update({f"{n}_{typ}_{f['name']}": f"{n}.{typ}.{f['name']}" for f in fns})
    return names


def patch_generated_c(path: Path) -> None:
    """Make pybindgen's C build against the limited API, and declare the
    conversions it calls (check_params; defined in pyext/gopy.c)."""
    text = path.read_text()
    path.write_text("#include <stdlib.h>\n" + text)
    patch(path, [
        # PyAsyncMethods is not part of the limited API; the typedef is unused by module-only code.
        ("typedef PyAsyncMethods* cmpfunc;", "typedef void* cmpfunc;"),
        ("#include <Python.h>\n", "#include <Python.h>\n"
                                  "int mv_go_int_arg(PyObject *o, int bits, int is_signed, "
                                  "const char *func, const char *arg, void *out);\n"
                                  "int mv_go_float_arg(PyObject *o, int bits, const char *func, const char *arg, "
                                  "void *out);\n"
                                  "int mv_go_bool_arg(PyObject *o, const char *func, const char *arg, void *out);\n"
                                  "int mv_go_str_arg(PyObject *o, const char *func, const char *arg, char **out);\n"),
    ])


# ---------------------------------------------------------------- bindings table


def memory_params(fn: dict) -> dict:
    """{index: kind} of a function's parameters that take memory: "array" for
    *memview.Array, else the element type of a []T memview can lend."""
    out = {}
    for i, p in enumerate(fn["params"]):
        if fn["variadic"] and i == len(fn["params"]) - 1:
            continue  # gopy passes *args there
        t = p["type"]
        if t == ARRAY:
            out[i] = "array"
        elif t.startswith("[]") and t[2:] in SLICE_ELEMS:
            out[i] = t[2:]
    return out


def handle_params(fn: dict, memory: dict) -> dict:
    """{index: Go type} of a function's parameters that gopy's wrapper passes by
    handle (x.handle): anything but a gopy object there is refused with a
    TypeError naming the function, the argument and the Go type, where gopy's
    wrapper would fail with an AttributeError. The variadic parameter's Go type
    is that of its elements, each passed by handle."""
    return {i: (p["type"][2:] if fn["variadic"] and i == len(fn["params"]) - 1 else p["type"])
            for i, p in enumerate(fn["params"]) if p.get("handle") and i not in memory}


def binding(fn: dict) -> dict | None:
    """What the facade needs to wrap one function, or None if gopy's own wrapper
    serves it as it is. callables: {index: Go type} of the Go func parameters,
    which take a Python callable (gopy's callback went on with zero values for
    anything else)."""
    memory = memory_params(fn)
    handles = handle_params(fn, memory)
    callables = {i: p["type"] for i, p in enumerate(fn["params"]) if p.get("func")
                 and not (fn["variadic"] and i == len(fn["params"]) - 1)}
    error_only = fn["results"] == ["error"]
    # error parameters: gopy takes a str; None (Go's nil) is passed as ""
    errors = [i for i, p in enumerate(fn["params"]) if p["type"] == "error"
              and not (fn["variadic"] and i == len(fn["params"]) - 1)]
    # a []T result: a memview array, as on the fast path; a []string a list
    res = [t for t in fn["results"] if t != "error"]
    result = ("array" if len(res) == 1 and res[0].startswith("[]") and res[0][2:] in SLICE_ELEMS
              else "list" if res == ["[]string"] else None)
    if not memory and not handles and not callables and not error_only and not errors and not result:
        return None
    # read-only buffers are lent as a copy, unless the analysis found a store
    copy_ro = [i for i, kind in memory.items() if kind != "array" and fn["params"][i].get("readonly") != "store"]
    return {"params": [p["name"] for p in fn["params"]], "memory": memory, "handles": handles,
            "callables": callables, "variadic": fn["variadic"], "go_run": not fn["results"],
            "error_only": error_only, "copy_ro": copy_ro, "errors": errors, "result": result}


PY_BASIC = {**dict.fromkeys(("int8", "int16", "int32", "rune", "int64", "int", "uint8", "byte", "uint16",
                             "uint32", "uint64", "uint", "uintptr"), "int"),
            "float32": "float", "float64": "float", "complex64": "complex", "complex128": "complex",
            "bool": "bool", "string": "str", "error": "None"}


ZERO = {"int": 0, "float": 0.0, "complex": 0j, "bool": False, "str": "", "None": None}


def py_type(t: str, pkg: dict, result: bool = False, under: str = "") -> str:
    """The Python type of a value of Go type t, as the stub writes it: for a
    parameter (what it takes) or a result (what it returns)."""
    if t == "error" and not result:
        return "str | None"  # None is nil; a str an error with that message
    if t in PY_BASIC:
        return PY_BASIC[t]
    if t == ARRAY:
        return "memview.Array" if result else "Buffer"
    if t.startswith("[]"):
        if t[2:] in SLICE_ELEMS:
            return "memview.Array" if result else "Buffer | None"
        return "list[str]" if t == "[]string" and result else "object"
    m = re.fullmatch(r"\[(\d+)\](.+)", t)
    if m:
        return "bytes" if m[2] in ("byte", "uint8") else f"tuple[{py_type(m[2], pkg, result)}, ...]"
    if not result and under.startswith("[]") and under[2:] in SLICE_ELEMS:
        return "Buffer | None"  # a named slice type (Float64Data): memory, as []T
    own = pkg["path"] + "."
    ptr = t.startswith("*")
    base = t[1:] if ptr else t
    if base.startswith(own) and base[len(own):].isidentifier():
        name = base[len(own):]
        if not ptr and not result and re.fullmatch(r"\[\d+\]uint8", (pkg.get("types") or {}).get(name, "")):
            return "Buffer"  # a named [N]byte: any N bytes
        if under in PY_BASIC and not result:
            return f"{name} | {PY_BASIC[under]}"
        return f"{name} | None" if ptr and result else name
    if t.startswith("func("):
        return "Callable[..., Any]"
    if under in PY_BASIC:
        return PY_BASIC[under]
    return "object"


def py_results(fn: dict, pkg: dict) -> str:
    res = list(fn["results"])
    if res and res[-1] == "error":
        res = res[:-1]
    if not res:
        return "None"
    if len(res) == 1:
        return py_type(res[0], pkg, result=True)
    # an entry is given the class of one result at most (gopyfast.class_results):
    # where several results have one, a named integer type's are plain ints
    own, types_ = pkg["path"] + ".", pkg.get("types") or {}
    named = [t.startswith(own) and types_.get(t[len(own):]) in PY_BASIC and PY_BASIC[types_[t[len(own):]]] == "int"
             for t in res]
    plain = sum(1 for t in res if t.lstrip("*").startswith(own)) > 1
    return "tuple[" + ", ".join("int" if plain and nm else py_type(t, pkg, result=True)
                                for t, nm in zip(res, named)) + "]"


def doc_entry(fn: dict, pkg: dict) -> dict:
    """How one bound function or method presents itself to Python: its
    parameters [Python name, gopy's name, positional-only], the typed
    signature as the stub writes it and the Go declaration."""
    params = []
    typed = []
    for i, p in enumerate(fn["params"]):
        name, pos = gopyfast.py_name(p, i)
        params.append([name, p["name"], pos])
        typed.append(f"{name}: {py_type(p['type'], pkg, under=p.get('under', ''))}")
    if any(pos for _, _, pos in params):
        last = max(i for i, (_, _, pos) in enumerate(params) if pos)
        typed.insert(last + 1, "/")
    if fn["variadic"] and typed:
        typed[-1] = "*" + typed[-1]
    return {"params": params, "typed": f"{fn['name']}({', '.join(typed)}) -> {py_results(fn, pkg)}",
            "go": fn.get("go", ""), "doc": fn.get("doc", "").strip(), "variadic": fn["variadic"]}


def bindings_table(signatures: list[dict]) -> dict:
    """The table memview/_ext/_bindings.py holds, by Go package name."""
    table = {}
    for pkg in signatures:
        funcs = {f["name"]: b for f in pkg["funcs"] if (b := binding(f))}
        methods = {}
        # (an interface's methods too: gopy's class of it takes memory as a struct's does)
        for typ, fns in {**(pkg.get("iface_methods") or {}), **pkg["methods"]}.items():
            ms = {f["name"]: b for f in fns if (b := binding(f))}
            if ms:
                methods[typ] = ms
        docs = {f["name"]: doc_entry(f, pkg) for f in pkg["funcs"]}
        for typ, fns in pkg["methods"].items():
            docs.update({f"{typ}.{f['name']}": doc_entry(f, pkg) for f in fns})
        table[pkg["name"]] = {"path": pkg["path"], "funcs": funcs, "methods": methods, "docs": docs,
                              "errors": list(pkg.get("errors") or []) + list(pkg.get("error_types") or []),
                              "consts": dict(pkg.get("const_values") or {}),
                              "fields": {typ: {f["name"]: ZERO[PY_BASIC[f["type"]]] for f in fs
                                               if f["type"] in PY_BASIC}
                                         for typ, fs in {**(pkg.get("fields") or {}),
                                                         **{t: v["fields"] for t, v in
                                                            (pkg.get("structs") or {}).items()}}.items()}}
    return table


def _stub_def(info: dict, indent: str = "", method: bool = False) -> str:
    typed = info["typed"]
    if method:
        name, rest = typed.split("(", 1)
        typed = f"{name}(self{', ' if not rest.startswith(')') else ''}{rest}"
    return f"{indent}def {typed}: ...\n"


def _gopy_field(f: dict) -> bool:
    """Whether gopy gives a struct field a property: not where its type names an
    unexported type (`[]descriptionPercentile`), which Python cannot hold."""
    return not any(n[0].islower() for n in re.findall(r"[\w.\-~/]+\.(\w+)", f["type"]))


def stub_text(pkg: dict, table: dict, name: str, left_out: dict | None = None) -> tuple[str, list]:
    """The .pyi of a bound Go package (importable as name): its functions,
    types, constants and exception classes as Python sees them (not those
    left_out, by "Func" or "Type.Method"), and its public names."""
    left_out = left_out or {}
    docs = table["docs"]
    out = [f'"""Go package {pkg["path"]}, bound with memview (written by build.py)."""',
           "import sys", "from typing import Any, Callable", "", "import memview", "",
           "if sys.version_info >= (3, 12):", "    from collections.abc import Buffer", "else:",
           "    from typing_extensions import Buffer", ""]
    names = []
    errors = table.get("errors") or []
    types_ = pkg.get("types") or {}
    structs = pkg.get("structs") or {}
    consts = pkg.get("consts") or {}
    def value_recv(typ: str) -> list:
        """The stub lines of typ's value-receiver methods (those an int or bytes subclass has)."""
        return [_stub_def(docs[f"{typ}.{m['name']}"], "    ", method=True).rstrip("\n")
                for m in (pkg.get("methods") or {}).get(typ, [])
                if m.get("value_recv") and f"{typ}.{m['name']}" in docs and not keyword.iskeyword(m["name"])
                and f"{typ}.{m['name']}" not in left_out]

    for typ, kind in sorted(types_.items()):
        if kind in PY_BASIC and PY_BASIC[kind] == "int" and not keyword.iskeyword(typ) and typ not in errors:
            body = value_recv(typ)
            out += [f"class {typ}(int):", *body, ""] if body else [f"class {typ}(int): ...\n"]
            names.append(typ)
    own = pkg["path"] + "."
    for c, t in sorted(consts.items()):
        if keyword.iskeyword(c):
            continue
        if t.startswith(own) and types_.get(t[len(own):]) in PY_BASIC and PY_BASIC[types_[t[len(own):]]] == "int":
            out.append(f"{c}: {t[len(own):]}")
        else:
            untyped = {"int": "int", "rune": "int", "float": "float", "complex": "complex", "string": "str",
                       "bool": "bool"}
            out.append(f"{c}: {untyped.get(t.removeprefix('untyped '), PY_BASIC.get(t, 'object'))}"
                       if t.startswith("untyped ") else f"{c}: {PY_BASIC.get(t, 'object')}")
        names.append(c)
    if consts:
        out.append("")
    errors = table.get("errors") or []
    if errors:
        base = "GoError" if "Error" in docs or "Error" in types_ else "Error"
        out.append(f"class {base}(RuntimeError): ...\n")
        names.append(base)
        for e in errors:
            # an error type's exported fields are the exception's attributes (gopyrt.Fields):
            # numbers, bools and strings as they are, anything else as its text or None
            fields = [f for f in (structs[e]["fields"] if e in structs else (pkg.get("fields") or {}).get(e, []))
                      if not keyword.iskeyword(f["name"])]
            attrs = [f"    {f['name']}: {py_type(f['type'], pkg, result=True) if f['type'] in PY_BASIC else 'str | None'}"
                     for f in fields]
            out += [f"class {e}({base}):", *attrs, ""] if attrs else [f"class {e}({base}): ...\n"]
            names.append(e)
    aliases = set()
    for typ, kind in sorted(types_.items()):
        if (kind in PY_BASIC and PY_BASIC[kind] == "int") or keyword.iskeyword(typ) or typ in errors:
            continue
        if re.fullmatch(r"\[\d+\]uint8", kind):  # a bytes subclass (_gobind.present_bytes)
            out += [f"class {typ}(bytes):",
                    f"    def __new__(cls, value: Buffer = ..., *, handle: int | None = None) -> {typ}: ...",
                    *value_recv(typ), ""]
            names.append(typ)
            continue
        body = []
        fields = [f for f in (structs[typ]["fields"] if typ in structs else (pkg.get("fields") or {}).get(typ, []))
                  if not keyword.iskeyword(f["name"]) and _gopy_field(f)]
        if kind.startswith("[]") or kind == "interface":
            # gopy's own classes: a named slice type is its sequence class (gopy's signatures), an
            # interface a class of its methods; both take gopy's *args (a handle, or a sequence)
            body.append("    def __init__(self, *args: Any, **kwargs: Any) -> None: ...")
        if kind.startswith("[]"):
            e = py_type(kind[2:], pkg, result=True)
            body += ["    def __del__(self) -> None: ...", "    def __len__(self) -> int: ...",
                     "    def __getitem__(self, key: int | slice) -> Any: ...",
                     f"    def __setitem__(self, idx: int, value: {e}) -> None: ...",
                     f"    def __iadd__(self, value: Any) -> {typ}: ...", f"    def __iter__(self) -> {typ}: ...",
                     f"    def __next__(self) -> {e}: ...", f"    def append(self, value: {e}) -> None: ...",
                     "    def copy(self, src: Any) -> None: ..."]
        elif kind == "interface":
            for m in (pkg.get("iface_methods") or {}).get(typ, []):
                res = m["results"]
                if keyword.iskeyword(m["name"]) or (len(res) > 1 and res[1:] != ["error"]):
                    continue  # gopy's class has no method of several results
                line = _stub_def(doc_entry(m, pkg), "    ", method=True).rstrip("\n")
                if not res:  # gopy's method of no results takes its goRun flag
                    head, tail = line.rsplit(") -> ", 1)
                    line = f"{head}, goRun: bool = False) -> {tail}"
                body.append(line)
        if kind == "struct":
            for f in fields:  # a field named as a type hides it in the class: the type's alias
                line = f"    {f['name']}: {py_type(f['type'], pkg, result=True)}"
                if f["name"] in types_:
                    line, n = re.subn(rf"(?<![\w.]){f['name']}(?![\w(])", f"_{f['name']}", line)
                    line = line.replace(f"    _{f['name']}:", f"    {f['name']}:", 1)
                    aliases.add(f["name"])
                ft = f["type"][len(pkg["path"]) + 1:] if f["type"].startswith(pkg["path"] + ".") else ""
                if re.fullmatch(r"\[\d+\]uint8", types_.get(ft, "")):  # gopy gives a [N]byte field no setter
                    name_, ann = line.strip().split(": ", 1)
                    body += ["    @property", f"    def {name_}(self) -> {ann}: ..."]
                    continue
                body.append(line)
            args = ", ".join(f"{f['name']}: {py_type(f['type'], pkg)} = {ZERO[PY_BASIC[f['type']]]!r}"
                             if f["type"] in PY_BASIC else f"{f['name']}: {py_type(f['type'], pkg)} | None = None"
                             for f in fields)
            for f in fields:  # (in annotations only: after ": ", "| " or "[")
                if f["name"] in types_:
                    args = re.sub(rf"(:\s*|\|\s*|\[)({f['name']})(?![\w(])", r"\1_\2", args)
            body.append(f"    def __init__(self{', *, ' if args else ''}{args}) -> None: ...")
        if not kind.startswith("[]") and kind != "interface":
            body.append("    def __del__(self) -> None: ...")
        methods = {k.split(".")[1] for k in docs if k.startswith(typ + ".")}
        for key, info in sorted(docs.items()):
            if key.startswith(typ + ".") and not keyword.iskeyword(key.split(".")[1]) and key not in left_out:
                line = _stub_def(info, "    ", method=True).rstrip("\n")
                for m in methods & set(types_):  # a type a method's name hides in the class: its alias
                    line, n = re.subn(rf"(?<![\w.]){m}(?![\w(])", f"_{m}", line)
                    if n:
                        aliases.add(m)
                body.append(line)
        out.append(f"class {typ}:")
        out += body or ["    ..."]
        out.append("")
        names.append(typ)
    for key, info in sorted(docs.items()):
        if "." not in key and not keyword.iskeyword(key) and key not in left_out:
            out.append(_stub_def(info).rstrip("\n"))
            names.append(key)
    for v, t in sorted((pkg.get("vars") or {}).items()):
        if not keyword.iskeyword(v):
            out.append(f"def {v}() -> {py_type(t, pkg, result=True)}: ...")
            names.append(v)
    names = sorted(set(names))
    out += [f"_{m} = {m}" for m in sorted(aliases)]
    out += ["", f"__all__ = {names!r}", ""]
    return "\n".join(out), names


def check_names(packages: list[GoPackage]) -> None:
    """Refuse an import name Python's standard library, memview or another
    --with has, saying to give one with --with DIR=NAME; and two Go packages
    of one Go name (gopy binds each under its Go name)."""
    seen, go_names = {}, {}
    for p in packages:
        p.import_name = p.import_name or p.name
        n = p.import_name
        hint = "" if n != p.name else f"; give it another with --with {p.dir}=NAME"
        if (not n.isidentifier() or keyword.iskeyword(n) or n.startswith("_") or n in RESERVED
                or n in sys.stdlib_module_names):
            raise BuildError(f"--with {p.dir}: {n!r} cannot be a top-level Python package "
                             f"(not {sorted(RESERVED)}, nor a module of Python's standard library, "
                             f"nor a Python keyword, nor with a leading underscore){hint}")
        if n in seen:
            raise BuildError(f"--with {p.dir}: import name {n!r} is also that of {seen[n]}{hint}")
        if p.name in go_names:
            raise BuildError(f"--with {p.dir}: Go package {p.name!r} is also the Go name of {go_names[p.name]}, "
                             "and gopy binds each package under its Go name: build them into two wheels")
        seen[n], go_names[p.name] = p.dir, p.dir


def warn_distributions(python: Path, names: list[str]) -> None:
    """Warn of each import name a distribution installed in python's
    environment provides too (PyPI's python-snappy provides snappy): the two
    would overwrite each other's files."""
    code = ("import importlib.metadata as m, json, sys; d = m.packages_distributions(); "
            "print(json.dumps({n: d[n] for n in sys.argv[1:] if n in d}))")
    try:
        out = subprocess.run([str(python), "-c", code, *names], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return
    for name, dists in json.loads(out or "{}").items():
        if any(d.lower() != "memview" for d in dists):
            log(f"warning: {', '.join(dists)} in {python}'s environment provides {name!r} too; "
                f"give the Go package another import name with --with DIR=NAME")


def coverage(signatures: list[dict], fast: dict, helpers: str, hidden: list) -> dict:
    """For each Go package (by Go name): its exported functions and methods,
    which are bound (by a generated entry or gopy's path) and which are left
    out, with the reason (what the entries do not cover and gopy does not
    bind, and what was hidden from gopy)."""
    out = {}
    for pkg in signatures:
        n = pkg["name"]
        names = [f["name"] for f in pkg["funcs"]] + [f"{t}.{f['name']}" for t, fs in pkg["methods"].items()
                                                      for f in fs]
        entries = set(fast["fast"].get(n, {})) | {f"{t}.{m}" for t, ms in fast["methods"].get(n, {}).items()
                                                  for m in ms}
        left = {}
        for q in names:
            cname = f"{n}_{q.replace('.', '_')}"
            if q in entries or f"func {cname}(" in helpers:
                continue
            left[q] = fast["gopy"].get(f"{n}.{q}", "gopy binds no path of it")
        for h in hidden:  # functions and methods hidden from gopy (generic, ...), not types or fields
            pkg_name, _, q = h["name"].partition(".")
            if pkg_name == n and q and not h["why"].startswith(("type alias", "type constraint", "generic type",
                                                                  "its type uses")):
                left.setdefault(q, h["why"])
        total = len(set(names) | set(left))
        out[n] = {"path": pkg["path"], "functions": total, "bound": total - len(left),
                  "fast": len(entries), "left_out": dict(sorted(left.items()))}
    return out


# ---------------------------------------------------------------- the build


def shim(pkg: dict, name: str) -> str:  # name: the Go package's name (gopy's module of it)
    """The top-level package that makes a bound Go package importable by its name."""
    return (f'"""Go package {pkg["path"]}, bound with gopy and built into one extension with memview.\n\n'
            "Importing it imports memview first: they share one Go runtime. Its functions take\n"
            "NumPy and memview arrays where the Go code takes []T or *memview.Array, and\n"
            "memview.asarray views the Go slices, arrays and exporters it returns (README,\n"
            '"For Go developers").\n"""\n'
            "from memview import _gobind\n\n"
            f"_gobind.install(__name__, {name!r})\n")


def patch_package_py(path: Path, name: str) -> None:
    """gopy's module of a bound Go package binds as memview binds it however
    it is imported (memview._ext.NAME or the top-level package): its last
    lines have _gobind bind it."""
    with path.open("a") as f:
        f.write("\n\n# memview (gopyext.py): memview's conversions and call entries, however this is imported\n"
                "from memview import _gobind as _memview_gobind  # noqa: E402\n"
                f"_memview_gobind.bind_module(__name__, {name!r})\n")


def gopy_env(env: dict) -> dict:
    """The environment gopy and gopysig read the packages in: GODEBUG without
    any gotypesalias setting (Go 1.27 removed it, and a process started with
    one dies), so that both see type aliases as go/types has them since Go
    1.23, whichever Go builds; gopysig -hide spells out for gopy the aliases of
    the packages built with memview (tools/gopysig/unalias.go)."""
    debug = [kv for kv in env.get("GODEBUG", "").split(",") if kv and not kv.startswith("gotypesalias=")]
    out = {**env, "GODEBUG": ",".join(debug)}
    if not debug:
        del out["GODEBUG"]
    return out


def hide_unbindable(tools: Path, gen: Path, paths: list, env: dict, hidden: list) -> dict:
    """Hide from gopy the declarations of the packages at paths that it cannot
    bind (generic types, type aliases, what uses an instance of a generic type:
    tools/gopysig/hide.go), through a build overlay and the package driver
    that shows it to go/packages (tools/gopysig/driver.go); returns the
    environment that reads the packages through it (env itself when nothing
    is hidden); hidden collects what it hides."""
    report = json.loads(run([tools / "gopysig", "-hide", gen / "hidden", *paths], cwd=gen, env=env, capture=True))
    hidden.extend(report.get("hidden") or [])
    if not report["overlay"]:
        return env
    for h in report["hidden"]:
        log(f"not bound: {h['name']} ({h['why']})")
    for r in report.get("renamed", []):
        log(f"{r['name']} {r['why']}")
    driver = gen / "hidden" / "gopackagesdriver"  # tools/gopysig/driver.go
    driver.unlink(missing_ok=True)
    driver.symlink_to(Path(tools, "gopysig").resolve())
    return {**env, "GOPACKAGESDRIVER": str(driver), "MEMVIEW_GOPY_OVERLAY": report["overlay"]}


def build(python: Path, out: Path, *, root: Path, tools: Path, env: dict, facade: Path,
          with_dirs: list = (), tags: list = ()) -> Path:
    """Generate, patch and link the extension for python; lay out the importable
    packages under out (out/memview and one per Go package). Returns out/memview.
    env is the Go environment (CGO_CFLAGS with the include path and the abi3 define)."""
    packages = [resolve(d, env) for d in with_dirs]
    gen = out / "gen"
    shutil.rmtree(gen, ignore_errors=True)
    gen.mkdir(parents=True)
    write_build_module(gen, root, packages, env)
    paths = [f"{module_info(root, env)['Module']['Path']}/{MODULE}"] + [p.import_path for p in packages]
    genv = gopy_env(env)
    hidden: list = []
    if packages:
        genv = hide_unbindable(tools, gen, paths[1:], genv, hidden)
    signatures = json.loads(run([tools / "gopysig", *paths[1:]], cwd=gen, env=genv, capture=True)) \
        if packages else []
    for p, sig in zip(packages, signatures):
        p.name = sig["name"]
    check_names(packages)
    if packages:
        warn_distributions(python, [p.import_name for p in packages])
    run([tools / "gopy", "gen", f"-vm={python}", "-dynamic-link=true", "-no-make=true",
         f"-output={gen}", *paths], cwd=gen, env=genv)
    patch_generated_go(gen / f"{MODULE}.go")
    run([tools / "goimports", "-w", f"{MODULE}.go"], cwd=gen, env=env)
    patch_callbacks(gen / f"{MODULE}.go")  # on gofmt's layout
    wrappers = [f"{MODULE}.py", "go.py"] + [f"{p.name}.py" for p in packages]
    for name in wrappers:
        patch_generated_py(gen / name)
    for p in packages:
        patch_package_py(gen / f"{p.name}.py", p.name)
    # memview's call entries of the bound functions (gopyfast.py), beside gopy's output
    fast = gopyfast.generate(gen, signatures, root / MODULE, log)
    tagflag = [f"-tags={','.join(tags)}"] if tags else []
    # First link: produces the cgo header (pyext_go.h) that pybindgen's C includes.
    run(["go", "build", *tagflag, "-buildmode=c-shared", "-o", f"{MODULE}_go.so", "."], cwd=gen, env=env)
    (gen / f"{MODULE}_go.so").unlink()
    patch_pybindgen_script(gen / "build.py", go_names(signatures))
    run([python, "build.py"], cwd=gen, env=env)
    patch_generated_c(gen / f"{MODULE}.c")
    so = f"_{MODULE}.abi3.so"
    # Stripped, unless MEMVIEW_LDFLAGS says otherwise (" " keeps the symbols a debugger needs).
    ldflags = os.environ.get("MEMVIEW_LDFLAGS", "-s -w")
    run(["go", "build", *tagflag, "-buildmode=c-shared", f"-ldflags={ldflags}", "-o", so, "."], cwd=gen, env=env)

    # The layout: only what is imported ships (not gopy's build script, C or headers).
    for old in out.iterdir():
        if old.name != "gen":
            shutil.rmtree(old) if old.is_dir() else old.unlink()
    pkg = out / "memview"
    shutil.copytree(facade, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    ext = pkg / EXT
    ext.mkdir()
    (ext / "__init__.py").write_text('"""gopy\'s output, generated by build.py: the extension and its Python wrappers."""\n')
    for name in [so, *wrappers]:
        shutil.copy2(gen / name, ext / name)
    table = bindings_table(signatures)
    report = coverage(signatures, fast, (gen / f"{MODULE}.go").read_text(), hidden)
    for p in packages:
        report[p.name]["import_name"] = p.import_name
        table[p.name]["import_name"] = p.import_name
        r = report[p.name]
        log(f"{p.import_name} ({p.import_path}): {r['bound']} of {r['functions']} functions and methods bound, "
            f"{r['fast']} on the generated fast path")
        for q, why in r["left_out"].items():
            log(f"left out: {p.import_name}.{q} ({why})")
    stubs = {}
    for sig in signatures:  # the .pyi of each package; __all__ is the stub's public names
        stubs[sig["name"]], table[sig["name"]]["all"] = stub_text(sig, table[sig["name"]], sig["name"],
                                                                  report.get(sig["name"], {}).get("left_out"))
    (ext / "_bindings.py").write_text(
        '"""Parameters of the bound Go packages that take memory (gopysig, build.py)."""\n\n'
        f"PACKAGES = {pprint.pformat(table, width=100, sort_dicts=True)}\n")
    (ext / "_fast.py").write_text(gopyfast.module_text(fast))
    (ext / "_coverage.py").write_text(
        '"""What each bound Go package binds, by Go package name (gopyext.coverage)."""\n\n'
        f"PACKAGES = {pprint.pformat(report, width=100, sort_dicts=True)}\n")
    for p in packages:
        (out / p.import_name).mkdir()
        (out / p.import_name / "__init__.py").write_text(shim(table[p.name], p.name))
        (out / p.import_name / "__init__.pyi").write_text(stubs[p.name])
        (out / p.import_name / "py.typed").write_text("")
        r = report[p.name]
        (out / p.import_name / "_memview_bindings.json").write_text(json.dumps(
            {"path": r["path"], "bound": r["bound"], "fast": r["fast"], "functions": r["functions"],
             "left_out": r["left_out"]}, indent=1, sort_keys=True) + "\n")
    log(f"built {pkg}" + "".join(f" + {p.import_name} ({p.import_path})" for p in packages))
    return pkg


def python_config(python: Path) -> dict:
    code = ("import sysconfig, json, sys; print(json.dumps({'include': sysconfig.get_paths()['include'],"
            " 'version': list(sys.version_info[:2])}))")
    out = subprocess.run([str(python), "-c", code], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def cgo_env(python: Path, base: dict, goexperiment: str | None = None) -> dict:
    """The Go environment that builds an abi3 extension for python."""
    cfg = python_config(python)
    if tuple(cfg["version"]) < (3, 11):
        raise BuildError(f"{python} is Python {cfg['version']}: memview needs 3.11 or newer")
    env = dict(base)
    env.update({"CGO_CFLAGS": f"-I{cfg['include']} -DPy_LIMITED_API={LIMITED_API} -O2 -fPIC",
                "CGO_LDFLAGS": "", "CGO_ENABLED": "1"})
    if goexperiment:
        env["GOEXPERIMENT"] = goexperiment
    return env


if __name__ == "__main__":
    sys.exit("gopyext.py is imported by build.py: run python3 build.py")
