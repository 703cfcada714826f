#!/usr/bin/env python3
"""Write pyext's Go bridge: the only C that calls Go.

    python3 tools/gobridge.py            write pyext/go_bridge.h and go_bridge*.c
    python3 tools/gobridge.py --check    fail if they differ from what would be written

Every function pyext's Go exports to C (an `//export mvgo_NAME` in its Go files) gets
a C wrapper `mv_go_NAME` with the same parameters, and C everywhere else calls the
wrapper; only the bridge includes cgo's `_cgo_export.h` (tools/cgraph.py fails on
any other file that calls Go). Each wrapper is the fork chokepoint for its call:

    in a forked child (mv_in_child, go_fork.c) the wrapper does not enter Go:
      - a function reporting errors through an `e *C.mv_err` parameter gets the
        error kind MV_FORKED_ERROR, which mv_raise turns into the fork's
        RuntimeError naming spawn and forkserver, and returns -1;
      - a function without results does nothing (what it would give back to Go
        is left to the child's exit);
      - any other result is zero.

The wrappers are generated from the Go signatures, so a new export cannot miss
its gate, and a Go signature change cannot leave a stale declaration behind.
Exports in files with a //go:build line go into a C file with the same line.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYEXT = ROOT / "pyext"

EXPORT = re.compile(r"^//export (mvgo_\w+)\nfunc (\w+)\((.*?)\)\s*(.*?)\s*\{", re.M | re.S)
BUILD = re.compile(r"^//go:build (.+)$", re.M)


def c_type(go: str, where: str) -> str:
    """The C spelling of a Go parameter or result type that cgo maps one to one."""
    stars = len(go) - len(go.lstrip("*"))
    base = go.lstrip("*")
    if base == "unsafe.Pointer":
        c = "void"
        stars += 1
    elif base.startswith("C."):
        c = base[2:]
    else:
        raise SystemExit(f"tools/gobridge.py: {where}: Go type {go} has no C spelling here: "
                         "give exported functions C types (C.int, *C.char, unsafe.Pointer, ...)")
    return c + (" " + "*" * stars if stars else "")


def params(text: str, where: str) -> list[tuple[str, str]]:
    """[(name, C type)] of a Go parameter list (names grouped as in `a, b *C.int64_t`)."""
    out, names = [], []
    for part in (p.strip() for p in " ".join(text.split()).split(",") if p.strip()):
        bits = part.split()
        if len(bits) == 1:
            names.append(bits[0])
            continue
        for n in names + [bits[0]]:
            out.append((n, c_type(bits[1], where)))
        names = []
    if names:
        raise SystemExit(f"tools/gobridge.py: {where}: parameters without types: {names}")
    return out


def result(text: str, where: str) -> str:
    """The C result type ("void" for none) of a Go result list: one result at most."""
    text = text.strip().strip("()").strip()
    if not text:
        return "void"
    bits = text.split()
    if "," in text or len(bits) > 2:
        raise SystemExit(f"tools/gobridge.py: {where}: more than one result")
    return c_type(bits[-1], where)


def exports() -> dict[str, list[dict]]:
    """The exported functions of pyext's Go files, by the //go:build line of their file ("" for none)."""
    out: dict[str, list[dict]] = {}
    for path in sorted(PYEXT.glob("*.go")):
        if path.name.endswith("_test.go"):
            continue
        text = path.read_text()
        tag = BUILD.search(text)
        for m in EXPORT.finditer(text):
            name, fn = m[1], m[2]
            where = f"{path.name}: {name}"
            if name != fn:
                raise SystemExit(f"tools/gobridge.py: {where}: //export names {name} but the func is {fn}")
            ps = params(m[3], where)
            out.setdefault(tag[1] if tag else "", []).append(
                {"name": name, "params": ps, "result": result(m[4], where), "file": path.name,
                 "err": next((n for n, t in ps if t == "mv_err *"), None)})
    return out


HEAD = "/* Written by tools/gobridge.py from the //export functions of pyext's Go files: do not edit. */\n"


def decl(f: dict, prefix: str, sep: str = " ") -> str:
    """The C declaration of f under the name prefix + its Go name's rest; sep goes
    between the result type and the name (a newline in a definition)."""
    args = ", ".join(f"{t}{'' if t.endswith('*') else ' '}{n}" for n, t in f["params"]) or "void"
    res = f["result"]
    sep = "" if res.endswith("*") and sep == " " else sep
    return f"{res}{sep}{prefix}{f['name'][len('mvgo_'):]}({args})"


def header(groups: dict) -> str:
    lines = [HEAD, "/*",
             " * go_bridge.h — the Go bridge: every call pyext's C makes into Go, as mv_go_NAME",
             " * for Go's mvgo_NAME (the Go function documents each one). Each call is refused",
             " * in a forked child, where no Go runs (go_fork.c): a function with an mv_err",
             " * gets MV_FORKED_ERROR and returns -1, one without results does nothing, any",
             " * other returns zero. Call with the GIL unless the Go function says otherwise.",
             " */",
             "#ifndef MEMVIEW_GO_BRIDGE_H", "#define MEMVIEW_GO_BRIDGE_H", "",
             "#include <stdint.h>", "#include \"bridge.h\"", "#include \"memory_bridge.h\"", ""]
    for tag, fs in sorted(groups.items()):
        if tag:
            lines.append(f"/* only where //go:build {tag} */")
        for f in fs:
            lines.append(decl(f, "mv_go_") + ";")
        lines.append("")
    lines += ["#endif", ""]
    return "\n".join(lines)


def body(tag: str, fs: list[dict]) -> str:
    lines = []
    if tag:
        lines += [f"//go:build {tag}", ""]
    lines += [HEAD, "#include <stdio.h>", "#include \"go_bridge.h\"", "#include \"_cgo_export.h\"", "",
              "extern int mv_in_child; /* go_fork.c */", ""]
    if any(f["err"] for f in fs):
        lines += ["static int", "refused(mv_err *e, const char *what)", "{", "    if (e != NULL) {",
                  "        e->kind = MV_FORKED_ERROR;",
                  "        snprintf(e->msg, sizeof e->msg, \"this operation (%s)\", what);", "    }",
                  "    return -1;", "}", ""]
    for f in fs:
        call = f"{f['name']}({', '.join(n for n, _ in f['params'])})"
        lines += [decl(f, "mv_go_", "\n"), "{", "    if (mv_in_child)"]
        if f["err"]:
            if f["result"] != "int":
                raise SystemExit(f"tools/gobridge.py: {f['file']}: {f['name']} takes an mv_err but returns "
                                 f"{f['result']}, not an int status")
            lines.append(f"        return refused({f['err']}, \"{f['name']}\");")
        elif f["result"] == "void":
            lines.append("        return;")
        else:
            lines.append(f"        return ({f['result']})0;")
        lines += [f"    {'' if f['result'] == 'void' else 'return '}{call};", "}", ""]
    return "\n".join(lines)


def files() -> dict[Path, str]:
    groups = exports()
    out = {PYEXT / "go_bridge.h": header(groups)}
    for tag, fs in groups.items():
        name = "go_bridge.c" if not tag else f"go_bridge_{re.sub(r'[^a-z0-9]+', '_', tag.lower()).strip('_')}.c"
        out[PYEXT / name] = body(tag, fs)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if the files differ from what would be written")
    args = ap.parse_args()
    want = files()
    stale = [p for p in sorted(PYEXT.glob("go_bridge*")) if p not in want]
    if args.check:
        bad = [p.name for p, text in want.items() if not p.exists() or p.read_text() != text]
        bad += [p.name for p in stale]
        if bad:
            print(f"tools/gobridge.py: out of date: {', '.join(bad)}; run python3 tools/gobridge.py", file=sys.stderr)
            return 1
        return 0
    for p in stale:
        p.unlink()
    for p, text in want.items():
        if not p.exists() or p.read_text() != text:
            p.write_text(text)
            print(f"wrote {p.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
