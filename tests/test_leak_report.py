"""The suite's leak check names the origin of a leak: a test that keeps an
array alive fails, and the report gives the Go call site and the Python line
that allocated it."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import memview as mv

LEAKY = '''\
import memview as mv

KEPT = []


def helper():
    return mv.zeros(3)


def test_keeps_an_array():
    KEPT.append(helper())


def test_clean():
    a = mv.arange(5)
    assert a[4] == 4
'''


def test_suite_reports_the_allocating_line(tmp_path):
    shutil.copy(Path(__file__).with_name("conftest.py"), tmp_path / "conftest.py")
    (tmp_path / "test_leaky.py").write_text(LEAKY)
    path = os.pathsep.join([str(Path(mv.__file__).resolve().parent.parent), os.environ.get("PYTHONPATH", "")])
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                       env=dict(os.environ, PYTHONPATH=path, MEMVIEW_TEST_POOL="checked"), capture_output=True,
                       text=True, timeout=300,
                       cwd=tmp_path)
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert "2 passed, 1 error" in out, out  # the leaking test errors at teardown
    assert "ERROR test_leaky.py::test_keeps_an_array" in out, out
    assert "memview: 1 allocation(s) not freed" in out, out
    assert "memview: leak of 64 bytes at 0x" in out, out
    # the Go call site ...
    assert "memview.Empty" in out and "pyext.mvgo_empty" in out, out
    # ... and the Python traceback down to the allocating line
    assert f'{tmp_path / "test_leaky.py"}", line 11, in test_keeps_an_array' in out, out
    assert f'{tmp_path / "test_leaky.py"}", line 7, in helper' in out, out
