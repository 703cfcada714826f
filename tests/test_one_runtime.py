"""One Go runtime per process: a second memview-bearing extension is refused at
import with an ImportError that says why, before it can start a second Go
runtime (golang/go#18976)."""
import os
import shutil
import subprocess
import sys

import memview as mv

SITE = os.path.dirname(os.path.dirname(os.path.abspath(mv.__file__)))


def run(code, tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), SITE]))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


def test_second_memview_extension_is_refused(tmp_path):
    second = tmp_path / "memview_second"
    shutil.copytree(os.path.dirname(os.path.abspath(mv.__file__)), second,
                    ignore=shutil.ignore_patterns("__pycache__"))
    code = """
import memview
try:
    import memview_second
except ImportError as e:
    print("ImportError:", e)
maps = open("/proc/self/maps").read()
print("second loaded:", "memview_second" in maps)
print("memview works:", memview.arange(3).tolist())
"""
    r = run(code, tmp_path)
    assert r.returncode == 0, r.stderr
    assert "ImportError: memview: another memview extension" in r.stdout
    assert "golang/go#18976" in r.stdout and "--with" in r.stdout
    assert "second loaded: False" in r.stdout  # refused before its Go runtime started
    assert "memview works: [0, 1, 2]" in r.stdout


def test_extension_refuses_a_core_it_did_not_make(tmp_path):
    # Past the Python check (a foreign memview._core claiming this directory), the
    # extension itself refuses: Install sees a memview._core it did not make.
    code = f"""
import sys, types
fake = types.ModuleType("memview._core")
fake._extension_dir = {os.path.dirname(os.path.abspath(mv.__file__))!r}
sys.modules["memview._core"] = fake
try:
    import memview
except ImportError as e:
    print("ImportError:", e)
"""
    r = run(code, tmp_path)
    assert r.returncode == 0, r.stderr
    assert "ImportError: memview: another memview extension is already loaded" in r.stdout
    assert "golang/go#18976" in r.stdout
