"""A Go developer's own distribution: `build.py wheel --with DIR --name NAME
--version V`, or the [project] table of DIR's pyproject.toml, names the wheel and
writes its metadata; memview's Python floor holds; the command line wins."""
import argparse
import importlib.util
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def build_module():
    spec = importlib.util.spec_from_file_location("memview_build_dist", ROOT / "build.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


build = build_module()

PYPROJECT = """
[project]
name = "sigproc_tools"
version = "1.2.0"
description = "Signal processing in Go, for NumPy"
readme = "README.md"
requires-python = ">=3.10"
license = "MIT"
license-files = ["LICENSE.txt"]
dependencies = ["numpy>=2"]
[project.urls]
Source = "https://example.org/sigproc"
"""


@pytest.fixture
def godir(tmp_path):
    d = tmp_path / "sigproc"
    d.mkdir()
    (d / "pyproject.toml").write_text(PYPROJECT)
    (d / "README.md").write_text("# sigproc\n\nFilters.\n")
    (d / "LICENSE.txt").write_text("MIT License\n")
    return d


def fields(md):
    head, _, body = md.partition("\n\n")
    return [tuple(line.split(": ", 1)) for line in head.splitlines()], body


def test_metadata_from_the_go_packages_pyproject(godir):
    dist = build.distribution(build.parse_command("wheel", ["--with", str(godir)]))
    assert (dist.name, dist.version, dist.file_name) == ("sigproc_tools", "1.2.0", "sigproc_tools")
    head, body = fields(build.wheel_metadata(dist))
    assert ("Name", "sigproc-tools") in head and ("Version", "1.2.0") in head
    assert ("Summary", "Signal processing in Go, for NumPy") in head
    assert ("Requires-Python", ">=3.11, >=3.10") in head  # memview's floor and theirs
    assert ("Requires-Dist", "numpy>=2") in head and ("License-Expression", "MIT") in head
    assert ("License-File", "LICENSE.txt") in head and ("Project-URL", "Source, https://example.org/sigproc") in head
    assert body == "# sigproc\n\nFilters.\n"
    assert build.license_files(dist) == ["LICENSE.txt"]


def test_the_command_line_wins(godir):
    dist = build.distribution(build.parse_command("wheel", ["--with", str(godir), "--name", "Sigproc.Pro",
                                                            "--version", "2.0RC1"]))
    assert (dist.name, dist.version, dist.file_name) == ("Sigproc.Pro", "2.0rc1", "sigproc_pro")
    head, _ = fields(build.wheel_metadata(dist))
    assert ("Name", "sigproc-pro") in head and ("Version", "2.0rc1") in head


def test_a_name_without_a_pyproject(tmp_path):
    d = tmp_path / "rgb"
    d.mkdir()
    dist = build.distribution(build.parse_command("wheel", ["--with", str(d), "--name", "rgb-tools",
                                                            "--version", "0.1"]))
    head, body = fields(build.wheel_metadata(dist))
    assert ("Name", "rgb-tools") in head and ("Summary", "Go packages built with memview (rgb)") in head
    assert ("Requires-Python", ">=3.11") in head and body == ""
    assert not any(k == "Classifier" for k, _ in head)  # memview's own metadata is not theirs


def test_memview_itself_without_options():
    dist = build.distribution(build.parse_command("wheel", ["--with", str(ROOT / "examples" / "sigproc")]))
    assert (dist.name, dist.version) == ("memview", "0.1.0") and dist.base == ROOT


def test_a_bad_name_in_the_pyproject_is_refused(godir):
    (godir / "pyproject.toml").write_text('[project]\nname = "-bad-"\nversion = "1"\n')
    with pytest.raises(SystemExit, match="is not a distribution name"):
        build.distribution(build.parse_command("wheel", ["--with", str(godir)]))


def test_the_wheel_file_and_its_dist_info(godir, tmp_path):
    """write_wheel names the file and the .dist-info by the distribution (on a
    stand-in of the built packages: no extension, so the glibc floor, 2.17)."""
    pkg = tmp_path / "out" / "memview"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (tmp_path / "out" / "sigproc").mkdir()
    (tmp_path / "out" / "sigproc" / "__init__.py").write_text("")
    dist = build.distribution(argparse.Namespace(with_pkgs=[build.WithPackage(str(godir))], name=None, version=None))
    whl = build.write_wheel(pkg, tmp_path / "dist", arch="x86_64", cc="zig", published=dist)
    if not build.sysconfig.get_platform().startswith("linux-"):
        pytest.skip("the tag is Linux's")
    assert whl.name == "sigproc_tools-1.2.0-cp311-abi3-manylinux_2_17_x86_64.whl"
    with zipfile.ZipFile(whl) as zf:
        names = set(zf.namelist())
        assert {"memview/__init__.py", "sigproc/__init__.py", "sigproc_tools-1.2.0.dist-info/METADATA",
                "sigproc_tools-1.2.0.dist-info/licenses/LICENSE.txt", "sigproc_tools-1.2.0.dist-info/RECORD"} <= names
        assert "Name: sigproc-tools\n" in zf.read("sigproc_tools-1.2.0.dist-info/METADATA").decode()


def test_each_wheel_marks_the_memview_package_with_its_name(godir, tmp_path):
    pkg = tmp_path / "out" / "memview"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    for published, marker in ((build.distribution(), "memview/_dist-memview.txt"),
                              (build.distribution(build.parse_command("wheel", ["--with", str(godir)])),
                               "memview/_dist-sigproc-tools.txt")):
        whl = build.write_wheel(pkg, tmp_path / "dist", arch="x86_64", cc="zig", published=published)
        with zipfile.ZipFile(whl) as zf:
            assert marker in zf.namelist()
            assert zf.read(marker).decode() == f"{published.name} {published.version}\n"


def test_memviews_own_wheel_carries_its_source_and_backend(godir, tmp_path):
    """memview's wheel holds its sdist and memview_backend.py, with which a Go
    developer's `python -m build` builds (requires = ["memview"]); a composed
    distribution's wheel holds neither."""
    pkg = tmp_path / "out" / "memview"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    whl = build.write_wheel(pkg, tmp_path / "own", arch="x86_64", cc="zig", published=build.distribution())
    with zipfile.ZipFile(whl) as zf:
        assert zf.read("memview_backend.py") == (build.ROOT / "memview_backend.py").read_bytes()
        src = zf.read(f"memview/_source/memview-{build.VERSION}.tar.gz")
        records = zf.read(f"memview-{build.VERSION}.dist-info/RECORD").decode()
    assert "memview_backend.py," in records and f"memview/_source/memview-{build.VERSION}.tar.gz," in records
    import io
    import tarfile
    with tarfile.open(fileobj=io.BytesIO(src)) as tf:
        names = set(tf.getnames())
    assert {f"memview-{build.VERSION}/build.py", f"memview-{build.VERSION}/PKG-INFO",
            f"memview-{build.VERSION}/memview_backend.py"} <= names
    theirs = build.write_wheel(pkg, tmp_path / "theirs", arch="x86_64", cc="zig",
                               published=build.distribution(build.parse_command("wheel", ["--with", str(godir)])))
    with zipfile.ZipFile(theirs) as zf:
        assert not any(n.startswith(("memview/_source/", "memview_backend")) for n in zf.namelist())


def test_the_backend_in_a_go_developers_project_reads_its_pyproject(tmp_path, monkeypatch):
    """memview_backend outside memview's tree: the project's [tool.memview]
    packages (relative to the project), its sdist of the project's files."""
    import importlib.util
    import shutil
    import tarfile
    alone = tmp_path / "site" / "memview_backend.py"
    alone.parent.mkdir()
    shutil.copy(build.ROOT / "memview_backend.py", alone)
    spec = importlib.util.spec_from_file_location("memview_backend_alone", alone)
    backend = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(backend)
    assert not backend._OWN
    proj = tmp_path / "proj"
    (proj / "go" / "stats").mkdir(parents=True)
    (proj / "go" / "stats" / "stats.go").write_text("package stats\n")
    (proj / "pyproject.toml").write_text('[project]\nname = "my-stats"\nversion = "2.0"\n\n'
                                         '[tool.memview]\npackages = ["go/stats=mystats"]\n')
    (proj / "dist").mkdir()
    (proj / "dist" / "old.whl").write_text("")  # build output: left out of the sdist
    monkeypatch.chdir(proj)
    monkeypatch.setattr(backend, "_build_py", lambda: build)  # this checkout's build.py stands in for the unpacked one
    assert backend._settings(None) == {"with": [f"{proj / 'go' / 'stats'}=mystats"]}
    assert backend._settings({"cc": "system"})["cc"] == "system"
    name = backend.build_sdist(str(tmp_path / "sdist"))
    assert name == "my_stats-2.0.tar.gz"
    with tarfile.open(tmp_path / "sdist" / name) as tf:
        assert sorted(tf.getnames()) == ["my_stats-2.0/PKG-INFO", "my_stats-2.0/go/stats/stats.go",
                                         "my_stats-2.0/pyproject.toml"]
        assert "Name: my-stats\nVersion: 2.0\n" in tf.extractfile("my_stats-2.0/PKG-INFO").read().decode()
    (proj / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "1"\n[tool.memview]\npackages = "go"\n')
    with pytest.raises(SystemExit, match="list of Go package directories"):
        backend._settings(None)


def test_import_names_two_distributions_that_installed_memview(tmp_path):
    """pip lets a Go developer's distribution and memview overwrite each other's
    files; both leave their marker, and import memview names them."""
    import shutil
    import subprocess
    import sys

    import memview
    site = tmp_path / "site"
    shutil.copytree(Path(memview.__file__).parent, site / "memview",
                    ignore=shutil.ignore_patterns("__pycache__", "_dist-*"))
    code = "import warnings, memview; print('imported')"
    env = {"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin", "PYTHONWARNINGS": "error::RuntimeWarning"}
    (site / "memview" / "_dist-memview.txt").write_text("memview 0.1.0\n")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == "imported\n", r.stderr
    (site / "memview" / "_dist-sigproc-tools.txt").write_text("sigproc_tools 1.2.0\n")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode != 0
    assert "was installed by 2 distributions, memview and sigproc-tools, which overwrite each other's files" in r.stderr
