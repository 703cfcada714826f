"""The documentation's examples run as written and print what the docs say, and
the API reference has an entry for every public name.

An example in docs/ is a ```python block followed by a ```text block with its
expected output, marked by a comment line before it:

    <!-- example: NAME [needs=MODULE,...] [go=PACKAGE] [gpu] -->

needs= names the optional consumers the example imports (skipped, with the
reason, when one is not installed), go= a Go package that must be built in
(python3 build.py test builds examples/sigproc and examples/rgbimage in), and
gpu that it needs a CUDA device. tests/test_readme.py does the same for the
README's blocks.
"""
import importlib.util
import pathlib
import re
import subprocess
import sys

import pytest

import memview as mv

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"
EXAMPLE = re.compile(r"<!-- example: (?P<name>[\w-]+)(?P<opts>[^>]*?)-->\n```python\n(?P<code>(?:(?!```).)*?)```\n"
                     r"```text\n(?P<want>.*?)```", re.S)


def examples():
    out = []
    for page in sorted(DOCS.rglob("*.md")):
        for m in EXAMPLE.finditer(page.read_text()):
            opts = dict(o.partition("=")[::2] for o in m.group("opts").split())
            rel = page.relative_to(DOCS).as_posix()
            out.append(pytest.param(m.group("code"), m.group("want"), opts, id=f"{rel}:{m.group('name')}"))
    return out


def missing(opts):
    """Why an example cannot run here, or None."""
    for mod in filter(None, opts.get("needs", "").split(",")):
        if importlib.util.find_spec(mod) is None:
            return f"needs {mod}, which is not installed (requirements-interop.txt)"
    go = opts.get("go")
    if go and go not in mv.go_packages():
        return f"needs the Go package {go} built in (python3 build.py test builds it)"
    if "gpu" in opts and not mv.cuda.is_available():
        return "needs a CUDA device"
    return None


def test_docs_have_examples():
    assert len(examples()) >= 10


@pytest.mark.parametrize("code,want,opts", examples())
def test_docs_example_output_matches(code, want, opts):
    reason = missing(opts)
    if reason:
        pytest.skip(reason)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout == want


def reference_names(page):
    return set(re.findall(r"^::: ([\w.]+)$", (DOCS / "reference" / page).read_text(), re.M))


def test_reference_covers_all_of_memview():
    names = reference_names("index.md")
    assert not [n for n in mv.__all__ if f"memview.{n}" not in names]


def test_reference_covers_all_of_memview_cuda():
    names = reference_names("cuda.md")
    assert not [n for n in mv.cuda.__all__ if f"memview.cuda.{n}" not in names]
