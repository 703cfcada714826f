"""build.py's command line: every command has --help, unknown options and missing
values are refused with exit code 2, what follows `--` is passed on, and wheel, ext
and the PEP 517 config settings read the same options the same way."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def build_module():
    spec = importlib.util.spec_from_file_location("memview_build_cli", ROOT / "build.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


build = build_module()


@pytest.fixture(autouse=True)
def in_checkout(monkeypatch):
    """Relative directories (--with examples/sigproc) are the checkout's."""
    monkeypatch.chdir(ROOT)


def run_build(*args, cwd=ROOT):
    return subprocess.run([sys.executable, str(ROOT / "build.py"), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=60)


@pytest.mark.parametrize("command", sorted(build.COMMANDS))
def test_every_command_has_help(command):
    r = run_build(command, "--help")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"usage: build.py {command}")


@pytest.mark.parametrize("args, message", [
    (["wheel", "--bogus"], "unrecognized arguments: --bogus"),
    (["ext", "--wiht", "examples/sigproc"], "unrecognized arguments: --wiht"),
    (["wheel", "--with"], "argument --with: expected one argument"),
    (["wheel", "--name"], "argument --name: expected one argument"),
    (["wheel", "--with", "no/such/dir"], "'no/such/dir' is not a directory"),
    (["wheel", "--with", "examples/sigproc=not-a-name"], "NAME after '=' must be a Python identifier"),
    (["wheel", "--with", "examples/sigproc=class"], "NAME after '=' must be a Python identifier"),
    (["wheel", "--name=-x"], "is not a distribution name"),
    (["wheel", "--version", "1.2.x"], "is not a version"),
    (["wheel", "--arch", "riscv64"], "argument --arch: invalid choice: 'riscv64'"),
    (["wheel", "--cc", "clang"], "argument --cc: invalid choice: 'clang'"),
    (["pytest", "-q"], "unrecognized arguments: -q"),
    (["lint", "--", "x"], "takes no arguments after --"),
    (["gpu-check", "a.whl", "out", "extra"], "unrecognized arguments: extra"),
    (["wheel", "--with=examples/sigproc="], "NAME after '=' must be a Python identifier"),
    (["wheel", "--with=examples/sigproc", "x"], "unrecognized arguments: x"),
])
def test_unknown_options_and_missing_values_exit_2(args, message):
    r = run_build(*args)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert message in r.stderr and f"usage: build.py {args[0]}" in r.stderr


def test_no_or_unknown_command_exits_2():
    for args in ([], ["whee1"]):
        r = run_build(*args)
        assert r.returncode == 2 and "commands: demo, test, pytest" in r.stderr
    r = run_build("--help")
    assert r.returncode == 0 and "The one build entry of memview" in r.stdout


def test_arguments_after_double_dash_pass_through():
    ns = build.parse_command("pytest", ["--sanitize", "--", "-q", "--bogus", "tests/test_create.py", "--"])
    assert ns.sanitize and not ns.cgocheck2
    assert ns.args == ["-q", "--bogus", "tests/test_create.py", "--"]
    assert build.parse_command("test", []).args == []
    assert build.parse_command("bench", ["--", "--quick"]).args == ["--quick"]
    assert build.parse_command("docs", ["--", "--verbose"]).args == ["--verbose"]
    ns = build.parse_command("gpu-check", ["w.whl", "out"])
    assert (ns.wheel, ns.outdir) == ("w.whl", "out")
    ns = build.parse_command("gpu-check", [])
    assert (ns.wheel, ns.outdir) == (None, None)


def test_with_dir_and_import_name():
    d = ROOT / "examples" / "sigproc"
    ns = build.parse_command("wheel", ["--with", "examples/sigproc", f"--with={d}=sigproc2", "--with", f"{d}=_x"])
    assert ns.with_pkgs == [build.WithPackage(str(d), None), build.WithPackage(str(d), "sigproc2"),
                            build.WithPackage(str(d), "_x")]


@pytest.mark.parametrize("command", ["wheel", "ext"])
def test_wheel_and_ext_share_options(command):
    ns = build.parse_command(command, ["--with", "examples/sigproc", "--name", "sigproc_tools",
                                       "--version", "1.2.0", "--arch", "aarch64", "--cc", "zig"])
    assert (ns.name, ns.version, ns.arch, ns.cc) == ("sigproc_tools", "1.2.0", "aarch64", "zig")
    assert ns.with_pkgs == [build.WithPackage(str(ROOT / "examples" / "sigproc"))]


def test_compiler_defaults():
    assert build.parse_command("ext", []).cc == "system"  # ASan and the tests build with the system's
    assert build.parse_command("wheel", []).cc == ("zig" if sys.platform.startswith("linux") else "system")
    assert build.parse_command("wheel", []).arch is None


@pytest.mark.parametrize("given, normal", [
    ("1.2.0", "1.2.0"), ("v1.2", "1.2"), ("1.0RC1", "1.0rc1"), ("2.0-alpha.3", "2.0a3"), ("1.0.post", "1.0.post0"),
    ("1.0-5", "1.0.post5"), ("1.0.dev", "1.0.dev0"), ("1!2.0", "1!2.0"), ("01.002", "1.2"), ("1.0+Local-1", "1.0+local.1"),
])
def test_versions_are_normalised(given, normal):
    assert build.version_option(given) == normal


@pytest.mark.parametrize("name", ["sigproc", "sigproc_tools", "Sigproc.Tools-2", "a"])
def test_distribution_names(name):
    assert build.dist_name_option(name) == name


def test_config_settings_are_wheel_options():
    d = str(ROOT / "examples" / "sigproc")
    ns = build.parse_config_settings({"with": [d, f"{d}=sp"], "cc": "system", "name": "sp-tools", "version": "0.3"})
    assert ns.with_pkgs == [build.WithPackage(d), build.WithPackage(d, "sp")]
    assert (ns.cc, ns.name, ns.version, ns.arch) == ("system", "sp-tools", "0.3", None)
    assert build.parse_config_settings({"with": d}).with_pkgs == [build.WithPackage(d)]


@pytest.mark.parametrize("settings, message", [
    ({"wiht": "x"}, "unknown config setting 'wiht'"),
    ({"cc": "icc"}, "argument --cc: invalid choice: 'icc'"),
    ({"with": "no/such/dir"}, "is not a directory"),
])
def test_bad_config_settings_are_refused(settings, message, capsys):
    with pytest.raises(SystemExit) as e:
        build.parse_config_settings(settings)
    assert e.value.code == 2 and message in capsys.readouterr().err


def test_zig_is_a_build_requirement_unless_cc_system():
    reqs = build.get_requires_for_build_wheel({})
    assert "pybindgen==0.22.1" in reqs
    assert (build.ZIGLANG in reqs) == sys.platform.startswith("linux")
    assert build.ZIGLANG.startswith("ziglang==")
    assert build.get_requires_for_build_wheel({"cc": "system"}) == ["pybindgen==0.22.1"]


def test_python_m_build_hands_over_to_pypa_build():
    """In the checkout, `python -m build` finds build.py first: it runs PyPA's build
    where that is installed, and says to install it where it is not."""
    pypa = subprocess.run([sys.executable, "-c", "import importlib.util as u; print(u.find_spec('build') is not None)"],
                          cwd="/", capture_output=True, text=True).stdout.strip() == "True"
    r = subprocess.run([sys.executable, "-m", "build", "--version"], cwd=ROOT, capture_output=True, text=True,
                       timeout=60)
    if pypa:
        assert r.returncode == 0 and r.stdout.startswith("build "), (r.stdout, r.stderr)
    else:
        assert r.returncode == 1
        assert r.stderr.strip() == ("python -m build needs PyPA's build: pip install build "
                                    "(in this checkout, python3 build.py is memview's own build entry)")
