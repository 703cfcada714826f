"""Go packages bound by gopy and built together with memview (build.py --with).

gopy's wrappers pass each Go-valued argument as its integer handle
(`x.handle`). For a parameter that takes memory — a []T or a *memview.Array —
install() wraps the function so that it also takes NumPy arrays, memview
arrays and any buffer: their memory is lent to Go for the call, without a
copy, under a gopy handle of the type the generated code reads back, and taken
back when the call returns (the arrays themselves stay alive with the Go value
the call returned, or its receiver: Go may keep the slice). gopy's own objects
of the right type still pass as they are. from_go() goes the other way: a
zero-copy array over the memory of a Go value gopy hands Python.
"""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import os
import sys

from . import _cdata, _core
from ._ext import _bindings, _coverage, _fast
from ._ext import go as _go

GoClass = _go.GoClass

# Go slice types that are one type under two names, as gopy names its classes.
_SAME_SLICE = {"byte": ("byte", "uint8"), "uint8": ("byte", "uint8"),
               "rune": ("rune", "int32"), "int32": ("rune", "int32")}


def from_go(obj, writable: int):
    """An array over the memory of a Go value gopy holds for obj (a slice, a
    *memview.Array or a memview.Exporter); writable is -1, 0 or 1 as for
    from_buffer."""
    return _core.from_gopy(obj.handle, writable)


class _Lent:
    """A stand-in for a gopy object: the handle of memory lent to Go for one
    call, and the memview array whose memory it is, kept alive until the call
    ends (None when Go holds the Py_buffer of the argument itself; a copy of a
    read-only argument lent in its place)."""

    __slots__ = ("handle", "array")

    def __init__(self, handle: int, array):
        self.handle = handle
        self.array = array


def _gopy_classes(kind: str) -> tuple:
    """The names of gopy's classes for the Go type kind stands for (gopy puts
    them in go.py or in the module of the package that first uses the type)."""
    if kind == "array":
        return ("Ptr_memview_Array",)
    return tuple(f"Slice_{n}" for n in _SAME_SLICE.get(kind, (kind,)))


def _go_type(kind: str) -> str:
    return "*memview.Array" if kind == "array" else f"[]{kind}"


def _read_only(x) -> bool:
    """Whether x exports a read-only buffer (False where it exports none)."""
    try:
        with memoryview(x) as m:
            return m.readonly
    except Exception:
        return False


def _lend(x, kind: str, lent: list, copy_ro: bool = False):
    """What to pass gopy's wrapper for x where Go takes kind; lent collects
    the handles to give back after the call. copy_ro: a read-only buffer goes
    to Go as a copy (the read-only analysis found no store, but proved nothing
    either, or Go is reached through gopy's wrapper)."""
    if isinstance(x, GoClass):
        if type(x).__name__ not in _gopy_classes(kind):
            raise TypeError(f"a Go {_go_type(kind)} is needed, not a gopy {type(x).__name__}")
        return x
    if x is None and kind != "array":  # Go's nil: gopy's path takes a zero-length slice for it
        return getattr(_go, f"Slice_{kind}")()
    copy = None
    if copy_ro and _read_only(x):  # kept with the sources, as Go may keep the slice
        x = copy = bytearray(x) if kind in ("byte", "uint8") else sys.modules[__package__].asarray(x).copy()
    if not isinstance(x, _core.ArrayBase):
        if _cdata.item_format(x) is not None:  # ctypes misstates its format: its type's, in an array first
            x = sys.modules[__package__].from_buffer(x)
        else:
            try:
                h = _core.lend_buffer(x, kind)  # a buffer straight to Go, which holds the Py_buffer
                lent.append(h)
                return _Lent(h, copy)
            except TypeError:
                if not hasattr(x, "__cuda_array_interface__"):
                    raise
            x = sys.modules[__package__].asarray(x)  # CUDA memory: a memview array first
    h = _core.lend_array(x) if kind == "array" else _core.lend_slice(x, kind)
    lent.append(h)
    return _Lent(h, x)


def _by_handle(x, gotype: str, qualname: str, name: str) -> None:
    """Refuse, with a TypeError, an argument gopy's wrapper would pass by handle
    (x.handle) that is no gopy object (has no integer handle)."""
    if not isinstance(getattr(x, "handle", None), int):
        raise TypeError(f"{qualname}() argument {name!r} must be a gopy object of Go type {gotype}, "
                        f"not {type(x).__name__!r}")


def _truth(x) -> bool:
    """x as gopy's bool parameter reads it; False where that raises (gopy's
    wrapper then raises the error itself)."""
    try:
        return bool(x)
    except Exception:
        return False


def _keep(owner, key: str, sources: list) -> None:
    """Keep the objects whose memory a call lent Go alive with owner, a gopy
    object the call returned (or whose method it was): Go may have kept the
    slice. A method's later call through the same function replaces what the
    earlier one kept, so repeated calls keep one set."""
    try:
        kept = owner._memview_kept
    except AttributeError:
        kept = {}
        try:
            owner._memview_kept = kept
        except AttributeError:
            return
    kept[key] = tuple(sources)


def _wrap(fn, spec: dict, qualname: str, first: int):
    """fn, taking NumPy and memview arrays where Go takes memory (kept alive with
    the Go value returned, or the receiver, since Go may keep the slice), and
    refusing with a TypeError what is no gopy object where Go takes one by
    handle, and what is not callable where Go takes a func. first is 1 for a
    method (self comes first), else 0."""
    params = spec["params"]
    copy_ro = set(spec.get("copy_ro", ()))
    memory = tuple((i + first, params[i], kind, i in copy_ro) for i, kind in sorted(spec["memory"].items()))
    handles = {int(i): t for i, t in spec.get("handles", {}).items()}
    last = len(params) - 1
    variadic = handles.pop(last, None) if spec.get("variadic") else None
    handles = tuple((i + first, params[i], t) for i, t in sorted(handles.items()))
    callables = tuple((int(i) + first, params[int(i)], t) for i, t in sorted(spec.get("callables", {}).items()))
    errors = tuple((i + first, params[i]) for i in spec.get("errors", ()))
    error_only = spec["error_only"]
    result_kind = spec.get("result")  # "array" for a []T result, "list" for a []string
    # gopy's goRun flag, of a function without results: after the parameters, or
    # keyword-only after a variadic one.
    go_run = (len(params) + first) if spec.get("go_run") and not spec.get("variadic") else None
    takes_go_run = bool(spec.get("go_run"))

    def call(*args, **kwargs):
        for i, name, gotype in callables:
            x = args[i] if i < len(args) else kwargs.get(name, callable)
            if not callable(x):
                raise TypeError(f"{qualname}() argument {name!r} must be callable (Go type {gotype}), "
                                f"not {type(x).__name__!r}")
        background = memory and takes_go_run and _truth(
            args[go_run] if go_run is not None and len(args) > go_run else kwargs.get("goRun"))
        for i, name in errors:  # gopy takes an error as its message: "" is nil
            if i < len(args) and args[i] is None:
                args = (*args[:i], "", *args[i + 1:])
            elif kwargs.get(name, "") is None:
                kwargs[name] = ""
        for i, name, gotype in handles:
            if (to_gopy := _BYTES_BY_GOTYPE.get(gotype)) is not None:  # a named [N]byte: any N bytes
                try:
                    if i < len(args):
                        args = (*args[:i], to_gopy(args[i]), *args[i + 1:])
                    elif name in kwargs:
                        kwargs[name] = to_gopy(kwargs[name])
                except (TypeError, ValueError) as e:
                    raise type(e)(f"{qualname}() argument {name!r}: {e}") from None
            elif i < len(args):
                _by_handle(args[i], gotype, qualname, name)
            elif name in kwargs:
                _by_handle(kwargs[name], gotype, qualname, name)
        if variadic is not None:
            for x in args[last + first:]:
                _by_handle(x, variadic, qualname, params[last])
        lent, sources = [], []
        try:
            if memory:
                args = list(args)
                for i, name, kind, ro in memory:
                    try:
                        if i < len(args):
                            x = args[i] = _lend(src := args[i], kind, lent, ro)
                        elif name in kwargs:
                            x = kwargs[name] = _lend(src := kwargs[name], kind, lent, ro)
                        else:
                            continue
                    except (TypeError, ValueError, BufferError) as e:
                        why = str(e).removeprefix("memview: ")  # one context: the function's
                        raise type(e)(f"{qualname}() argument {name!r}: {why}") from None
                    if isinstance(x, _Lent):
                        if background:
                            raise ValueError(f"{qualname}(): goRun=True cannot take memory lent for the "
                                             f"call (argument {name!r}): a goroutine would use it after the "
                                             "call returned; pass a Go slice (go.Slice_...)")
                        sources.append(src if x.array is None else (src, x.array))
            result = fn(*args, **kwargs)
        finally:
            for h in lent:
                _core.unlend(h)
        if sources:
            # Go may keep a slice it was lent (gonum's mat.NewDense keeps its data):
            # the memory then lives as long as the Go value returned, or the receiver.
            if isinstance(result, GoClass):
                _keep(result, qualname, sources)
            elif first and isinstance(args[0], GoClass):
                _keep(args[0], qualname, sources)
        # gopy returns "" from a function whose only result is an error that is nil.
        if error_only:
            return None
        if result_kind is not None and isinstance(result, GoClass):  # as on the fast path
            return from_go(result, -1) if result_kind == "array" else list(result)
        return result

    call.__name__ = fn.__name__
    call.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
    call.__doc__ = fn.__doc__
    call.__wrapped__ = fn
    return call


def bind(mod, spec: dict, pkg: str) -> None:
    """Wrap the functions and methods of gopy's module mod that spec lists."""
    for name, b in spec["funcs"].items():
        fn = getattr(mod, name, None)
        if callable(fn):
            setattr(mod, name, _wrap(fn, b, f"{pkg}.{name}", 0))
    for typ, methods in spec["methods"].items():
        cls = getattr(mod, typ, None)
        if cls is None:
            continue
        for name, b in methods.items():
            fn = cls.__dict__.get(name)
            if callable(fn):
                setattr(cls, name, _wrap(fn, b, f"{pkg}.{typ}.{name}", 1))


def own_path(qualname: str, params: dict, first: int):
    """The stand-in gopy's path of an entry gopy binds no path of (a Go
    function with several results, ...): it gets the calls the entry does not
    take as they are, and raises the TypeError (or ValueError, BufferError)
    gopy's path would for them. params: {name: gopyfast.own_kind}; first is 1
    for a method (self comes first)."""
    sig = inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in params])

    def path(*args, **kwargs):
        try:
            bound = sig.bind(*args[first:], **kwargs)
        except TypeError as e:
            raise TypeError(f"{qualname}(): {e}") from None
        for name, x in bound.arguments.items():
            kind = params[name]
            if kind.startswith("handle:"):
                if x is not None:
                    _by_handle(x, kind.removeprefix("handle:"), qualname, name)
            elif kind != "value" and x is not None:
                lent = []
                try:
                    _lend(x, kind, lent)
                except (TypeError, ValueError, BufferError) as e:
                    why = str(e).removeprefix("memview: ")
                    raise type(e)(f"{qualname}() argument {name!r}: {why}") from None
                finally:
                    for h in lent:
                        _core.unlend(h)
                if kind != "array":
                    raise TypeError(f"{qualname}() argument {name!r}: a Go []{kind} is taken from a "
                                    "C-contiguous host buffer of its format (copy it with numpy.ascontiguousarray)")
        raise TypeError(f"{qualname}(): the arguments cannot be taken as Go's "
                        f"({', '.join(type(x).__name__ for x in bound.arguments.values())})")

    path.__name__ = qualname.rsplit(".", 1)[1]
    path.__qualname__ = qualname.split(".", 1)[1]
    path.__signature__ = sig
    path._memview_own = True  # takes Go's parameter names already
    return path


_VALUE_CLASSES: dict = {}


def value_class(pkg: str, name: str) -> type:
    """The Python class of the values of Go struct pkg.name, a struct of plain
    fields that a generated entry returns by value (_fast.VALUES): like a
    dataclass(eq=True) of its fields, with the repr pkg.Name(X=1.0, Y=2.0). It
    keeps no Go value and no input alive."""
    key = (pkg, name)
    if key not in _VALUE_CLASSES:
        fields = _fast.VALUES[pkg][name]

        where = import_name(pkg)

        def __repr__(self):
            return f"{where}.{name}(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in fields) + ")"

        def __reduce__(self):  # by value: the module's pkg.Name is gopy's class, not this one
            return _value_object, (pkg, name, tuple(getattr(self, f) for f in fields))

        cls = dataclasses.make_dataclass(name, fields, eq=True, repr=False,
                                         namespace={"__repr__": __repr__, "__reduce__": __reduce__,
                                                    "__doc__": f"Go struct {pkg}.{name}, "
                                                    "returned by value: its fields"})
        cls.__module__ = where
        _VALUE_CLASSES[key] = cls
        value_methods(cls, pkg, name)
    return _VALUE_CLASSES[key]


def value_methods(cls: type, pkg: str, name: str, mod=None) -> None:
    """Set on cls, the Python class of Go type pkg.name's values (a value
    object, or a named integer's int subclass), the value-receiver methods:
    entries that take self by value (gopyfast.py). mod: gopy's module, whose
    int subclasses a method may return."""
    for method, (qual, result) in getattr(_fast, "VALUE_METHODS", {}).get(pkg, {}).get(name, {}).items():
        if result and result.startswith("value:"):
            rc = value_class(pkg, result.removeprefix("value:"))
        elif result and result.startswith("named:") and mod is not None:
            rc = getattr(mod, result.removeprefix("named:"), None)
            if not (isinstance(rc, type) and issubclass(rc, int)):
                continue
        elif result:
            continue  # a method returning a gopy object: not on the value
        else:
            rc = None
        entry = _core.go_fast(qual, own_path(qual, _fast.OWN[qual], 0), rc)
        if entry is None:
            continue

        def call(self, *args, _entry=entry, **kwargs):
            return _entry(self, *args, **kwargs)

        call.__name__ = method
        call.__qualname__ = f"{name}.{method}"
        call.__doc__ = entry.__doc__
        if (info := _doc_info(pkg, f"{pkg}.{name}.{method}")) is not None:  # self, then Go's parameters
            call.__signature__ = _signature(info["params"], 1, info["variadic"])
            call.__doc__ = _doc(info)
        setattr(cls, method, call)


def _value_object(pkg: str, name: str, values: tuple):
    """A value object of Go struct pkg.name with these field values (what
    pickle and copy make it again from)."""
    return value_class(pkg, name)(*values)


# The gopy path of each method whose class now has its generated entry, by
# Python name ("pkg.Type.Method"): what the entry hands the calls it does not
# take (a function's entry has it as its __self__).
GOPY_METHODS: dict = {}


def fast(mod, pkg: str) -> None:
    """Replace each function of gopy's module mod, and each method of its
    classes, that has a generated call entry (gopyfast.py) by that entry,
    made with the function or method as it was (gopy's path, wrapped by bind)
    as the path it hands what it does not take as it is: a function's entry
    has it as its __self__; a method's is a method descriptor set on the
    class. MEMVIEW_GOPY_PATH=1 keeps gopy's path alone where there is one
    (the differential tests compare the two); the entries of what gopy binds
    no path of are installed whatever it says."""
    only_own = os.environ.get("MEMVIEW_GOPY_PATH") == "1"

    def result_class(result):
        if result and result.startswith("value:"):
            return value_class(pkg, result.removeprefix("value:"))
        if result and result.startswith("named:"):  # a named integer type's int subclass (present_ints)
            cls = getattr(mod, result.removeprefix("named:"), None)
            return cls if isinstance(cls, type) and issubclass(cls, (int, bytes)) else None
        return (getattr(mod, result, None) or getattr(_go, result, None)) if result else None

    own = getattr(_fast, "OWN", {})
    for name, result in _fast.FAST.get(pkg, {}).items():
        fn, cls = getattr(mod, name, None), result_class(result)
        if fn is None and f"{pkg}.{name}" in own:
            fn = own_path(f"{pkg}.{name}", own[f"{pkg}.{name}"], 0)
            if (info := _doc_info(pkg, f"{pkg}.{name}")) is not None:
                fn = _present(fn, f"{pkg}.{name}", info, 0)
        elif only_own:
            continue
        if not callable(fn) or (result and cls is None):
            continue  # gopy's path alone
        entry = _core.go_fast(f"{pkg}.{name}", fn, cls)
        if entry is not None:
            setattr(mod, name, entry)
    for typ, methods in _fast.METHODS.get(pkg, {}).items():
        owner = getattr(mod, typ, None)
        if not isinstance(owner, type) or issubclass(owner, (BaseException, int, bytes)):
            continue  # (an error type is an exception class: bind_errors; int and bytes subclasses value_methods)
        for name, result in methods.items():
            fn, cls = owner.__dict__.get(name), result_class(result)
            if fn is None and f"{pkg}.{typ}.{name}" in own:
                fn = own_path(f"{pkg}.{typ}.{name}", own[f"{pkg}.{typ}.{name}"], 1)
                if (info := _doc_info(pkg, f"{pkg}.{typ}.{name}")) is not None:
                    fn = _present(fn, f"{pkg}.{typ}.{name}", info, 1)
            elif only_own:
                continue
            if not callable(fn) or (result and cls is None):
                continue
            entry = _core.go_fast_method(f"{pkg}.{typ}.{name}", fn, cls)
            if entry is not None:
                setattr(owner, name, entry)
                GOPY_METHODS[f"{pkg}.{typ}.{name}"] = fn


def _text_signature(name: str, params: list, first: int, variadic: bool) -> str:
    """The __text_signature__ line of a built-in entry: Go's parameter names,
    "/" after the positional-only ones."""
    parts = ["$self" if first else "$module"]
    for i, (py, _, pos) in enumerate(params):
        parts.append(("*" if variadic and i == len(params) - 1 else "") + py)
        if pos and not any(p[2] for p in params[i + 1:]):
            parts.append("/")
    return f"{name}({', '.join(parts)})"


def _signature(params: list, first: int, variadic: bool) -> inspect.Signature:
    P = inspect.Parameter
    out = [P("self", P.POSITIONAL_ONLY)] if first else []
    for i, (py, _, pos) in enumerate(params):
        kind = P.VAR_POSITIONAL if variadic and i == len(params) - 1 else \
            P.POSITIONAL_ONLY if pos else P.POSITIONAL_OR_KEYWORD
        out.append(P(py, kind))
    return inspect.Signature(out)


def _doc(info: dict) -> str:
    """A bound function's docstring: the typed signature as the stub writes
    it, the Go declaration, the Go doc comment."""
    return "\n".join(x for x in (info["typed"], info["go"]) if x) + (f"\n\n{info['doc']}" if info["doc"] else "")


def _present(fn, qualname: str, info: dict, first: int):
    """fn (gopy's path, or memview's stand-in for it) as Python sees it: Go's
    parameter names (keywords renamed with a trailing _ taken and passed to
    gopy's name of them), its signature and its docstring (_doc). The entry
    made with it takes its __text_signature__ from _memview_textdoc."""
    params, variadic = info["params"], info["variadic"]
    rename = {py: go for py, go, pos in params if py != go and not pos}
    # gopy's names that are not Python's (myfrom, arg_0): no keyword
    gopy_only = {go for py, go, pos in params if py != go} - {py for py, _, _ in params}
    if (rename or gopy_only) and not getattr(fn, "_memview_own", False):
        inner = fn

        def fn(*args, **kwargs):
            for k in kwargs:
                if k in gopy_only:
                    raise TypeError(f"{qualname}() got an unexpected keyword argument {k!r}")
            return inner(*args, **{rename.get(k, k): v for k, v in kwargs.items()})

        fn.__wrapped__ = inner
    name = qualname.rsplit(".", 1)[1]
    try:
        fn.__name__ = name
        fn.__qualname__ = qualname.split(".", 1)[1]
        fn.__doc__ = _doc(info)
        fn.__signature__ = _signature(params, first, variadic)
        fn._memview_textdoc = f"{_text_signature(name, params, first, variadic)}\n--\n\n{fn.__doc__}"
    except (AttributeError, TypeError):
        pass
    return fn


def present(mod, pkg: str) -> None:
    """Give the functions and methods of gopy's module mod (bound) Go's
    parameter names, signatures and docstrings (_present)."""
    docs = _bindings.PACKAGES[pkg].get("docs", {})
    for key, info in docs.items():
        if "." in key:
            typ, name = key.split(".")
            cls = getattr(mod, typ, None)
            fn = cls.__dict__.get(name) if isinstance(cls, type) else None
            if callable(fn):
                setattr(cls, name, _present(fn, f"{pkg}.{key}", info, 1))
        else:
            fn = getattr(mod, key, None)
            if callable(fn) and not isinstance(fn, type):
                setattr(mod, key, _present(fn, f"{pkg}.{key}", info, 0))


def _value_repr(x) -> str:
    """A field's value in a repr: arrays and gopy's slices summarised."""
    if isinstance(x, _core.ArrayBase):
        return f"<Array {tuple(x.shape)} {x.dtype}>"
    if isinstance(x, GoClass) and type(x).__name__.startswith(("Slice_", "Map_")):
        try:
            return f"<{type(x).__name__} len {len(x)}>"
        except Exception:
            return f"<{type(x).__name__}>"
    return repr(x)


def _struct_repr(where: str, fields: tuple):
    def __repr__(self):
        return f"{where}.{type(self).__name__}(" + ", ".join(
            f"{f}={_value_repr(getattr(self, f))}" for f in fields) + ")"
    return __repr__


def _int_type(enum, where: str, name: str = "") -> type:
    """A Go named integer type (gopy's Enum of its constants, or None for one
    without constants, named name) as an int subclass: its constants are
    instances, whose repr is where.Name."""
    names = {}
    for m in enum or ():
        names.setdefault(int(m.value), m.name)
    if enum is None:
        enum = type(name, (), {"__doc__": f"Go named integer type {name}"})

    def __repr__(self):
        name = names.get(int(self))
        return f"{where}.{name}" if name is not None else f"{where}.{type(self).__name__}({int(self)})"

    cls = type(enum.__name__, (int,), {"__module__": where, "__qualname__": enum.__name__, "__slots__": (),
                                       "__doc__": enum.__doc__, "__repr__": __repr__, "__str__": __repr__})
    return cls


# gopy's module-level names that are its machinery, not the Go package's
_GOPY_NAMES = frozenset({"os", "sys", "inspect", "collections", "cwd", "currentdir", "go", "Enum"})


def present_ints(mod, pkg: str) -> None:
    """Named integer types as int subclasses (pkg.Mode, of gopy's Enum), their
    constants instances of them; before the entries are made (fast), which
    return instances of them."""
    import enum
    where = import_name(pkg)
    ints = []
    for name, x in list(vars(mod).items()):
        if isinstance(x, type) and issubclass(x, enum.Enum) and x is not enum.Enum \
                and all(isinstance(m.value, int) and not isinstance(m.value, bool) for m in x):
            cls = _int_type(x, where)
            setattr(mod, name, cls)
            for m in x:
                if getattr(mod, m.name, None) == m.value:
                    setattr(mod, m.name, cls(m.value))
            ints.append((cls, name))
    # a named integer type without constants that an entry returns, or has methods: one too
    results = [r for table in (_fast.FAST.get(pkg, {}), *_fast.METHODS.get(pkg, {}).values()) for r in table.values()]
    results += [r for ms in getattr(_fast, "VALUE_METHODS", {}).get(pkg, {}).values() for _, r in ms.values()]
    wanted = {r.split(":")[1] for r in results if r and r.startswith("named:")}
    wanted |= set(getattr(_fast, "VALUE_METHODS", {}).get(pkg, {})) - set(getattr(_fast, "BYTES", {}).get(pkg, {}))
    for name in sorted(wanted):
        if name not in vars(mod) and name not in (_fast.VALUES.get(pkg) or {}):
            cls = _int_type(None, where, name)
            setattr(mod, name, cls)
            ints.append((cls, name))
    for cls, name in ints:  # once all are made: a method may return another
        value_methods(cls, pkg, name, mod)


# {Go type ("path.Name"): (its bytes subclass, the gopy object of some bytes)},
# for gopy's path (_wrap)
_BYTES_BY_GOTYPE: dict = {}


def _bytes_type(gopy_cls: type, pkg: str, name: str, n: int, where: str) -> tuple[type, object]:
    """A Go named [n]byte type (uuid.UUID) as a bytes subclass of exactly n
    bytes, with its value-receiver methods, and the function that makes
    gopy's object of such bytes (a Go copy of them), which gopy's path
    takes (_wrap). gopy's path makes one from a handle (cls(handle=h))."""
    def __new__(cls, value=b"\0" * n, *, handle=None):
        if handle is not None:
            value = bytes(gopy_cls(handle=handle))
        if isinstance(value, int) or value is None:  # (bytes(16) would be 16 zero bytes)
            raise TypeError(f"{where}.{name} is made from {n} bytes, not {type(value).__name__!r}")
        value = bytes(value)
        if len(value) != n:
            raise ValueError(f"{where}.{name} is {n} bytes, not {len(value)}")
        return bytes.__new__(cls, value)

    def __repr__(self):
        return f"{where}.{name}({bytes(self)!r})"

    make = _core.go_fast(f"{pkg}.{name}@gopy", __new__, None)  # (gopyfast.bytes_to_gopy)

    def to_gopy(value):
        return gopy_cls(handle=make(cls(value)))  # (registered with no reference: gopy's takes one)

    cls = type(name, (bytes,), {"__new__": __new__, "__repr__": __repr__, "__slots__": (),
                                "__module__": where, "__qualname__": name,
                                "__doc__": f"Go type {name}, a [{n}]byte: bytes, with its methods"})
    cls.__reduce__ = lambda self: (cls, (bytes(self),))
    return cls, to_gopy


def present_bytes(mod, pkg: str) -> None:
    """Named [N]byte types as bytes subclasses (_fast.BYTES), before the entries
    are made (fast), which return instances of them."""
    where = import_name(pkg)
    made = []
    for name, n in getattr(_fast, "BYTES", {}).get(pkg, {}).items():
        gopy_cls = getattr(mod, name, None)
        if not isinstance(gopy_cls, type) or not issubclass(gopy_cls, GoClass):
            continue
        cls, to_gopy = _bytes_type(gopy_cls, pkg, name, n, where)
        setattr(mod, name, cls)
        _BYTES_BY_GOTYPE[f"{_bindings.PACKAGES[pkg]['path']}.{name}"] = to_gopy
        made.append((cls, name))
    for cls, name in made:
        value_methods(cls, pkg, name, mod)
        if "String" in cls.__dict__:  # a fmt.Stringer: str() is its String()
            cls.__str__ = lambda self: self.String()


def present_types(mod, pkg: str) -> None:
    """The Go package's types as Python presents them: named integer types
    int subclasses (present_ints), gopy's structs with reprs of their fields
    only, and __all__ the package's public names (dir() lists those alone)."""
    import types
    where = import_name(pkg)
    present_ints(mod, pkg)
    structs = _bindings.PACKAGES[pkg].get("fields", {})  # every exported struct type's, by name
    for name, x in list(vars(mod).items()):
        if isinstance(x, type) and issubclass(x, GoClass) and x.__module__ == mod.__name__ \
                and name in structs and "__repr__" in x.__dict__:
            fields = tuple(k for k, v in x.__dict__.items() if isinstance(v, property))
            x.__repr__ = _struct_repr(where, fields)
            init = x.__dict__.get("__init__")
            if callable(init) and not hasattr(init, "__signature__"):
                P = inspect.Parameter
                zero = _bindings.PACKAGES[pkg].get("fields", {}).get(name, {})
                init.__signature__ = inspect.Signature(
                    [P("self", P.POSITIONAL_ONLY),
                     *(P(f, P.KEYWORD_ONLY, default=zero.get(f)) for f in fields)])
                init.__doc__ = (f"{name}({', '.join(f'{f}=...' for f in fields)}): a new Go {name}, "
                                "its fields set from the arguments given")
    import ast
    for name, lit in _bindings.PACKAGES[pkg].get("consts", {}).items():
        old = getattr(mod, name, None)
        if old is None or isinstance(old, (type, GoClass)) or callable(old):
            continue
        value = ast.literal_eval(lit)  # full precision (gopy writes %g)
        setattr(mod, name, type(old)(value) if isinstance(old, int) and type(old) is not int
                and not isinstance(old, bool) else value)
    public = sorted(n for n, x in vars(mod).items()
                    if not n.startswith("_") and n not in _GOPY_NAMES and not isinstance(x, types.ModuleType)
                    and not n.startswith(("Slice_", "Map_", "Ptr_", "Array_", "Set_"))
                    and not (isinstance(x, type) and x.__module__ not in (mod.__name__, where)
                             and not issubclass(x, BaseException)))
    stub = _bindings.PACKAGES[pkg].get("all")
    if stub is not None:  # the stub's names (gopyext.stub_text), those there are
        public = [n for n in stub if hasattr(mod, n)]
    mod.__all__ = public
    mod.__dir__ = lambda: sorted(set(public) | {"__all__", "__doc__", "__name__", "__file__"})


def _doc_info(pkg: str, qualname: str):
    return _bindings.PACKAGES[pkg].get("docs", {}).get(qualname.split(".", 1)[1])


# The exception classes of the bound packages' sentinel errors, by "pkg.Name"
# (kept for good: Go holds their addresses).
ERRORS: dict = {}


def _base_error(mod, pkg: str) -> type:
    """The base class of pkg's exception classes: pkg.Error (pkg.GoError where
    the package exports an Error), a RuntimeError."""
    existing = getattr(mod, "Error", None)
    name = "Error" if existing is None or getattr(existing, "_memview_base", False) else "GoError"
    base = getattr(mod, name, None)
    if not (isinstance(base, type) and getattr(base, "_memview_base", False)):
        base = type(name, (RuntimeError,), {"__module__": import_name(pkg), "_memview_base": True,
                                            "__doc__": f"The base class of the errors of Go package "
                                                       f"{_bindings.PACKAGES[pkg]['path']}."})
        setattr(mod, name, base)
    return base


def bind_errors(mod, pkg: str) -> None:
    """Make an exception class of each sentinel error of pkg in mod (an alias
    is the class of the variable it copies), and hand Go each class, which a
    Go error whose chain holds that sentinel raises (gopyrt/sentinels.go)."""
    names = _bindings.PACKAGES[pkg].get("errors") or []
    if not names:
        return
    first = dict(line.split("=", 1) for line in _core.go_sentinels().splitlines() if "=" in line)
    base = _base_error(mod, pkg)
    where = import_name(pkg)
    for name in names:
        key = f"{pkg}.{name}"
        same = first.get(key, key)
        if same in ERRORS:
            cls = ERRORS[same]
        else:
            cls = type(name, (base,), {"__module__": where, "__qualname__": name,
                                       "__doc__": f"Go's {_bindings.PACKAGES[pkg]['path']}.{name}: "
                                                  "raised for a Go error that is it or wraps it (errors.Is)."})
            ERRORS[same] = cls
        ERRORS[key] = cls
        setattr(mod, name, cls)
        _core.go_set_sentinel_class(key, cls)


def bind_module(modname: str, pkg: str) -> None:
    """Bind gopy's module of Go package pkg (modname, memview._ext.pkg) as
    memview binds it: its memory-taking functions wrapped, its functions with
    a generated call entry calling it. Its last lines call this (gopyext.py),
    so that memview._ext.pkg and the top-level package are one module, bound
    alike, however it is first imported."""
    mod = sys.modules[modname]
    if not getattr(mod, "_memview_bound", False):
        bind(mod, _bindings.PACKAGES[pkg], pkg)
        present(mod, pkg)
        bind_errors(mod, pkg)
        present_ints(mod, pkg)
        present_bytes(mod, pkg)
        fast(mod, pkg)
        present_types(mod, pkg)
        mod._memview_bound = True


def install(name: str, pkg: str) -> None:
    """Make the gopy module of Go package pkg the module name (the top-level
    package build.py writes for it), bound (bind_module)."""
    mod = importlib.import_module(f"{__package__}._ext.{pkg}")
    bind_module(mod.__name__, pkg)
    sys.modules[name] = mod
    if name != pkg:  # --with DIR=NAME: memview._ext.NAME is the same module
        ext = importlib.import_module(f"{__package__}._ext")
        setattr(ext, name, mod)
        sys.modules[f"{ext.__name__}.{name}"] = mod


def import_name(pkg: str) -> str:
    """The Python import name of Go package pkg (--with DIR=NAME, else pkg)."""
    return _bindings.PACKAGES[pkg].get("import_name", pkg)


def packages() -> dict:
    """{import name: {"path", "bound", "fast", "functions", "left_out"}} of the
    Go packages built into this extension: the import path, how many of its
    exported functions and methods are bound, how many of those on the
    generated fast path, how many there are, and each left out with the
    reason (the same as NAME/_memview_bindings.json)."""
    out = {}
    for pkg in _bindings.PACKAGES:
        r = _coverage.PACKAGES.get(pkg, {})
        out[import_name(pkg)] = {"path": _bindings.PACKAGES[pkg]["path"], "bound": r.get("bound", 0),
                                 "fast": r.get("fast", 0), "functions": r.get("functions", 0),
                                 "left_out": dict(r.get("left_out", {}))}
    return out


def check_clashes() -> None:
    """Warn of each bound package's import name that another module found
    first on sys.path provides (python-snappy's snappy for a Go snappy): the
    two overwrite each other's files."""
    import importlib.util
    import warnings
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for pkg in _bindings.PACKAGES:
        name = import_name(pkg)
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        origin = getattr(spec, "origin", None) or ""
        if spec is not None and origin and os.path.dirname(os.path.dirname(os.path.abspath(origin))) != here:
            warnings.warn(f"memview: the Go package {_bindings.PACKAGES[pkg]['path']} is built in as {name!r}, "
                          f"but 'import {name}' finds {origin}: another distribution provides that name "
                          "(build with --with DIR=NAME to give it another)", RuntimeWarning, stacklevel=3)
