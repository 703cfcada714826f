"""Call entries for the functions and methods of Go packages built with memview (--with).

gopy binds a Go package's types, methods, constructors, fields and handles;
a call into one of its functions or methods passes memview's Python wrapper,
gopy's Python wrapper, pybindgen's C and, for memory, a gopy handle made for
the call. For each package-level function, and each method of a type gopy
binds, whose parameters and results memview converts, this module writes
into the build instead:

- a C entry (METH_FASTCALL | METH_KEYWORDS, the Go parameter names as
  keywords) in gen/memview_fast.c, which reads a method's receiver by its
  gopy handle, converts the arguments as gopy's path does (pyext/gopy.c's
  mv_go_*_arg: the same checks and messages), takes a []T as the pointer and
  length of the argument's buffer and a *memview.Array as its Py_buffer,
  releases the GIL and calls
- its Go shim (an //export in gen/memview_fast.go) exactly once; the shim
  makes the Go values (a []T over the buffer, the *memview.Array
  memview.from_buffer would make, the receiver read and checked as gopy's
  method reads it: gopyrt.Receiver), calls the Go function or method, and
  hands back its results, or the exception of its error or panic, without
  touching Python. Back in C, the memory a call lent stays alive with the Go
  value it returned, or the receiver, as on gopy's path (mv_fast_keep).

A function's entry is made with its gopy path as its __self__; a method's is
a method descriptor set on gopy's class, with gopy's method kept beside it.
Each hands that path every call it does not take as it is
(pyext/gopy_fast.h): the errors for a wrong call are today's. What the
entries do not cover keeps gopy's path alone, and the build names each such
function or method with the reason. Everything is generated from gopysig's
signatures; gopy's output is not edited.
"""
from __future__ import annotations

import json
import keyword
import os
import re
from pathlib import Path

ARRAY = "*github.com/memview/memview/memview.Array"
GOPYRT = "github.com/memview/memview/pyext/gopyrt"

# Go integer types: the C type the shim takes, bits and sign (as gopy's path checks them).
INTS = {"int8": ("int8_t", 8, 1), "int16": ("int16_t", 16, 1), "int32": ("int32_t", 32, 1),
        "rune": ("int32_t", 32, 1), "int64": ("int64_t", 64, 1), "int": ("int64_t", 64, 1),
        "uint8": ("uint8_t", 8, 0), "byte": ("uint8_t", 8, 0), "uint16": ("uint16_t", 16, 0),
        "uint32": ("uint32_t", 32, 0), "uint64": ("uint64_t", 64, 0), "uint": ("uint64_t", 64, 0),
        "uintptr": ("uint64_t", 64, 0)}
FLOATS = {"float64": ("double", 64), "float32": ("float", 32)}
# Slice element types: the PEP 3118 formats and item size a buffer lent as []T
# has on the entry's own path (anything else goes to gopy's path, which takes
# every spelling memview reads as that dtype, or refuses it).
SLICES = {"bool": ("?", 1), "int8": ("b", 1), "int16": ("h", 2), "int32": ("i", 4), "rune": ("i", 4),
          "int64": ("l\\0q", 8), "int": ("l\\0q", 8), "uint8": ("B", 1), "byte": ("B", 1),
          "uint16": ("H", 2), "uint32": ("I", 4), "uint64": ("L\\0Q", 8), "uint": ("L\\0Q", 8),
          "uintptr": ("L\\0Q", 8), "float32": ("f", 4), "float64": ("d", 8),
          "complex64": ("Zf", 8), "complex128": ("Zd", 16)}
GO_ELEM = {"byte": "byte", "rune": "rune"}  # else the name itself


def py_name(p: dict, i: int) -> tuple[str, bool]:
    """The Python name of parameter i, and whether it is positional-only: Go's
    name, a Python keyword (and self) with a trailing _; an unnamed or _
    parameter is the positional-only arg<i>."""
    if "go_name" not in p:
        return p["name"], False
    go = p["go_name"]
    if go in ("", "_"):
        return f"arg{i}", True
    return (go + "_" if keyword.iskeyword(go) or go == "self" else go), False


def kw_names(fn: dict) -> list[str]:
    """The keywords the entry of fn binds its parameters by ("" for a
    positional-only one, which no keyword names)."""
    return [("" if pos else n) for n, pos in (py_name(p, i) for i, p in enumerate(fn["params"]))]


class Uncovered(Exception):
    """A function the entries do not cover (the message says why)."""


def c_string(text: str) -> str:
    out = []
    for b in text.encode():
        c = chr(b)
        out.append(c if (c.isascii() and (c.isalnum() or c in "_.")) else f"\\{b:03o}")
    return '"' + "".join(out) + '"'


class Imports:
    """The Go packages the shims name, each under an alias."""

    def __init__(self):
        self.alias = {}

    def pkg(self, path: str) -> str:
        return self.alias.setdefault(path, f"p{len(self.alias)}")

    def type_expr(self, t: str) -> str:
        """The Go expression of gopysig's type string t (a basic type, []basic,
        or a named type path.Name)."""
        if re.fullmatch(r"(\[\])?\w+", t):
            return t
        m = re.fullmatch(r"(\[\])?([\w.\-~/]+)\.(\w+)", t)
        if m is None:
            raise Uncovered(f"Go type {t}")
        return f"{m[1] or ''}{self.pkg(m[2])}.{m[3]}"


def param(p: dict) -> tuple:
    """(kind, detail) of a parameter: ("int", go int type), ("float", ...),
    ("bool",), ("string",), ("slice", element type), ("array",)."""
    if p.get("func"):
        raise Uncovered(f"parameter {p['name']} is a Go func (a callback)")
    if p["type"] == ARRAY:
        return ("array",)
    under = p.get("under", "")
    if under in INTS:
        return ("int", under)
    if under in FLOATS:
        return ("float", under)
    if under in ("bool", "string"):
        return (under,)
    if under.startswith("[]") and under[2:] in SLICES and (p["type"] == under or not p["type"].startswith("[]")):
        return ("slice", under[2:])
    v = p.get("value")
    if v and v["kind"] == "array" and v["elem"] in ("uint8", "byte") and not p["type"].startswith("*"):
        return ("slice", "byte", int(v["len"]))  # [N]byte: any buffer of N bytes, copied in
    if v and v["kind"] == "struct" and all(f["type"] in C_FIELD for f in v["fields"]) and \
            re.fullmatch(r"[\w.\-~/]+\.\w+", p["type"]):
        return ("struct", v)  # by value: its fields, read from the argument's attributes
    m = re.fullmatch(r"\*([\w.\-~/]+)\.(\w+)", p["type"])
    if m and p.get("handle"):
        # a pointer to a named type: the gopy object's handle, read back with
        # gopy's own helper (which checks the handle's type as gopy's path does)
        return ("handle", f"ptrFromHandle_Ptr_{m[1].rsplit('/', 1)[-1]}_{m[2]}")
    raise Uncovered(f"parameter {p['name']} of Go type {p['type']}")


def own_kind(p: dict) -> str:
    """What the Python stand-in of an entry gopy has no path for checks of a
    parameter (_gobind.own_path): "array", the element type of a slice,
    "handle:" and the Go type of a gopy object, or "value" (a scalar the
    entry converts itself, raising its own errors)."""
    kd = param(p)
    if kd[0] in ("array", "slice"):
        return kd[0] if kd[0] == "array" else kd[1]  # ([N]byte: ("slice", "byte", N))
    return f"handle:{p['type']}" if kd[0] == "handle" else "value"


# Fixed-array elements: the code mv_fast_fixed converts each by, and the Go
# element type the shim copies them as.
FIXED = {"int8": "b", "int16": "h", "int32": "i", "int64": "q", "int": "q", "uint8": "B", "uint16": "H",
         "uint32": "I", "uint64": "Q", "uint": "Q", "uintptr": "Q", "float32": "f", "float64": "d", "bool": "?"}
C_FIELD = {"float64": "double", "float32": "float", "bool": "uint8_t", "string": "char *",
           **{t: c for t, (c, _, _) in INTS.items()}}


def result(t: str, pkg: dict, helpers: str, value: dict | None = None) -> str:
    """A result kind: a basic type's name; "[]E" for a Go slice of basic
    elements or "*path.Name" for a pointer to a type of the function's own
    package, which Python gets as gopy's object (registered by gopy's own
    handleFromPtr helper, made as gopy's wrapper makes it); "[N]E" for a
    fixed array of a basic type (a tuple, bytes for [N]byte), "struct:Name"
    for a struct of plain fields (a Python value object), as gopysig's value
    describes them."""
    m = re.fullmatch(r"([\w.\-~/]+)\.(\w+)", t)
    if m and m[1] == pkg["path"] and re.fullmatch(r"\[\d+\]uint8", (pkg.get("types") or {}).get(m[2], "")):
        return f"named:{m[2]}:{pkg['types'][m[2]]}"  # the package's bytes subclass (uuid.UUID)
    if value and value["kind"] == "array" and value["elem"] in FIXED:
        return f"[{value['len']}]{value['elem']}"
    if value and value["kind"] == "struct" and all(f["type"] in C_FIELD for f in value["fields"]):
        return f"struct:{value['name']}"
    if t in INTS or t in FLOATS or t in ("bool", "string") or (t.startswith("[]") and t[2:] in SLICES):
        return t
    if t == "[]string":
        return "strs"  # a list of str
    m = re.fullmatch(r"\*([\w.\-~/]+)\.(\w+)", t)
    if m and m[1] == pkg["path"] and f"func handleFromPtr_Ptr_{pkg['name']}_{m[2]}(" in helpers:
        return t
    m = re.fullmatch(r"([\w.\-~/]+)\.(\w+)", t)
    if m and m[1] == pkg["path"] and (pkg.get("types") or {}).get(m[2]) in INTS:
        return f"named:{m[2]}:{pkg['types'][m[2]]}"  # the package's int subclass (pkg.Mode)
    raise Uncovered(f"result of Go type {t}")


def class_results(values: list, pkg: dict) -> list:
    """The results of kinds values whose Python class the entry is given (gopy's
    object, a value object, a named integer type's int subclass): at most one,
    so that where several would be, the named integers among them are plain
    ints (plain_named) and any other more than one is Uncovered."""
    return [j for j, t in enumerate(values)
            if gopy_result(t, pkg) is not None or t.startswith(("struct:", "named:"))]


def plain_named(values: list, pkg: dict) -> list:
    """values with named integer results made plain ints where the entry
    could not be given each one's class (class_results)."""
    if len(class_results(values, pkg)) > 1:
        return [t.rsplit(":", 1)[1] if t.startswith("named:") else t for t in values]
    return values


def gopy_result(t: str, pkg: dict) -> tuple[str, str, str] | None:
    """(gopy's helper that registers it, the argument it takes, gopy's class)
    of a result Python gets as gopy's object; None for a scalar or a slice
    (a memview array)."""
    if t.startswith("*"):
        name = t.rsplit(".", 1)[1]
        return f"handleFromPtr_Ptr_{pkg['name']}_{name}", "", name
    return None


def class_name(t: str, pkg: dict) -> str:
    """The name of the Python class an entry is given for result kind t:
    "value:Name" for a value object (_gobind.value_class), else gopy's."""
    if t.startswith("named:"):
        return "named:" + t.split(":")[1]
    return f"value:{t[7:]}" if t.startswith("struct:") else gopy_result(t, pkg)[2]


def c_value_struct(name: str, spec: dict) -> str:
    """The C struct a shim writes a struct result's fields into, and the
    function that makes its value object (cls(*fields)), freeing its
    strings."""
    fields = spec["fields"]
    out = ["static PyObject *", f"{name}_result(PyObject *cls, {name} *v)", "{",
           f"    PyObject *x[{len(fields)}] = {{"
           f"{', '.join(c_result_value(f['type'], 'v->' + f['name']) for f in fields)}}};",
           f"    PyObject *args = mv_fast_results(x, {len(fields)}) < 0 ? NULL : mv_fast_tuple(x, {len(fields)});",
           "    PyObject *out = args != NULL ? PyObject_CallObject(cls, args) : NULL;",
           "    Py_XDECREF(args);", "    return out;", "}", ""]
    return "\n".join(out)


def c_struct_arg(name: str, i: int, spec: dict, qual: str, pname: str) -> list:
    """The C that reads struct argument i's fields from its attributes into
    x{i} (a name, in gen/memview_values.h): an object without one goes to
    gopy's path; a field of the wrong type raises the conversion's error,
    naming pkg.Func and param.Field. The attribute objects of string fields
    stay alive until the call is over (fo{i}_{n}, released by the entry)."""
    out = [f"    {name} x{i} = {{0}};"]
    for n, fd in enumerate(spec["fields"]):
        where = f"{c_string(qual)}, {c_string(pname + '.' + fd['name'])}"
        ft = fd["type"]
        out += [f"    fo{i}_{n} = PyObject_GetAttrString(a[{i}], {c_string(fd['name'])});",
                f"    if (fo{i}_{n} == NULL) {{", "        PyErr_Clear();", "        goto slow;", "    }"]
        if ft in INTS:
            conv = f"mv_go_int_arg(fo{i}_{n}, {INTS[ft][1]}, {INTS[ft][2]}, {where}, &x{i}.{fd['name']})"
        elif ft in FLOATS:
            conv = f"mv_go_float_arg(fo{i}_{n}, {FLOATS[ft][1]}, {where}, &x{i}.{fd['name']})"
        elif ft == "bool":
            conv = f"mv_go_bool_arg(fo{i}_{n}, {where}, &x{i}.{fd['name']})"
        else:
            conv = f"mv_go_str_arg(fo{i}_{n}, {where}, &x{i}.{fd['name']})"
        out += [f"    if ({conv} < 0)", "        goto done;"]
    return out


def c_value_typedef(name: str, spec: dict) -> str:
    """The C struct (in gen/memview_values.h, which the shims' cgo reads too)
    a shim writes a struct result's fields into."""
    return "\n".join(["typedef struct {", *[f"    {C_FIELD[f['type']]} {f['name']};" for f in spec["fields"]],
                      f"}} {name};", ""])


def c_result_type(t: str, k: int = 0, j: int = 0) -> str:
    if t == "strs":
        return "void *"
    if t.startswith("[]"):  # the array the shim made (gopyrt.SliceResult)
        return "mv_meta"
    if t.startswith("named:"):
        return c_result_type(t.rsplit(":", 1)[1])
    if t.startswith("struct:"):
        return f"mv_value_{k}_{j}"
    if t.startswith("["):
        return "void *" if not t.startswith("[]") else "int64_t"
    if t.startswith(("[]", "*")):
        return "int64_t"
    if t in INTS:
        return INTS[t][0]
    if t in FLOATS:
        return FLOATS[t][0]
    return "uint8_t" if t == "bool" else "char *"


def c_result_value(t: str, v: str, k: int = 0, inputs: int = 0, j: int = 0) -> str:
    if t == "strs":  # the list of str Go packed into C memory (mvfastStrings)
        return f"mv_fast_strings({v})"
    if t.startswith("named:"):  # the int (or bytes) made an instance of the package's subclass
        return f"mv_fast_named(result_class_{k}, {c_result_value(t.rsplit(':', 1)[1], v)})"
    if t.startswith("struct:"):  # the value object of the struct's fields
        return f"mv_value_{k}_{j}_result(result_class_{k}, &{v})"
    if t.startswith("[") and not t.startswith("[]"):  # a tuple, or bytes for [N]byte
        n, e = t[1:].split("]")
        return f"mv_fast_fixed({v}, {n}, '{'y' if e == 'uint8' else FIXED[e]}')"
    if t.startswith("[]"):  # a memview array (a view of the input it lies in)
        return f"mv_fast_meta_result(&{v}, {'ins' if inputs else 'NULL'}, {inputs})"
    if t.startswith("*"):  # a nil pointer (no handle) is None
        return f"({v} < 1 ? Py_NewRef(Py_None) : mv_fast_gopy_result(result_class_{k}, {v}))"
    if t in INTS:
        return f"PyLong_From{'LongLong' if INTS[t][2] else 'UnsignedLongLong'}({v})"
    if t in FLOATS:
        return f"PyFloat_FromDouble((double){v})"
    if t == "bool":
        return f"PyBool_FromLong({v})"
    return f"mv_fast_str_result({v})"


def go_result_store(t: str, v: str, out: str, pkg: dict, value: dict | None = None) -> str:
    if t == "strs":
        return f"*{out} = mvfastStrings({v})"
    if t.startswith("named:"):
        inner = t.rsplit(":", 1)[1]
        return f"*{out} = C.{INTS[inner][0]}({v})" if inner in INTS else go_result_store(inner, v, out, pkg)
    if t.startswith("struct:"):  # field by field into the C struct
        lines = []
        for f in value["fields"]:
            x = f"{v}.{f['name']}"
            if f["type"] == "bool":
                lines.append(f"if {x} {{\n\t\t{out}.{f['name']} = 1\n\t}}")
            elif f["type"] == "string":
                lines.append(f"{out}.{f['name']} = C.CString(string({x}))")
            else:
                lines.append(f"{out}.{f['name']} = C.{C_FIELD[f['type']].replace('char *', 'char')}({x})")
        return "\n\t".join(lines)
    if t.startswith("[") and not t.startswith("[]"):  # copied into C memory, which the entry frees
        n, e = t[1:].split("]")
        return (f"*{out} = C.malloc(C.size_t(unsafe.Sizeof({v})) + 1)\n"
                f"\t*(*[{n}]{e})(*{out}) = *(*[{n}]{e})(unsafe.Pointer(&{v}))")
    if (g := gopy_result(t, pkg)) is not None:
        if t.startswith("*"):  # nil: no handle, None in Python
            return f"if {v} != nil {{\n\t\t*{out} = C.int64_t({g[0]}({g[1]}{v}))\n\t}}"
        return f"*{out} = C.int64_t({g[0]}({g[1]}{v}))"
    if t in INTS:
        return f"*{out} = C.{INTS[t][0]}({v})"
    if t in FLOATS:
        return f"*{out} = C.{FLOATS[t][0]}({v})"
    if t == "bool":
        return f"if {v} {{\n\t\t*{out} = 1\n\t}}"
    return f"*{out} = C.CString({v})"


def read_only_by_hand() -> set:
    """The slice parameters marked read-only by hand: MEMVIEW_READONLY, a
    comma-separated list of "pkg.Func.param" or "pkg.Type.Method.param" (for
    what the analysis cannot prove, as assembly)."""
    return {x.strip() for x in os.environ.get("MEMVIEW_READONLY", "").split(",") if x.strip()}


def read_only(p: dict, qual: str) -> tuple[str, str]:
    """(outcome, why) of the read-only analysis of slice parameter p of qual
    (gopysig's readonly.go), or "by hand" where MEMVIEW_READONLY marks it."""
    if f"{qual}.{p['name']}" in read_only_by_hand():
        return "proven", "marked read-only by hand (MEMVIEW_READONLY)"
    if (p.get("value") or {}).get("kind") == "array":
        return "proven", "a Go array: its bytes are copied in"
    if "readonly" not in p:
        return "inconclusive", "not analysed"
    return p["readonly"], p.get("readonly_why", "")


def slice_flags(elem: str, p: dict, qual: str) -> str:
    """The mv_fast_slice flags of a []elem parameter p of qual: any format for
    a []byte; a read-only buffer taken as it is where Go provably only reads
    it, copied for the call where the analysis cannot tell, and refused (left
    to gopy's path) where it found a store."""
    flags = ["MV_FAST_ANY_FORMAT"] if elem in ("byte", "uint8") else []
    outcome = read_only(p, qual)[0]
    if outcome == "proven":
        flags.append("MV_FAST_RO_TAKE")
    elif outcome != "store":
        flags.append("MV_FAST_RO_COPY")
    return " | ".join(flags) or "0"


def kept_arg(i: int, kinds: list) -> str:
    """What an entry keeps of argument i it lent memory of: the copy made of
    a read-only slice argument, if one was made, else the argument."""
    return f"(c{i} != NULL ? c{i} : a[{i}])" if kinds[i][0] == "slice" else f"a[{i}]"


def keeps_gil(fn: dict, kinds: list, typ: str | None) -> str:
    """The GIL rule: "" where a call may keep the GIL, when its buffers total
    under MV_FAST_GIL_BYTES (2 KiB, hashlib's HASHLIB_GIL_MINSIZE; pyext/
    gopy_fast.h), else why every call releases it. A call keeps it only where
    gopysig proves nothing it reaches may block (blocking.go), and its time is
    bounded by those buffers: a function (a method's receiver may hold any
    amount of state) whose parameters are []T, floats and bools, one []T at
    least (an integer or a string could drive a loop of any length)."""
    if typ:
        return "a method"
    if fn.get("blocks", "not analysed"):
        return f"it may block: {fn.get('blocks', 'not analysed')}"
    if not any(kd[0] == "slice" for kd in kinds):
        return "no []T parameter bounds its work"
    if any(kd[0] not in ("slice", "float", "bool") for kd in kinds):
        return "a parameter other than []T, float or bool could drive its work"
    return ""


def bytes_to_gopy(pkg: dict, typ: str, n: int, k: int, imports: Imports) -> tuple[str, str, str]:
    """The C entry, Go shim and table row "pkg.Type@gopy" of a named [n]byte
    type: the handle of a new Go value of the n bytes of a buffer, registered
    as gopy registers one (with no reference: gopy's object takes one), for gopy's path, which
    takes the type by handle (gopy's own setter writes a copy)."""
    q = c_string(f"{pkg['name']}.{typ}@gopy")
    c = ["static PyObject *",
         f"entry_{k}(PyObject *self, PyObject *const *a, Py_ssize_t nargs, PyObject *kwnames)", "{",
         "    (void)self;",
         "    if (mv_in_child)  /* a forked child never enters Go */",
         f"        return mv_fast_forked({c_string(pkg['name'] + '_' + typ)});",
         "    if (nargs != 1 || kwnames != NULL) {",
         f"        PyErr_SetString(PyExc_TypeError, {c_string(f'{typ}@gopy takes one buffer')});",
         "        return NULL;", "    }",
         "    Py_buffer b;",
         "    if (PyObject_GetBuffer(a[0], &b, PyBUF_SIMPLE) < 0)", "        return NULL;",
         f"    if (b.len != {n}) {{", "        PyBuffer_Release(&b);",
         f"        PyErr_Format(PyExc_ValueError, \"{pkg['name']}.{typ} is {n} bytes, not %zd\", b.len);",
         "        return NULL;", "    }",
         f"    int64_t h = mvfast_{k}(b.buf);", "    PyBuffer_Release(&b);",
         "    return PyLong_FromLongLong(h);", "}", ""]
    t = f"{imports.pkg(pkg['path'])}.{typ}"
    g = [f"//export mvfast_{k}", f"func mvfast_{k}(p unsafe.Pointer) C.int64_t {{", f"	var v {t}",
         "	copy(v[:], unsafe.Slice((*byte)(p), len(v)))",
         f"	return C.int64_t(handleFromPtr_{pkg['name']}_{typ}(&v))", "}", ""]
    row = (f"    {{{q}, {{{c_string(typ + '@gopy')}, (PyCFunction)(void (*)(void))entry_{k}, "
           "METH_FASTCALL | METH_KEYWORDS, NULL}, NULL, NULL, NULL, NULL},")
    return "\n".join(c), "\n".join(g), row


def entry(pkg: dict, fn: dict, k: int, imports: Imports, helpers: str, typ: str | None = None,
          value_method: str | None = None, write_back: bool = False) -> tuple[str, str, str]:
    """The C entry, the Go shim and the table row of function fn (number k),
    or, given typ, of fn as a method of the bound type typ of pkg; helpers is
    gopy's generated Go, whose handle helpers the shims call."""
    if fn["variadic"]:
        raise Uncovered("variadic")
    name = fn["name"]
    qual = f"{pkg['name']}.{typ}.{name}" if typ else f"{pkg['name']}.{name}"
    cname = qual.replace(".", "_")  # gopy's name of it (the fork's error names it so)
    # own: gopy binds no such function or method (several results, ...); the
    # entry is its only path, and the calls it does not take go to a Python
    # stand-in that raises the TypeError (_gobind.own_path)
    own = f"func {cname}({'_handle CGoHandle' if typ else ''}" not in helpers
    kinds = [param(p) for p in fn["params"]]
    res = fn["results"]
    error = bool(res) and res[-1] == "error"
    specs = (fn.get("values") or [None] * len(res))[:len(res) - error]
    values = plain_named([result(t, pkg, helpers, sp) for t, sp in zip(res[:len(res) - error], specs)], pkg)
    # the results whose Python class the entry is given (gopy's, a value object's, an int subclass)
    gopy_values = class_results(values, pkg)
    if len(gopy_values) > 1:
        raise Uncovered("more than one result Python gets as a gopy object or a value object")
    named = bool(gopy_values) and values[gopy_values[0]].startswith("named:")
    structs = {j: specs[j] for j, t in enumerate(values) if t.startswith("struct:")}
    shim = f"mvfast_{k}"
    go_run = not res and not own
    names = kw_names(fn) + (["goRun"] if go_run else [])
    n = len(names)
    q = c_string(qual)
    # what the entry hands gopy's path: a function's is its __self__, a method's is
    # kept beside it (gopy's method of the class, set by go_fast_method)
    fallback = (f"mv_fast_method_fallback(gopy_path_{k}, self, args, nargs, kwnames)" if typ
                else "mv_fast_fallback(gopy_path, args, nargs, kwnames)")
    memory = [i for i, kd in enumerate(kinds) if kd[0] in ("slice", "array")]
    gopy_value = bool(gopy_values)
    # memory Go may keep lives with the Go value returned, or the receiver (as on
    # gopy's path); a value object keeps nothing
    keeps = bool(memory) and ((gopy_value and not structs and not named) or bool(typ))

    # ---- C
    c = [f"/* {qual} */", *[c_value_struct(f"mv_value_{k}_{j}", sp) for j, sp in structs.items()],
         *([f"static PyObject *result_class_{k};"] if gopy_value else []),
         *([f"static PyObject *gopy_path_{k};"] if typ else []),
         *([f"static PyObject *keep_key_{k};"] if keeps else []),
         f"static const char *const names_{k}[] = {{{', '.join([c_string(x) for x in names] or ['NULL'])}}};",
         "static PyObject *",
         f"entry_{k}(PyObject *{'self' if typ else 'gopy_path'}, PyObject *const *args, Py_ssize_t nargs, "
         "PyObject *kwnames)",
         "{",
         "    if (mv_in_child)",
         f"        return mv_fast_forked({c_string(cname)});",
         f"    PyObject *a[{max(n, 1)}];",
         f"    if (mv_fast_bind(args, nargs, kwnames, names_{k}, {n}, a) < 0)",
         f"        return {fallback};"]
    for i in range(len(fn["params"])):
        c.append(f"    if (a[{i}] == NULL)")
        c.append(f"        return {fallback};")
    if go_run:  # goRun=True: a goroutine, on gopy's path
        c += [f"    if (a[{n - 1}] != NULL) {{",
              f"        int t = PyObject_IsTrue(a[{n - 1}]);",
              "        if (t != 0) {",
              "            PyErr_Clear();",
              f"            return {fallback};",
              "        }",
              "    }"]
    if typ:  # the receiver: gopy's object, by its handle (checked in Go, as on gopy's path)
        c += ["    int64_t recv;", "    if (!mv_fast_handle(self, &recv))", f"        return {fallback};"]
    slices = [i for i, kd in enumerate(kinds) if kd[0] == "slice"]
    arrays = [i for i, kd in enumerate(kinds) if kd[0] == "array"]
    for i in slices:
        c.append(f"    Py_buffer b{i};")
        c.append(f"    int h{i} = 0;")
        c.append(f"    PyObject *c{i} = NULL;")  # a read-only buffer's copy for the call
        c.append(f"    void *p{i} = NULL;")
        c.append(f"    int64_t n{i} = -1;")  # None: a nil slice
    for i in arrays:
        c.append(f"    mv_fast_lent *v{i} = NULL;")
    c += ["    mv_fast_failure f = {0};", "    PyObject *out = NULL;", "    int slow = 0;"]
    for i, kd in enumerate(kinds):
        if kd[0] == "struct":
            c += [f"    PyObject *fo{i}_{n} = NULL;" for n in range(len(kd[1]["fields"]))]
    for j, t in enumerate(values):
        c.append(f"    {c_result_type(t, k, j)} r{j}{' = {0}' if j in structs or t.startswith('[]') else ' = 0'};")
    # Memory and handles first, as on gopy's path (memview checks them before gopy
    # converts the rest); any of them the entry does not take sends the call there.
    for i, kd in enumerate(kinds):
        if kd[0] == "slice":
            fmt, size = SLICES[kd[1]]
            flags = slice_flags(kd[1], fn["params"][i], qual)
            c.append(f"    if (a[{i}] != Py_None) {{")
            c.append(f"        if (!(h{i} = mv_fast_slice(a[{i}], \"{fmt}\\0\", {size}, {flags}, &b{i}, &c{i})))")
            c.append("            goto slow;")
            c.append(f"        p{i} = c{i} != NULL ? (void *)PyByteArray_AsString(c{i}) : b{i}.buf;")
            c.append(f"        n{i} = (int64_t)(b{i}.len / {size});")
            c.append("    }")
        elif kd[0] == "array":
            c.append(f"    if (!mv_fast_array(a[{i}], &v{i}))")
            c.append("        goto slow;")
    for i, kd in enumerate(kinds):  # a struct by value: its fields, as attributes of the argument
        if kd[0] == "struct":
            c += c_struct_arg(f"mv_param_{k}_{i}", i, kd[1], qual, py_name(fn["params"][i], i)[0])
    for i, kd in enumerate(kinds):  # (on gopy's path the handles are checked first: any order does here)
        if kd[0] == "handle":
            # None stays refused (gopy's path): a nil dereference in Go is a
            # panic only while Go's own SIGSEGV handler is installed, and
            # faulthandler (pytest, -X faulthandler) replaces it
            c.append(f"    int64_t x{i};")
            c.append(f"    if (!mv_fast_handle(a[{i}], &x{i}))")
            c.append("        goto slow;")
    call = ["recv"] if typ else []
    for i, (p, kd) in enumerate(zip(fn["params"], kinds)):
        where = f"{q}, {c_string(p['name'])}"
        if kd[0] == "int":
            ct, bits, signed = INTS[kd[1]]
            c.append(f"    {ct} x{i};")
            c.append(f"    if (mv_go_int_arg(a[{i}], {bits}, {signed}, {where}, &x{i}) < 0)")
            c.append("        goto done;")
            call.append(f"x{i}")
        elif kd[0] == "float":
            ct, bits = FLOATS[kd[1]]
            c.append(f"    {ct} x{i};")
            c.append(f"    if (mv_go_float_arg(a[{i}], {bits}, {where}, &x{i}) < 0)")
            c.append("        goto done;")
            call.append(f"x{i}")
        elif kd[0] == "bool":
            c.append(f"    uint8_t x{i};")
            c.append(f"    if (mv_go_bool_arg(a[{i}], {where}, &x{i}) < 0)")
            c.append("        goto done;")
            call.append(f"x{i}")
        elif kd[0] == "string":
            c.append(f"    char *x{i};")
            c.append(f"    if (mv_go_str_arg(a[{i}], {where}, &x{i}) < 0)")
            c.append("        goto done;")
            call.append(f"x{i}")
        elif kd[0] == "handle":
            call.append(f"x{i}")
        elif kd[0] == "struct":
            call.append(f"&x{i}")
        elif kd[0] == "slice":
            call += [f"p{i}", f"n{i}"]
        else:
            call.append(f"v{i}")
    call += [f"&r{j}" for j in range(len(values))]
    ro_mask = bool(slices) and any(t.startswith("[]") for t in values)
    if ro_mask:  # which []T arguments are read-only (or copies): a []T result in one is too
        c.append("    uint64_t ro = " + " | ".join(
            f"((uint64_t)(c{i} != NULL || (h{i} && b{i}.readonly)) << {bit})" for bit, i in enumerate(slices)) + ";")
        call.append("ro")
    call.append("&f")
    if keeps_gil(fn, kinds, typ) == "":
        # it cannot block, and its buffers are small: the call keeps the GIL (gil_rule)
        size = " + ".join(f"(h{i} ? b{i}.len : 0)" for i in slices)
        c += [f"    if ({size} < MV_FAST_GIL_BYTES) {{",
              f"        {shim}({', '.join(call)});",
              "    } else {",
              "        PyThreadState *ts = PyEval_SaveThread();",
              f"        {shim}({', '.join(call)});",
              "        PyEval_RestoreThread(ts);",
              "    }"]
    else:
        c += ["    {",
              "        PyThreadState *ts = PyEval_SaveThread();",
              f"        {shim}({', '.join(call)});",
              "        PyEval_RestoreThread(ts);",
              "    }"]
    for j, i in enumerate(arrays):
        c.append(f"    if (!(f.taken & {1 << j}u))")
        c.append(f"        mv_fast_release_array(v{i});")
        c.append(f"    v{i} = NULL;")
    c += ["    if (f.fallback)", "        goto slow;",
          "    if (f.exception != NULL) {", "        mv_fast_raise(&f);", "        goto done;", "    }"]
    m = len(values)
    inputs = slices if any(t.startswith("[]") for t in values) else []
    if inputs:  # the memory of the []T arguments, which a []T result may lie in
        c.append("    mv_fast_input ins[] = {" + ", ".join(
            f"{{c{i} != NULL ? c{i} : a[{i}], h{i} ? (const char *)p{i} : NULL, h{i} ? b{i}.len : 0, "
            f"c{i} != NULL || (h{i} && b{i}.readonly)}}" for i in inputs) + "};")
    if m:  # each result converted (freeing what Go allocated), then one value or a tuple
        c.append(f"    PyObject *o[{m}] = {{"
                 f"{', '.join(c_result_value(t, f'r{j}', k, len(inputs), j) for j, t in enumerate(values))}}};")
        c.append(f"    if (mv_fast_results(o, {m}) < 0)")
        c.append("        goto done;")
    if write_back:  # a pointer-receiver method of a value object: its fields as Go left them
        fields = kinds[0][1]["fields"]
        c.append(f"    PyObject *wb[{len(fields)}] = {{"
                 f"{', '.join(c_result_value(fd['type'], 'x0.' + fd['name']) for fd in fields)}}};")
        c += [f"    if (mv_fast_results(wb, {len(fields)}) < 0) {{", f"        mv_fast_drop(o, {m});" if m else "",
              "        goto done;", "    }"]
        for n, fd in enumerate(fields):
            c += [f"    if (PyObject_SetAttrString(a[0], {c_string(fd['name'])}, wb[{n}]) < 0) {{",
                  f"        mv_fast_drop(wb, {len(fields)});", f"        mv_fast_drop(o, {m});" if m else "",
                  "        goto done;", "    }"]
        c.append(f"    mv_fast_drop(wb, {len(fields)});")
    if keeps:
        owner = f"o[{gopy_values[0]}]" if gopy_value else "self"
        c += [f"    if ({owner} != Py_None) {{",
              f"        PyObject *lent[] = {{{', '.join(kept_arg(i, kinds) for i in memory)}}};",
              f"        if (mv_fast_keep({owner}, keep_key_{k}, lent, {len(memory)}) < 0) {{",
              f"            mv_fast_drop(o, {m});" if m else "",
              "            goto done;",
              "        }",
              "    }"]
    c.append(f"    out = {'Py_NewRef(Py_None)' if not m else 'o[0]' if m == 1 else f'mv_fast_tuple(o, {m})'};")
    c.append("    goto done;")
    c += ["slow:", "    slow = 1;", "done:"]
    for i, kd in enumerate(kinds):
        if kd[0] == "struct":
            c += [f"    Py_XDECREF(fo{i}_{n});" for n in range(len(kd[1]["fields"]))]
    for i in slices:
        c.append(f"    if (h{i})")
        c.append(f"        PyBuffer_Release(&b{i});")
        c.append(f"    Py_XDECREF(c{i});")
    for i in arrays:
        c.append(f"    mv_fast_release_array(v{i});")
    c += ["    if (slow)", f"        return {fallback};",
          "    return out;", "}", ""]

    # ---- Go
    gparams, pre, args = (["recv C.int64_t"] if typ else []), [], []
    nslice = 0
    for i, (p, kd) in enumerate(zip(fn["params"], kinds)):
        t = imports.type_expr(p["type"]) if kd[0] not in ("array", "handle") else ""
        if kd[0] in ("int", "float"):
            ct = INTS[kd[1]][0] if kd[0] == "int" else FLOATS[kd[1]][0]
            gparams.append(f"x{i} C.{ct}")
            args.append(f"{t}(x{i})")
        elif kd[0] == "bool":
            gparams.append(f"x{i} C.uint8_t")
            args.append(f"x{i} != 0" if t == "bool" else f"{t}(x{i} != 0)")
        elif kd[0] == "string":
            gparams.append(f"x{i} *C.char")
            args.append(f"C.GoString(x{i})" if t == "string" else f"{t}(C.GoString(x{i}))")
        elif kd[0] == "struct":  # the Go value, field by field (through its basic type: fields may be named types)
            gparams.append(f"x{i} *C.mv_param_{k}_{i}")
            pre.append(f"\tvar s{i} {t}")
            for fd in kd[1]["fields"]:
                ft, src = fd["type"], f"x{i}.{fd['name']}"
                val = (f"{src} != 0" if ft == "bool" else f"C.GoString({src})" if ft == "string"
                       else f"{ft}({src})")
                pre.append(f"\t*(*{ft})(unsafe.Pointer(&s{i}.{fd['name']})) = {val}")
            args.append(f"s{i}")
        elif kd[0] == "handle":
            if f"func {kd[1]}(" not in helpers:
                raise Uncovered(f"parameter {p['name']}: no gopy helper {kd[1]} for Go type {p['type']}")
            gparams.append(f"x{i} C.int64_t")
            args.append(f"mvfastPtr(x{i}, {kd[1]})")
        elif kd[0] == "slice" and len(kd) == 3:  # [N]byte: the buffer's N bytes
            gparams += [f"x{i} unsafe.Pointer", f"n{i} C.int64_t"]
            pre += [f"\tvar s{i} {t}",
                    f"\tif !mvfastArray(s{i}[:], x{i}, n{i}, f, {json.dumps(f'{qual}() argument {py_name(p, i)[0]!r}')}) {{", "\t\treturn", "\t}"]
            args.append(f"s{i}")
        elif kd[0] == "slice":
            gparams += [f"x{i} unsafe.Pointer", f"n{i} C.int64_t"]
            s = f"mvfastSlice[{GO_ELEM.get(kd[1], kd[1])}](x{i}, n{i})"
            args.append(s if t.startswith("[]") else f"{t}({s})")
        else:
            gparams.append(f"lent{i} unsafe.Pointer")
            pre += [f"\ta{i}, lend{i}, err{i} := gopyrt.ImportBuffer(lent{i})",
                    f"\tif err{i} != nil {{", "\t\tf.fallback = 1", "\t\treturn", "\t}",
                    f"\tf.taken |= {1 << nslice}",
                    # given back during the call: the entry releases the Py_buffer (it has the GIL)
                    f"\tdefer func() {{\n\t\tif lend{i}.End() {{\n\t\t\tf.taken &^= {1 << nslice}\n\t\t}}\n\t}}()",
                    f"\tdefer mvfastRelease(a{i})"]
            nslice += 1
            args.append(f"a{i}")
    for j, t in enumerate(values):
        inner = t.rsplit(":", 1)[1] if t.startswith("named:") else t
        if (inner.startswith("[") and not inner.startswith("[]")) or t == "strs":
            gparams.append(f"r{j} *unsafe.Pointer")
        elif t.startswith("[]"):
            gparams.append(f"r{j} unsafe.Pointer")  # an mv_meta (gopyrt.SliceResult)
        else:
            gparams.append(f"r{j} *C.{c_result_type(t, k, j).replace('char *', 'char').strip()}"
                           if t != "string" else f"r{j} **C.char")
    if ro_mask:
        gparams.append("ro C.uint64_t")
    gparams.append("f *C.mv_fast_failure")
    if typ:  # read and checked as gopy's method reads its receiver (gopyrt.Receiver)
        go_type = f"{imports.pkg(pkg['path'])}.{typ}"
        gopy_name = json.dumps(f"*{pkg['name']}.{typ}")  # as gopy names the type in its messages
        target = (f"gopyrt.Receiver[*{go_type}](int64(recv), {gopy_name}, "
                  f"reflect.TypeFor[{go_type}]()).{name}({', '.join(args)})")
    elif value_method:  # a value-receiver method of a value object: self is its first parameter
        target = f"{args[0]}.{value_method}({', '.join(args[1:])})"
    else:
        target = f"{imports.pkg(pkg['path'])}.{name}({', '.join(args)})"
    outs = [f"v{j}" for j in range(len(values))] + (["err"] if error else [])
    body = [f"//export {shim}", f"func {shim}({', '.join(gparams)}) {{",
            "\tdefer func() {", "\t\tif p := recover(); p != nil {",
            "\t\t\tmvfastFail(f, gopyrt.PanicFailure(p))", "\t\t}", "\t}()", *pre]
    body.append(f"\t{', '.join(outs)} := {target}" if outs else f"\t{target}")
    if error:
        body += ["\tif err != nil {", "\t\tmvfastFail(f, gopyrt.ErrorFailure(err))", "\t\treturn", "\t}"]
    made = []  # the []T results whose arrays are made: given back if a later one fails
    for j, t in enumerate(values):
        if not t.startswith("[]"):
            body.append("\t" + go_result_store(t, f"v{j}", f"r{j}", pkg, structs.get(j)))
            continue
        elem = {"int": "int64", "uint": "uint64", "uintptr": "uint64", "byte": "uint8", "rune": "int32"}.get(
            t[2:], t[2:])
        ro = " ||\n\t\t".join(f"(ro&{1 << bit} != 0 && mvfastInside(rp{j}, x{i}, n{i}, {SLICES[kinds[i][1]][1]}))"
                               for bit, i in enumerate(slices)) if ro_mask else "false"
        body += [f"\trp{j} := unsafe.Pointer(unsafe.SliceData(v{j}))",
                 f"\tif err := gopyrt.SliceResult(rp{j}, len(v{j}), memview.DTypeOf[{elem}](),\n\t\t{ro}, r{j}); "
                 "err != nil {",
                 *[f"\t\tgopyrt.SliceRelease(r{jj})" for jj in made],
                 "\t\tmvfastFail(f, gopyrt.ErrorFailure(err))", "\t\treturn", "\t}"]
        made.append(j)
    if write_back:  # the receiver's fields, back into the C struct the entry read them from
        for fd in kinds[0][1]["fields"]:
            ft, v = fd["type"], f"*(*{fd['type']})(unsafe.Pointer(&s0.{fd['name']}))"
            if ft == "bool":
                body.append(f"\tx0.{fd['name']} = 0\n\tif {v} {{\n\t\tx0.{fd['name']} = 1\n\t}}")
            elif ft == "string":
                body.append(f"\tx0.{fd['name']} = C.CString({v})")
            else:
                body.append(f"\tx0.{fd['name']} = C.{C_FIELD[ft]}({v})")
    body += ["}", ""]
    cls = (f"\"{class_name(values[gopy_values[0]], pkg)}\", &result_class_{k}" if gopy_value else "NULL, NULL")
    row = (f"    {{{q}, {{{c_string(name)}, (PyCFunction)(void (*)(void))entry_{k}, "
           f"METH_FASTCALL | METH_KEYWORDS, NULL}}, {cls}, {f'&gopy_path_{k}' if typ else 'NULL'}, "
           f"{f'&keep_key_{k}' if keeps else 'NULL'}}},")
    return "\n".join(c), "\n".join(body), row


C_HEAD = """/* Written by build.py (gopyfast.py): the call entries of the bound Go functions. */
#include <stdlib.h>
#include <string.h>

#include "gopy_fast.h"
#include "bridge.h"
#include "memview_values.h"
#include "_cgo_export.h"

/* A Go string result: gopy's path reads it as a C string (up to a NUL) and frees it. */
static PyObject *
mv_fast_str_result(char *s)
{
    PyObject *out = PyUnicode_FromString(s ? s : "");
    free(s);
    return out;
}

/* mv_fast_fixed: the tuple of the n elements at p of a Go fixed array
 * (code: a struct module letter of their C type), or bytes for 'y'
 * ([N]byte, as hashlib's digest() gives); frees p (malloc'd by Go). */
static PyObject *
mv_fast_fixed(void *p, Py_ssize_t n, char code)
{
    if (p == NULL)
        return PyErr_NoMemory();
    PyObject *out = code == 'y' ? PyBytes_FromStringAndSize(p, n) : PyTuple_New(n);
    for (Py_ssize_t i = 0; code != 'y' && out != NULL && i < n; i++) {
        PyObject *x = NULL;
        switch (code) {
        case 'b': x = PyLong_FromLong(((int8_t *)p)[i]); break;
        case 'h': x = PyLong_FromLong(((int16_t *)p)[i]); break;
        case 'i': x = PyLong_FromLong(((int32_t *)p)[i]); break;
        case 'q': x = PyLong_FromLongLong(((int64_t *)p)[i]); break;
        case 'B': x = PyLong_FromUnsignedLong(((uint8_t *)p)[i]); break;
        case 'H': x = PyLong_FromUnsignedLong(((uint16_t *)p)[i]); break;
        case 'I': x = PyLong_FromUnsignedLong(((uint32_t *)p)[i]); break;
        case 'Q': x = PyLong_FromUnsignedLongLong(((uint64_t *)p)[i]); break;
        case 'f': x = PyFloat_FromDouble(((float *)p)[i]); break;
        case 'd': x = PyFloat_FromDouble(((double *)p)[i]); break;
        default: x = PyBool_FromLong(((uint8_t *)p)[i]); break;
        }
        if (x == NULL)
            Py_CLEAR(out);
        else
            PyTuple_SetItem(out, i, x);
    }
    free(p);
    return out;
}

/* mv_fast_strings: the list of the strings of a Go []string, packed by
 * mvfastStrings at p (their count, then each one's length and bytes, the
 * lengths int64 and unaligned); frees p (malloc'd by Go). */
static PyObject *
mv_fast_strings(void *p)
{
    if (p == NULL)
        return PyErr_NoMemory();
    const char *at = p;
    int64_t n, len;
    memcpy(&n, at, sizeof n);
    at += sizeof n;
    PyObject *out = PyList_New((Py_ssize_t)n);
    for (int64_t i = 0; out != NULL && i < n; i++) {
        memcpy(&len, at, sizeof len);
        at += sizeof len;
        PyObject *x = PyUnicode_DecodeUTF8(at, (Py_ssize_t)len, NULL);
        at += len;
        if (x == NULL)
            Py_CLEAR(out);
        else
            PyList_SetItem(out, (Py_ssize_t)i, x);
    }
    free(p);
    return out;
}

/* mv_fast_drop drops the results o[0..n) converted so far (NULL for none). */
static void
mv_fast_drop(PyObject **o, int n)
{
    for (int i = 0; i < n; i++)
        Py_CLEAR(o[i]);
}

/* mv_fast_results: 0 when every result o[0..n) was converted, else -1 with
 * the exception set and every one dropped. */
static int
mv_fast_results(PyObject **o, int n)
{
    for (int i = 0; i < n; i++) {
        if (o[i] == NULL) {
            mv_fast_drop(o, n);
            return -1;
        }
    }
    return 0;
}

/* mv_fast_tuple: the tuple of the results o[0..n) of a Go function with
 * several, which it takes (NULL, and every one dropped, when it cannot). */
static PyObject *
mv_fast_tuple(PyObject **o, int n)
{
    PyObject *t = PyTuple_New(n);
    if (t == NULL) {
        mv_fast_drop(o, n);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        PyTuple_SetItem(t, i, o[i]);
    return t;
}

"""

GO_HEAD = """// Written by build.py (gopyfast.py): the Go shims of the call entries in
// memview_fast.c, one per bound Go function they cover.

package main

/*
#cgo CFLAGS: -I{include}
#include "gopy_fast.h"
#include "memview_values.h"
*/
import "C"

import (
\t"encoding/binary"
\t"fmt"
{std}\t"unsafe"

\t"github.com/go-python/gopy/gopyh"
\t"github.com/memview/memview/memview"
\t"{gopyrt}"
{imports})

// mvfastArray copies the n bytes at p, a buffer the C entry took for a Go
// [N]byte parameter, into a; false (with the exception set in f) where n is
// not N, or the argument was None (n < 0).
func mvfastArray(a []byte, p unsafe.Pointer, n C.int64_t, f *C.mv_fast_failure, what string) bool {{
\tswitch {{
\tcase n < 0:
\t\tmvfastFail(f, gopyrt.ErrorFailure(fmt.Errorf("%s: Go takes a [%d]byte here, not None: %w",
\t\t\twhat, len(a), memview.ErrType)))
\t\treturn false
\tcase int(n) != len(a):
\t\tmvfastFail(f, gopyrt.ErrorFailure(fmt.Errorf("%s: Go takes a [%d]byte here, not %d bytes: %w",
\t\t\twhat, len(a), n, memview.ErrInvalid)))
\t\treturn false
\t}}
\tif n > 0 {{
\t\tcopy(a, unsafe.Slice((*byte)(p), n))
\t}}
\treturn true
}}

// mvfastInside reports whether p lies in the n elements of size bytes at x
// (a []T argument; n < 0 for None).
func mvfastInside(p, x unsafe.Pointer, n C.int64_t, size int) bool {{
\treturn n > 0 && uintptr(p) >= uintptr(x) && uintptr(p) < uintptr(x)+uintptr(n)*uintptr(size)
}}

// mvfastStrings packs s into C memory for mv_fast_strings, which frees it:
// the count, then each string's length and bytes (nil on no memory).
func mvfastStrings(s []string) unsafe.Pointer {{
\tsize := 8
\tfor _, x := range s {{
\t\tsize += 8 + len(x)
\t}}
\tp := C.malloc(C.size_t(size))
\tif p == nil {{
\t\treturn nil
\t}}
\tb := unsafe.Slice((*byte)(p), size)
\tat := 8
\t*(*int64)(unsafe.Pointer(&b[0])) = int64(len(s))
\tfor _, x := range s {{
\t\tbinary.NativeEndian.PutUint64(b[at:], uint64(len(x)))
\t\tat += 8 + copy(b[at+8:], x)
\t}}
\treturn p
}}

// mvfastSlice is the []T over n elements at p the C entry took from a
// buffer, for the call (an empty, non-nil slice for none, as on gopy's path;
// nil for None, n < 0).
func mvfastSlice[T any](p unsafe.Pointer, n C.int64_t) []T {{
\tif n < 0 {{
\t\treturn nil
\t}}
\tif n == 0 {{
\t\treturn []T{{}}
\t}}
\treturn unsafe.Slice((*T)(p), int(n))
}}

// mvfastPtr is the Go pointer of gopy's handle h, read back by gopy's own
// helper get (which checks its type), or nil for None (h 0: gopy's handles
// start at 1).
func mvfastPtr[T any](h C.int64_t, get func(CGoHandle) T) T {{
\tif h == 0 {{
\t\tvar nilPtr T
\t\treturn nilPtr
\t}}
\treturn get(CGoHandle(h))
}}

// mvfastHandle is gopy's handle h of a []T result with one reference (gopy
// registers it with none), which the C entry drops once it made the memview
// array of it.
func mvfastHandle(h CGoHandle) CGoHandle {{
\tgopyh.IncRef(gopyh.CGoHandle(h))
\treturn h
}}

// mvfastRelease releases the *memview.Array a call was lent: Go keeps the
// memory past the call only through views it made of it.
func mvfastRelease(a *memview.Array) {{ _ = a.Release() }}

// mvfastFail reports x to the C entry, which raises it.
func mvfastFail(f *C.mv_fast_failure, x gopyrt.Failure) {{
\tf.exception = x.Exception
\tf.message = C.CString(x.Message)
\tif x.Fields != "" {{
\t\tf.fields = C.CString(x.Fields)
\t}}
}}

"""


# A method as gopy's generated Go has it: its function, and the Go type whose
# receiver it reads from the handle ("*pkg.T" for a struct, "pkg.I" for an
# interface).
GOPY_METHOD = re.compile(r"^func (?P<fn>\w+)\(_handle CGoHandle[^\n]*\{\n(?:[^\n]*\n){0,12}?\t+vifc, __err := "
                         r"gopyh\.VarFromHandleTry\(\(gopyh\.CGoHandle\)\(_handle\), "
                         r"\"(?P<ptr>\*?)(?P<pkg>\w+)\.(?P<typ>\w+)\"\)", re.M)


def covered_c_names(methods: dict) -> set:
    """gopy's names ("pkg_Type_Method") of the methods that have entries."""
    return {f"{p}_{t}_{n}" for p, types in methods.items() for t, ns in types.items() for n in ns}


def generate(gen: Path, signatures: list[dict], include: Path, log) -> dict:
    """Write gen/memview_fast.c and gen/memview_fast.go for the functions and
    methods of signatures the entries cover; log each that keeps gopy's path
    alone, and why. Returns {"fast": {pkg: {name: the gopy class of its
    result, or None}}, "methods": {pkg: {type: {name: the same}}}, "gopy":
    {"pkg.Func" or "pkg.Type.Method": why}}."""
    imports = Imports()
    helpers = (gen / "pyext.go").read_text() if (gen / "pyext.go").exists() else ""
    cs, gos, rows = [], [], []
    fast, methods, gopy, own, readonly, value_types, gil, value_methods = {}, {}, {}, {}, {}, {}, {}, {}
    bytes_types: dict = {}  # {package: {named [N]byte type: N}}
    typedefs = ["/* Written by build.py (gopyfast.py): the C structs of struct results. */",
                "#ifndef MEMVIEW_VALUES_H", "#define MEMVIEW_VALUES_H", "#include <stdint.h>", ""]
    k = 0

    def add(pkg: dict, fn: dict, typ: str | None, into: dict, value_method: str | None = None,
            write_back: bool = False) -> None:
        """fn's entry, if the entries cover it: into[name] is then the gopy
        class of its Go value result (or None)."""
        nonlocal k
        qual = f"{pkg['name']}.{typ}.{fn['name']}" if typ else f"{pkg['name']}.{fn['name']}"
        try:
            c, g, row = entry(pkg, fn, k, imports, helpers, typ, value_method, write_back)
        except Uncovered as e:
            if not value_method:  # (a method a value object lacks keeps gopy's object)
                gopy[qual] = str(e)
            return
        cs.append(c)
        gos.append(g)
        specs = fn.get("values") or [None] * len(fn["results"])
        for j, sp in enumerate(s for s, t in zip(specs, fn["results"]) if t != "error"):
            if sp and sp["kind"] == "struct" and all(f["type"] in C_FIELD for f in sp["fields"]):
                typedefs.append(c_value_typedef(f"mv_value_{k}_{j}", sp))
        for i, kd in enumerate(map(param, fn["params"])):
            if kd[0] == "struct":
                typedefs.append(c_value_typedef(f"mv_param_{k}_{i}", kd[1]))
        rows.append(row)
        k += 1
        specs = fn.get("values") or [None] * len(fn["results"])
        kinds = plain_named([result(t, pkg, helpers, sp) for t, sp in zip(fn["results"], specs) if t != "error"],
                            pkg)
        named = [class_name(kinds[j], pkg) for j in class_results(kinds, pkg)]
        into[fn["name"]] = named[0] if named else None
        for sp in specs:
            if sp and sp["kind"] == "struct" and all(f["type"] in C_FIELD for f in sp["fields"]):
                value_types.setdefault(pkg["name"], {})[sp["name"]] = [f["name"] for f in sp["fields"]]
        cname = f"{pkg['name']}_{typ}_{fn['name']}" if typ else f"{pkg['name']}_{fn['name']}"
        if f"func {cname}({'_handle CGoHandle' if typ else ''}" not in helpers:
            own[qual] = {py_name(p, i)[0]: own_kind(p) for i, p in enumerate(fn["params"])}
        kinds_ = [param(p) for p in fn["params"]]
        gil[qual] = keeps_gil(fn, kinds_, typ) or None
        ro = {py_name(p, i)[0]: list(read_only(p, qual)) for i, (p, kd) in enumerate(zip(fn["params"], kinds_)) if kd[0] == "slice"}
        if ro:
            readonly[qual] = ro

    def add_value_methods(pkg: dict, typ: str, fns: list, self_param: dict, pointer_receivers: bool = False) -> None:
        """The entries "pkg.Type@Method" of typ's methods on its Python value (a
        value object, an int or bytes subclass), which take it as self_param
        says: those of value receivers, and with pointer_receivers those of
        pointer receivers too, which write the fields back."""
        for fn in fns:
            if not fn.get("value_recv") and not pointer_receivers:
                continue
            vfn = {**fn, "name": f"{typ}@{fn['name']}", "params": [self_param, *fn["params"]]}
            got = {}
            add(pkg, vfn, None, got, value_method=fn["name"], write_back=not fn.get("value_recv"))
            if got:
                value_methods.setdefault(pkg["name"], {}).setdefault(typ, {})[fn["name"]] = \
                    [f"{pkg['name']}.{typ}@{fn['name']}", got[vfn["name"]]]

    for pkg in signatures:
        fast[pkg["name"]], methods[pkg["name"]] = {}, {}
        for fn in pkg["funcs"]:
            add(pkg, fn, None, fast[pkg["name"]])
        for typ, fns in pkg["methods"].items():
            covered = {}
            for fn in fns:
                add(pkg, fn, typ, covered)
            if covered:
                methods[pkg["name"]][typ] = covered
            under = (pkg.get("types") or {}).get(typ, "")
            if m := re.fullmatch(r"\[(\d+)\]uint8", under):  # a named [N]byte: its bytes subclass is self
                bytes_types.setdefault(pkg["name"], {})[typ] = int(m[1])
                if f"func handleFromPtr_{pkg['name']}_{typ}(" in helpers:
                    c, g, row = bytes_to_gopy(pkg, typ, int(m[1]), k, imports)
                    cs.append(c)
                    gos.append(g)
                    rows.append(row)
                    k += 1
                # (bytes are immutable: a pointer receiver's method stays gopy's)
                add_value_methods(pkg, typ, fns, {"name": "self", "type": f"{pkg['path']}.{typ}", "handle": True,
                                                  "func": False, "under": "",
                                                  "value": {"kind": "array", "elem": "uint8", "len": int(m[1])}})
                continue
            if under in INTS:
                # a named integer (an enum's String()): its Python value, an int
                # subclass (present_ints), is self
                add_value_methods(pkg, typ, fns, {"name": "self", "type": f"{pkg['path']}.{typ}", "handle": False,
                                                  "func": False, "under": under})
                continue
            spec = (pkg.get("structs") or {}).get(typ)
            if spec is None or not all(f["type"] in C_FIELD for f in spec["fields"]):
                continue
            # methods of the value objects, self by value; a pointer receiver's writes the fields back
            add_value_methods(pkg, typ, fns, {"name": "self", "type": f"{pkg['path']}.{typ}", "handle": True,
                                              "func": False, "value": spec}, pointer_receivers=True)
    # methods gopy binds that gopysig does not report: those of interfaces
    covered = covered_c_names(methods)
    for m in GOPY_METHOD.finditer(helpers):
        prefix = f"{m['pkg']}_{m['typ']}_"
        qual = f"{m['pkg']}.{m['typ']}.{m['fn'][len(prefix):]}"
        if m["fn"].startswith(prefix) and m["fn"] not in covered and qual not in gopy:
            gopy[qual] = "a method of an interface" if not m["ptr"] else "a method gopysig does not report"
    for qual, why in sorted(gopy.items()):
        log(f"gopy's call path: {qual} ({why})")
    table = ["const mv_fast_def mv_fast_defs[] = {", *rows, "    {NULL},", "};", ""]
    (gen / "memview_values.h").write_text("\n".join([*typedefs, "#endif", ""]))
    (gen / "memview_fast.c").write_text(C_HEAD + "\n".join(cs) + "\n".join(table))
    # the sentinel errors: added to gopyrt's list as the program starts (gopyrt/sentinels.go)
    sentinels = [f'\tgopyrt.AddSentinel("{pkg["name"]}.{e}", {imports.pkg(pkg["path"])}.{e})'
                 for pkg in signatures for e in pkg.get("errors") or []]
    sentinels += [f'\tgopyrt.AddErrorType("{pkg["name"]}.{t}", reflect.TypeOf((*{imports.pkg(pkg["path"])}.{t})(nil)).Elem())'
                  for pkg in signatures for t in pkg.get("error_types") or []]
    if sentinels:
        gos.append("\n".join(["// init adds the bound packages' sentinel errors (gopyrt.AddSentinel).",
                               "func init() {", *sentinels, "}", ""]))
    imp = "".join(f'\t{alias} "{path}"\n' for path, alias in imports.alias.items())
    std = '\t"reflect"\n' if any(methods.values()) or any(p.get("error_types") for p in signatures) else ""
    (gen / "memview_fast.go").write_text(GO_HEAD.format(include=include, gopyrt=GOPYRT, imports=imp, std=std) +
                                         "\n".join(gos))
    for qual, ps in sorted(readonly.items()):
        for name, (outcome, why) in ps.items():
            log(f"read-only analysis: {qual} {name}: {outcome}" + (f" ({why})" if why else ""))
    kept = sorted(q for q, why in gil.items() if why is None)
    log(f"the GIL is kept for small buffers by {len(kept)} entries: {', '.join(kept)}")
    errors = {pkg["name"]: list(pkg.get("errors") or []) + list(pkg.get("error_types") or []) for pkg in signatures}
    return {"fast": fast, "methods": methods, "gopy": gopy, "own": own, "readonly": readonly, "errors": errors,
            "values": value_types, "gil": gil, "value_methods": value_methods, "bytes": bytes_types}


def module_text(report: dict) -> str:
    """memview/_ext/_fast.py: which functions and methods have a generated
    entry, and why the others keep gopy's path."""
    import pprint
    return ('"""The bound Go functions with a generated call entry (FAST: by package, each\n'
            'with the gopy class of the Go value it returns, if any), the methods with one\n'
            '(METHODS: by package and type, the same), and those that keep gopy\'s call\n'
            'path, with the reason (GOPY); written by build.py (gopyfast.py)."""\n\n'
            f"FAST = {pprint.pformat(report['fast'], width=100)}\n\n"
            f"METHODS = {pprint.pformat(report['methods'], width=100)}\n\n"
            f"GOPY = {pprint.pformat(report['gopy'], width=100)}\n\n"
            "# Those gopy binds no path of (several results, ...): {name: {parameter: Go type}}\n"
            f"OWN = {pprint.pformat(report['own'], width=100)}\n\n"
            "# The read-only analysis of each []T parameter: {name: {parameter: [outcome, why]}}, outcome\n"
            "# \"proven\" (a read-only buffer is taken as it is), \"store\" (refused) or \"inconclusive\" (copied)\n"
            f"READONLY = {pprint.pformat(report['readonly'], width=100)}\n\n"
            "# The structs of plain fields results are value objects of: {package: {struct: [fields]}}\n"
            f"VALUES = {pprint.pformat(report['values'], width=100)}\n\n"
            "# The GIL rule (gopyfast.keeps_gil): None where a call keeps the GIL while its buffers\n"
            "# total under 2 KiB, else why every call releases it\n"
            f"GIL = {pprint.pformat(report['gil'], width=100)}\n\n"
            "# Value-receiver methods of the value objects: {package: {struct: {method: entry name}}}\n"
            f"VALUE_METHODS = {pprint.pformat(report['value_methods'], width=100)}\n\n"
            "# The named [N]byte types, bytes subclasses: {package: {type: N}}\n"
            f"BYTES = {pprint.pformat(report.get('bytes', {}), width=100)}\n\n"
            "# The sentinel errors (exported variables and constants of an error type): {package: [names]}\n"
            f"ERRORS = {pprint.pformat(report.get('errors', {}), width=100)}\n")
