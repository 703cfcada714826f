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
        "ops_views.c": """
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
        ("ops_views.c", "core.c"): ["helper", "mv_raise"],
        ("module.c", "ops_views.c"): ["view"],
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


def test_only_the_go_bridge_calls_go(tmp_path, monkeypatch, capsys):
    cg = _load()
    _write(tmp_path, {
        "go_bridge.c": '#include "_cgo_export.h"\nint mv_go_f(void) { return mvgo_f(); }\n',
        "core.c": "int a(void) { return mv_go_f(); }\n",
        "sneak.c": "int b(void) { return mvgo_f(); }\n",
        "header.c": '#include "_cgo_export.h"\nint c(void) { return 0; }\n',
    })
    (tmp_path / "x.go").write_text("package x\n\n//export mvgo_f\nfunc mvgo_f() C.int { return 0 }\n")
    (tmp_path / "layers.toml").write_text(
        '[[layer]]\nname = "go"\nfiles = ["go_*.c"]\ncalls_go = true\n'
        '[[layer]]\nname = "core"\nfiles = ["core.c", "sneak.c", "header.c"]\n')
    monkeypatch.setattr(cg, "PYEXT", tmp_path)
    monkeypatch.setattr(cg, "LAYERS", tmp_path / "layers.toml")
    assert cg.main(["--check", "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "CALLS GO: sneak.c uses mvgo_f" in out and "CALLS GO: header.c" in out
    assert "core.c uses" not in out


def test_pyext_is_layered():
    cg = _load()
    assert cg.main(["--check", "--quiet"]) == 0
