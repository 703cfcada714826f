"""The documentation's examples run as written and print what the docs say, and
the API reference has an entry for every public name.

An example in docs/ is a ```python block followed by a ```text block with its
expected output, marked by a comment line before it:

    <!-- example: NAME [needs=MODULE,...] [go=PACKAGE] [gpu] -->

needs= names the optional consumers the example imports (skipped, with the
reason, when one is not installed), go= a Go package that must be built in
(python3 build.py test builds examples/sigproc and examples/rgbimage in), and
gpu that it needs a CUDA device. Without one, a gpu example that needs nothing
else runs against the fake CUDA driver of tests/fake_cuda (the CUDA code paths
as CI tests them); the others skip. tests/test_readme.py does the same for the
README's blocks.
"""
import importlib.util
import os
import pathlib
import re
import shutil
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
    if "gpu" in opts and not mv.cuda.is_available() and ("needs" in opts or not shutil.which("cc")):
        return "needs a CUDA device (and what it names, with no fake for it)"
    return None


@pytest.fixture(scope="session")
def fake_cuda_env(tmp_path_factory):
    """The environment that loads tests/fake_cuda's libcuda.so.1 in place of a driver."""
    tmp = tmp_path_factory.mktemp("fake_cuda")
    here = pathlib.Path(__file__).resolve().parent
    subprocess.run([shutil.which("cc"), "-shared", "-fPIC", "-O1", f"-I{here.parent / 'cuda'}", "-o",
                    str(tmp / "libcuda.so.1"), str(here / "fake_cuda" / "fake_cuda.c"), "-lpthread"], check=True)
    return {"LD_LIBRARY_PATH": f"{tmp}:{os.environ.get('LD_LIBRARY_PATH', '')}",
            "MEMVIEW_FAKE_CUDA": str(tmp / "libcuda.so.1")}


def test_docs_have_examples():
    assert len(examples()) >= 10


@pytest.mark.parametrize("code,want,opts", examples())
def test_docs_example_output_matches(code, want, opts, request, tmp_path):
    reason = missing(opts)
    if reason:
        pytest.skip(reason)
    env = dict(os.environ)
    if "gpu" in opts and not mv.cuda.is_available():
        env.update(request.getfixturevalue("fake_cuda_env"))
    # the memview this process imported, wherever it was installed
    env["PYTHONPATH"] = os.pathsep.join([str(pathlib.Path(mv.__file__).resolve().parent.parent),
                                         env.get("PYTHONPATH", "")])
    # a script file, not -c: multiprocessing's spawn start method imports the main module
    script = tmp_path / "example.py"
    script.write_text(code)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=env,
                       cwd=tmp_path)
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
