"""The README's examples run as written and print what the README says
(tests/test_docs.py does the same for the examples in docs/)."""
import pathlib
import re
import subprocess
import sys

import pytest

import memview as mv

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def readme_block(marker):
    m = re.search(rf"<!-- {marker}.*?-->\n```python\n(.*?)```\n```text\n(.*?)```", README.read_text(), re.S)
    assert m, f"README block {marker!r} not found"
    return m.group(1), m.group(2)


def run(code):
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_quickstart_output_matches():
    code, want = readme_block("quickstart")
    assert run(code) == want


@pytest.mark.skipif("sigproc" not in mv.go_packages(),
                    reason="examples/sigproc is not built in (python3 build.py test builds it with memview)")
def test_go_developers_example_output_matches():
    code, want = readme_block("go-quickstart")
    assert run(code) == want


def test_readme_is_short_and_its_links_exist():
    text = README.read_text()
    assert len(text.splitlines()) <= 200, "the README is an entry point: move detail into docs/"
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if not link.startswith(("http://", "https://"))]
    assert local and not [link for link in local if not (README.parent / link).exists()]
