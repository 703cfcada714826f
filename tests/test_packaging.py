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


def fake_go(tmp_path, monkeypatch, version, rc=0, stderr=""):
    """A go command on PATH that reports version (and nothing else)."""
    go = tmp_path / "go"
    go.write_text(f"#!/bin/sh\necho '{version}'\necho '{stderr}' >&2\nexit {rc}\n")
    go.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")


@pytest.mark.parametrize("version", ["go1.26.8", "go1.26.9", "go1.27.0", "go1.27.3"])
def test_tested_go_builds_quietly(tmp_path, monkeypatch, capsys, version):
    fake_go(tmp_path, monkeypatch, version)
    assert build_module().check_go() == version
    assert "warning" not in capsys.readouterr().err


@pytest.mark.parametrize("version", ["go1.28.0", "go1.27rc1", "devel go1.28-abcdef Tue Jan 1 2030"])
def test_untested_go_is_warned_about(tmp_path, monkeypatch, capsys, version):
    fake_go(tmp_path, monkeypatch, version)
    assert build_module().check_go() == version
    err = capsys.readouterr().err
    assert f"warning: memview is tested with Go 1.26 and Go 1.27, not with {version}" in err


@pytest.mark.parametrize("version", ["go1.26.7", "go1.25.4", "go1.21"])
def test_go_older_than_go_mod_asks_is_refused(tmp_path, monkeypatch, version):
    fake_go(tmp_path, monkeypatch, version)
    with pytest.raises(SystemExit, match=rf"needs Go 1\.26\.8 or newer to build; `go` on PATH is {version}"):
        build_module().check_go()


def test_go_that_cannot_run_is_named(tmp_path, monkeypatch):
    fake_go(tmp_path, monkeypatch, "", rc=1, stderr="go: go.mod requires go >= 1.26.8 (running go 1.25.0)")
    with pytest.raises(SystemExit, match=r"`go env GOVERSION` failed: go: go.mod requires go >= 1\.26\.8"):
        build_module().check_go()
