#!/usr/bin/env python3
"""Which C file of pyext/ uses which: the file graph, its circles and its layers.

    python3 tools/cgraph.py            print the graph and its strongly connected components
    python3 tools/cgraph.py --check    also fail on any edge that goes up the layer table
                                       (tools/cgraph_layers.toml) or closes a circle inside
                                       a layer, and on any call into Go outside the Go bridge

An edge A -> B means that A uses a non-static name (a function or a variable) that
B defines. Headers only declare, so they make no nodes; what a header's macros and
static inline functions use is charged to the files that use them. Calls into Go
(the functions in _cgo_export.h, marked //export in pyext's Go) are listed apart:
they are not edges between C files.

The parser is deliberately small: it strips comments, strings and preprocessor
lines, tracks braces and parentheses, and reads top-level declarations. It knows
enough C for memview's own files, not for C in general.
"""
from __future__ import annotations

import argparse
import fnmatch
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYEXT = ROOT / "pyext"
LAYERS = ROOT / "tools" / "cgraph_layers.toml"

TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|->|\S")
IDENT = re.compile(r"[A-Za-z_]\w*$")
KEYWORDS = {"static", "extern", "typedef", "inline", "const", "volatile", "struct", "union",
            "enum", "return", "sizeof", "if", "else", "for", "while", "do", "switch", "case"}


def strip(text: str) -> str:
    """C text without comments, string and character literals, or preprocessor lines
    other than #define (whose bodies use names too)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(" 0 ")
            i = j + 1
        else:
            out.append(c)
            i += 1
    lines = "".join(out).replace("\\\n", " ").split("\n")
    return "\n".join(ln if not ln.lstrip().startswith("#") or ln.lstrip()[1:].lstrip().startswith("define")
                     else "" for ln in lines)


def macros(text: str) -> tuple[dict[str, set[str]], str]:
    """The #define bodies of text (name -> the identifiers it uses), and text without them."""
    found, rest = {}, []
    for ln in text.split("\n"):
        m = re.match(r"\s*#\s*define\s+(\w+)(\([^)]*\))?(.*)", ln)
        if m:
            found[m.group(1)] = _idents(m.group(3))
            rest.append("")
        else:
            rest.append(ln)
    return found, "\n".join(rest)


def _idents(s: str) -> set[str]:
    return {t for t in TOKEN.findall(s) if IDENT.match(t)}


def _skip(toks: list[str], i: int, open_: str, close: str) -> int:
    """The index after the bracket that closes toks[i] (== open_)."""
    depth = 0
    while i < len(toks):
        if toks[i] == open_:
            depth += 1
        elif toks[i] == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def definitions(text: str) -> tuple[set[str], set[str], dict[str, set[str]]]:
    """The non-static and static names that text defines at top level, and the
    identifiers each static inline function's body uses (for headers)."""
    toks = TOKEN.findall(text)
    public, private, bodies = set(), set(), {}
    i, decl = 0, []
    while i < len(toks):
        t = toks[i]
        if t == "__attribute__" and i + 1 < len(toks) and toks[i + 1] == "(":
            i = _skip(toks, i + 1, "(", ")")
            continue
        if t == "(":
            j = _skip(toks, i, "(", ")")
            decl.append(toks[i:j])
            i = j
            continue
        if t == "{":
            j = _skip(toks, i, "{", "}")
            flat = [x for x in decl if isinstance(x, str)]
            params = [k for k, x in enumerate(decl) if isinstance(x, list)]
            if "=" not in flat and params and flat and flat[0] not in ("typedef",) and \
                    not {"struct", "union", "enum"} & set(flat[:1]) and params[0] > 0 and \
                    isinstance(decl[params[0] - 1], str) and IDENT.match(decl[params[0] - 1]):
                name = decl[params[0] - 1]
                (private if "static" in flat else public).add(name)
                if "static" in flat:
                    bodies[name] = _idents(" ".join(toks[i:j]))
                decl, i = [], j
                continue
            decl.append(("{}",))  # an initializer or a struct body: part of the declaration
            i = j
            continue
        if t == ";":
            _declare(decl, public, private)
            decl, i = [], i + 1
            continue
        decl.append(t)
        i += 1
    return public, private, bodies


def _declare(decl: list, public: set[str], private: set[str]) -> None:
    flat = [x for x in decl if isinstance(x, str)]
    if not flat or flat[0] in ("typedef", "extern"):
        return
    # split at top-level commas into declarators; a declarator with parameters
    # before any '=' is a prototype, not a definition
    pieces, cur = [], []
    for x in decl:
        if x == ",":
            pieces.append(cur)
            cur = []
        else:
            cur.append(x)
    pieces.append(cur)
    for k, piece in enumerate(pieces):
        head = []
        for x in piece:
            if x in ("=", "[") or isinstance(x, tuple):
                break
            head.append(x)
        if any(isinstance(x, list) for x in head):
            continue
        names = [x for x in head if isinstance(x, str) and IDENT.match(x) and x not in KEYWORDS]
        if not names or (k == 0 and len(names) < 2 and "*" not in head):
            continue  # `struct s;` or a lone type
        (private if "static" in flat else public).add(names[-1])


class Unit:
    def __init__(self, path: Path, header_macros: dict[str, set[str]]):
        self.name = path.name
        raw = path.read_text()
        self.cgo_export = re.search(r'^\s*#\s*include\s+"_cgo_export\.h"', raw, re.M) is not None
        own_macros, text = macros(strip(raw))
        self.public, self.private, _ = definitions(text)
        uses = _idents(text)
        for body in own_macros.values():
            uses |= body
        # what the headers' macros and inline functions use, charged to their users
        seen, todo = set(), list(uses)
        while todo:
            n = todo.pop()
            if n in seen or n in own_macros or n in self.private or n in self.public:
                continue
            seen.add(n)
            todo.extend(header_macros.get(n, ()))
        self.uses = (uses | seen) - self.private - self.public


def go_exports() -> set[str]:
    found = set()
    for f in PYEXT.glob("*.go"):
        found |= set(re.findall(r"^//export (\w+)", f.read_text(), re.M))
    return found


def load() -> tuple[list[Unit], set[str]]:
    header_macros: dict[str, set[str]] = {}
    for h in sorted(PYEXT.glob("*.h")):
        found, text = macros(strip(h.read_text()))
        header_macros.update(found)
        _, _, bodies = definitions(text)
        header_macros.update(bodies)
    units = [Unit(p, header_macros) for p in sorted(PYEXT.glob("*.c"))]
    return units, go_exports()


def graph(units: list[Unit]) -> dict[tuple[str, str], set[str]]:
    owner: dict[str, str] = {}
    for u in units:
        for n in u.public:
            if n in owner:
                sys.exit(f"cgraph: {n} is defined in both {owner[n]} and {u.name}")
            owner[n] = u.name
    edges: dict[tuple[str, str], set[str]] = {}
    for u in units:
        for n in u.uses:
            if n in owner and owner[n] != u.name:
                edges.setdefault((u.name, owner[n]), set()).add(n)
    return edges


def sccs(nodes: list[str], edges) -> list[list[str]]:
    """Tarjan's strongly connected components, each sorted, largest first."""
    succ = {n: sorted(b for (a, b) in edges if a == n) for n in nodes}
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for n in nodes:
        if n not in index:
            visit(n)
    return sorted(out, key=lambda c: (-len(c), c))


def layers(nodes: list[str]) -> tuple[list[str], dict[str, int]]:
    """The layer names, lowest first, and each file's layer index."""
    table = tomllib.loads(LAYERS.read_text())["layer"]
    names = [t["name"] for t in table]
    where: dict[str, int] = {}
    for n in nodes:
        for k, t in enumerate(table):
            if any(fnmatch.fnmatchcase(n, pat) for pat in t["files"]):
                where[n] = k
                break
    return names, where


def violations(nodes, edges, where) -> dict[tuple[str, str], str]:
    """The edges that go up the layers, and those on a circle inside one layer (with
    no upward edge, every circle lies inside one layer)."""
    level = {e: b for e, b in edges.items() if where[e[0]] == where[e[1]]}
    comp_of = {n: k for k, c in enumerate(sccs(nodes, level)) for n in c}
    bad = {}
    for (a, b) in edges:
        if where[b] > where[a]:
            bad[(a, b)] = "upward"
        elif (a, b) in level and comp_of[a] == comp_of[b]:
            bad[(a, b)] = "circle"
    return bad


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="fail on any violation")
    ap.add_argument("--quiet", action="store_true", help="print only the summary and the failures")
    ap.add_argument("--dir", type=Path, help="read the C files from DIR instead of pyext/")
    args = ap.parse_args(argv)
    global PYEXT
    if args.dir:
        PYEXT = args.dir.resolve()

    units, exports = load()
    nodes = [u.name for u in units]
    edges = graph(units)
    comps = sccs(nodes, edges)
    names, where = layers(nodes)

    if not args.quiet:
        print(f"pyext: {len(nodes)} C files, {len(edges)} edges (A -> B: A uses names B defines)")
        for n in nodes:
            outs = sorted(b for (a, b) in edges if a == n)
            layer = names[where[n]] if n in where else "?"
            print(f"  {n} [{layer}] -> " + (", ".join(
                f"{b} ({', '.join(sorted(edges[(n, b)])[:3])}{', ...' if len(edges[(n, b)]) > 3 else ''})"
                for b in outs) or "-"))
        go = {u.name: sorted(u.uses & exports) for u in units if u.uses & exports}
        print(f"calls into Go (//export): {len(go)} files: " + ", ".join(f"{n} ({len(v)})" for n, v in go.items()))
    big = [c for c in comps if len(c) > 1]
    print(f"strongly connected components with more than one file: {len(big)}")
    for c in big:
        print(f"  {len(c)} files: {' '.join(c)}")

    # Only the Go bridge calls Go (its layer says calls_go = true): the fork
    # chokepoint holds by construction when no other file can reach an export.
    table = tomllib.loads(LAYERS.read_text())["layer"]
    go_callers = sorted(u.name for u in units if (u.uses & exports or u.cgo_export)
                        and not (u.name in where and table[where[u.name]].get("calls_go")))
    for n in go_callers:
        print(f"  CALLS GO: {n} uses {' '.join(sorted(next(u for u in units if u.name == n).uses & exports))}"
              " or includes _cgo_export.h; only the Go bridge may (go_bridge.h)")
    missing = [n for n in nodes if n not in where]
    if missing:
        print(f"cgraph: no layer for {', '.join(missing)}: add them to {LAYERS.relative_to(ROOT)}")
        return 1
    bad = violations(nodes, edges, where)
    if not args.check:
        print(f"layering: {len(bad)} edges go up the layers or round a circle")
        return 0
    print(f"layering: {len(bad)} violations")
    for (a, b) in sorted(bad):
        print(f"  {bad[(a, b)].upper()}: {a} [{names[where[a]]}] -> {b} [{names[where[b]]}]"
              f" uses {' '.join(sorted(edges[(a, b)]))}")
    return 1 if bad or go_callers else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
