"""Runs tests/fake_cuda/check_*.py against a fake libcuda.so.1 built from
tests/fake_cuda/fake_cuda.c: memview's CUDA code paths (allocators, contexts,
streams, events, kernels, strided copies and fills, the pending-work state of
device memory, fork and the GIL around the driver, buffers and pools across
devices) exercised in CI without a GPU. The fake is not CUDA;
tests/test_gpu.py is the real check, on a GPU machine."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import memview as mv

HERE = Path(__file__).parent / "fake_cuda"
ABI = Path(__file__).parent.parent / "cuda"  # cuda_abi.h, shared with memview's driver file


@pytest.mark.skipif(mv.cuda.is_available(), reason="a real CUDA driver is loaded here")
@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                    reason="no C compiler to build the fake driver")
def test_cuda_paths_against_the_fake_driver(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    lib = tmp_path / "libcuda.so.1"
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-Wall", "-Werror", f"-I{ABI}", "-o", str(lib),
                    str(HERE / "fake_cuda.c"), "-lpthread"], check=True)
    # the same memview this process imported, wherever it was installed
    path = os.pathsep.join([str(Path(mv.__file__).resolve().parent.parent), os.environ.get("PYTHONPATH", "")])
    env = dict(os.environ, LD_LIBRARY_PATH=f"{tmp_path}:{os.environ.get('LD_LIBRARY_PATH', '')}",
               MEMVIEW_FAKE_CUDA=str(lib), PYTHONPATH=path)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        str(HERE / "check_fake_driver.py"), str(HERE / "check_device_state.py"),
                        str(HERE / "check_fork.py"), str(HERE / "check_gil.py"),
                        str(HERE / "check_memory_devices.py")],
                       env=env, capture_output=True, text=True, cwd=Path(__file__).parent, timeout=900)
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]
    assert " passed" in r.stdout and "failed" not in r.stdout, r.stdout[-2000:]
