"""The README's quick start runs as written and prints what the README says."""
import pathlib
import re
import subprocess
import sys

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def test_quickstart_output_matches():
    text = README.read_text()
    m = re.search(r"<!-- quickstart.*?-->\n```python\n(.*?)```\n```text\n(.*?)```", text, re.S)
    assert m, "README quick start block not found"
    code, want = m.group(1), m.group(2)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout == want
