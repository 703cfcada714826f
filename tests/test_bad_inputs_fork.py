"""The bad-input catalogue of indexing, assignment and the array methods, run again
in a forked child, where no Go runs: host arrays have one engine (C), so every row
must raise there the same exception, with the same message, and change nothing.

Rows that reach Go values, bound packages or devices are left out: in a child those raise
memview's RuntimeError naming spawn and forkserver, by design (tests/test_fork.py)."""
import json
import os
import sys

import pytest

import catalogue
from test_bad_inputs_arrays import ASSIGNMENT, INDEXING, METHODS

needs_fork = pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin",
                                reason="os.fork is POSIX-only (and unsafe on macOS)")
GO_NAMES = ("sig", "gs", "im", "go.", "gopkg", "sigproc", "rgbimage", "Producer", "cai", "PTR", "cuda", "from_go", "Pool",
            "Buffer", "Builder", "pool", ".to(", "device", ".view(")


def _rows():
    out = []
    for table in (INDEXING, ASSIGNMENT, METHODS):
        for source, exc, match in table:
            if not any(g in source for g in GO_NAMES):
                out.append((source, exc, match))
    return out


def _outcome(source: str) -> list:
    """[exception type, message, what changed] of running source in a fresh namespace."""
    ns = catalogue.namespace()
    try:
        before = {k: catalogue._array_state(v) for k, v in ns.items() if isinstance(v, catalogue.mv.Array)}
        try:
            code = compile(source, "<row>", "eval")
        except SyntaxError:
            code = compile(source, "<row>", "exec")
        try:
            eval(code, {"__builtins__": __builtins__}, ns)
            got = [None, ""]
        except Exception as e:  # noqa: BLE001 - the row's exception is what is compared
            got = [type(e).__name__, str(e)]
        after = {k: catalogue._array_state(v) for k, v in ns.items() if isinstance(v, catalogue.mv.Array)}
        return got + [sorted(k for k in before if before[k] != after.get(k))]
    finally:
        ns.clear()


@needs_fork
def test_bad_inputs_raise_alike_in_a_forked_child(monkeypatch):
    rows = _rows()
    assert len(rows) > 100
    monkeypatch.setattr(catalogue, "_go_namespace", dict)  # no Go values in either process
    parent = [_outcome(src) for src, _, _ in rows]
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: every row again, the outcomes back through the pipe
        try:
            os.close(r)
            data = json.dumps([_outcome(src) for src, _, _ in rows]).encode()
            with os.fdopen(w, "wb") as f:
                f.write(data)
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        child = json.loads(f.read() or b"null")
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0 and child is not None, "the child failed"
    differ = [(src, p, c) for (src, exc, _), p, c in zip(rows, parent, child) if p != c]
    assert not differ, f"{len(differ)} rows differ between parent and child: {differ[:5]}"
    for (src, exc, _), p in zip(rows, parent):  # raised what the catalogue says, and changed nothing
        assert p[0] is not None and (exc is Exception or p[0] == exc.__name__) and not p[2], (src, p)
