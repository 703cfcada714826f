"""tools/cgraph.py: the file graph of pyext's C and its layer check, on small files."""
import importlib.util
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _load():
    spec = importlib.util.spec_from_file_location("cgraph", ROOT / "tools" / "cgraph.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["cgraph"] = mod
    spec.loader.exec_module(mod)
    return mod


def _write(d, files):
    for name, text in files.items():
        (d / name).write_text(textwrap.dedent(text))


def test_edges_count_non_static_names_and_header_macros(tmp_path, monkeypatch):
    cg = _load()
    _write(tmp_path, {
        "a.h": """
            #define RAISE(m) mv_raise(m)  /* a macro charges its user */
            static inline int twice(int x) { return helper(x) * 2; }
            int used_from_header(void);
        """,
        "core.c": """
            #include "a.h"
            PyObject *mv_error = NULL;
            int mv_raise(const char *m) { return m != 0; }
            int helper(int x) { return x; }
            static int hidden(void) { return 0; }
        """,
        "views.c": """
            #include "a.h"
            static int hidden(void) { return 1; }  /* its own, not core.c's */
            int view(void) { "mv_raise in a string"; return RAISE("x") + twice(1) + hidden(); }
        """,
        "module.c": """
            extern PyObject *mv_error;
            int install(void) { return view() + (mv_error != 0); }
        """,
    })
    monkeypatch.setattr(cg, "PYEXT", tmp_path)
    units, _ = cg.load()
    edges = cg.graph(units)
    assert {e: sorted(n) for e, n in edges.items()} == {
        ("views.c", "core.c"): ["helper", "mv_raise"],
        ("module.c", "views.c"): ["view"],
        ("module.c", "core.c"): ["mv_error"],
    }
    nodes = [u.name for u in units]
    assert all(len(c) == 1 for c in cg.sccs(nodes, edges))


def test_upward_edges_and_circles_inside_a_layer(tmp_path, monkeypatch):
    cg = _load()
    _write(tmp_path, {
        "core.c": "int low(void) { return high(); }\nint low2(void) { return 0; }\n",
        "fast.c": "int high(void) { return low2() + side(); }\n",
        "side.c": "int side(void) { return high(); }\n",
    })
    (tmp_path / "layers.toml").write_text(
        '[[layer]]\nname = "core"\nfiles = ["core.c"]\n'
        '[[layer]]\nname = "fast"\nfiles = ["fast.c", "side.c"]\n')
    monkeypatch.setattr(cg, "PYEXT", tmp_path)
    monkeypatch.setattr(cg, "LAYERS", tmp_path / "layers.toml")
    units, _ = cg.load()
    nodes = [u.name for u in units]
    edges = cg.graph(units)
    assert cg.sccs(nodes, edges)[0] == ["core.c", "fast.c", "side.c"]
    _, where = cg.layers(nodes)
    assert cg.violations(nodes, edges, where) == {
        ("core.c", "fast.c"): "upward",
        ("fast.c", "side.c"): "circle",
        ("side.c", "fast.c"): "circle",
    }


def test_pyext_has_no_edge_beyond_the_baseline():
    cg = _load()
    assert cg.main(["--check", "--quiet"]) == 0
