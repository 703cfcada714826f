"""What a newcomer meets before importing memview: the wheel's metadata says what
pyproject.toml declares, and a machine without Go is told which Go to install."""
import importlib.util
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def build_module():
    spec = importlib.util.spec_from_file_location("memview_build", ROOT / "build.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_wheel_metadata_has_license_extras_and_readme():
    md = build_module().wheel_metadata()
    head, _, body = md.partition("\n\n")
    fields = dict(line.split(": ", 1) for line in head.splitlines())
    assert fields["Metadata-Version"] == "2.4"
    assert fields["License-Expression"] == "BSD-3-Clause" and fields["License-File"] == "LICENSE"
    assert fields["Description-Content-Type"] == "text/markdown"
    assert 'Requires-Dist: numpy; extra == "numpy"' in head
    assert "Classifier: Programming Language :: Python :: 3.11" in head and "zero-copy" in fields["Keywords"]
    assert "Project-URL: Changelog, https://github.com/memview/memview/blob/main/CHANGELOG.md" in head
    assert "Copyright (c)" in (ROOT / "LICENSE").read_text() and "BSD 3-Clause" in (ROOT / "LICENSE").read_text()
    assert body == (ROOT / "README.md").read_text()


def test_no_go_names_the_version(monkeypatch):
    build = build_module()
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(SystemExit, match=r"needs Go 1\.\d+(\.\d+)? or newer"):
        build.setup_tools()
