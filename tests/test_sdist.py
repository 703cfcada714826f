"""The source distribution: exactly the tracked files a build reads (the Go and C
sources, go.mod and go.sum, the committed generated tables, the build scripts, LICENSE,
README and pyproject.toml), its core metadata, and no build output or tests."""
import importlib.util
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def build_module():
    spec = importlib.util.spec_from_file_location("memview_build_sdist", ROOT / "build.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def sdist(tmp_path_factory):
    build = build_module()
    out = tmp_path_factory.mktemp("sdist")
    name = build.build_sdist(str(out))
    path = out / name
    with tarfile.open(path) as tf:
        members = {m.name: m for m in tf.getmembers()}
        pkg_info = tf.extractfile("memview-0.1.0/PKG-INFO").read().decode()
    return build, path, members, pkg_info


def tracked():
    if shutil.which("git") is None:
        pytest.skip("no git command to list the tracked files")
    r = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip("not a git checkout")
    return set(r.stdout.split())


def test_sdist_name_and_metadata(sdist):
    build, path, members, pkg_info = sdist
    assert path.name == "memview-0.1.0.tar.gz"
    assert all(m.startswith("memview-0.1.0/") for m in members)
    assert pkg_info == build.wheel_metadata()
    assert "Name: memview\nVersion: 0.1.0\n" in pkg_info


def test_sdist_holds_what_a_build_reads(sdist):
    _, _, members, _ = sdist
    files = {m.removeprefix("memview-0.1.0/") for m in members}
    for f in ["pyproject.toml", "build.py", "memview_backend.py", "gopyext.py", "gopyfast.py", "go.mod", "go.sum",
              "LICENSE", "README.md", "requirements-dev.txt", "tools/gobridge.py", "tools/tools.go",
              "pyext/dtypes_table.h", "python/memview/_dtypes_table.py", "cuda/kernels.ptx",
              "memview/copy_nt_amd64.s", "python/memview/py.typed", "python/memview/__init__.pyi"]:
        assert f in files, f
    # every tracked source of the packages the build compiles, and of gopysig
    want = {f for f in tracked() if f.split("/")[0] in ("memview", "cuda", "pyext")
            and not f.endswith("_test.go") and "/testdata/" not in f}
    want |= {f for f in tracked() if f.startswith(("python/memview/", "tools/gopysig/"))
             and not f.endswith("_test.go") and "/testdata/" not in f}
    assert want <= files, sorted(want - files)


def test_sdist_holds_nothing_else(sdist):
    _, _, members, _ = sdist
    files = {m.removeprefix("memview-0.1.0/") for m in members}
    assert files - {"PKG-INFO"} <= tracked()  # nothing untracked, so no build output
    for f in files:
        top = f.split("/")[0]
        assert top not in (".build", "dist", "tests", "examples", "docs", "benchmarks", ".ci"), f
        assert not f.endswith(("_test.go", ".so", ".whl", ".pyc")) and "testdata" not in f, f
    assert all(m.isfile() and m.uid == 0 and not m.uname for m in members.values())
    assert members["memview-0.1.0/build.py"].mode in (0o644, 0o755)


def test_sdist_in_an_unpacked_sdist(tmp_path, sdist):
    """An sdist written from an unpacked sdist (no git) holds the same files."""
    _, path, members, _ = sdist
    with tarfile.open(path) as tf:
        tf.extractall(tmp_path / "src", filter="data")
    src = tmp_path / "src" / "memview-0.1.0"
    out = tmp_path / "again"
    r = subprocess.run([sys.executable, "-c", "import memview_backend as b, sys; print(b.build_sdist(sys.argv[1]))", out],
                       cwd=src, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    with tarfile.open(out / r.stdout.split()[-1]) as tf:
        assert {m.name for m in tf.getmembers()} == set(members)
