"""Runs tests/fake_cuda/check_memory_devices.py — buffers, pools and views
across devices — against the fake libcuda.so.1 built from
tests/fake_cuda/fake_cuda.c (see test_fake_cuda_driver.py for what the fake is)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import memview as mv

HERE = Path(__file__).parent / "fake_cuda"


@pytest.mark.skipif(mv.cuda.is_available(), reason="a real CUDA driver is loaded here")
@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                    reason="no C compiler to build the fake driver")
def test_memory_across_devices_against_the_fake_driver(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    lib = tmp_path / "libcuda.so.1"
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", str(lib), str(HERE / "fake_cuda.c")], check=True)
    path = os.pathsep.join([str(Path(mv.__file__).resolve().parent.parent), os.environ.get("PYTHONPATH", "")])
    env = dict(os.environ, LD_LIBRARY_PATH=f"{tmp_path}:{os.environ.get('LD_LIBRARY_PATH', '')}",
               MEMVIEW_FAKE_CUDA=str(lib), PYTHONPATH=path)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        str(HERE / "check_memory_devices.py")], env=env, capture_output=True, text=True,
                       cwd=Path(__file__).parent, timeout=600)
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]
    assert " passed" in r.stdout and "failed" not in r.stdout, r.stdout[-2000:]
