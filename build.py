#!/usr/bin/env python3
"""The one build entry of memview.

    python3 build.py demo        set up, build the extension, run the demo
    python3 build.py test        set up, build, run the Go tests and every pytest
    python3 build.py pytest      build and run only pytest (add --cgocheck2 for a
                                 GOEXPERIMENT=cgocheck2 build of the extension, or
                                 --sanitize for one whose C runs under ASan and UBSan)
    python3 build.py bench       set up, build, run benchmarks/
    python3 build.py wheel [--with DIR[=NAME]]... [--name NAME] [--version V]
                           [--arch x86_64|aarch64] [--cc zig|system]
                                 build an abi3 wheel into dist/; each --with DIR builds
                                 the Go package in DIR (any module: a replace directive
                                 may point it at this checkout) into the same extension,
                                 importable by its package name; linked by zig for
                                 glibc 2.17 (manylinux_2_17) unless --cc system;
                                 --arch aarch64 cross-builds for 64-bit Arm
    python3 build.py ext [same options as wheel]
                                 build the importable packages into .build/pkg/
                                 (with the system C compiler unless --cc zig)
    python3 build.py sdist       write the source distribution into dist/
    python3 build.py gpu-check [WHEEL] [OUTDIR]
                                 on a GPU machine without Go: install an abi3 wheel
                                 built elsewhere and run every GPU test and benchmark,
                                 writing results to OUTDIR (default $OUT or gpu-results/)
    python3 build.py lint        the C layer check (tools/cgraph.py), ruff, staticcheck
                                 and stubtest of the .pyi stubs against .build/pkg
    python3 build.py docs        build the documentation site (MkDocs, warnings are
                                 errors) into .build/site, in its own virtual
                                 environment .build/docs-venv (requirements-docs.txt);
                                 needs neither Go nor the built extension

Set-up is done here, on a fresh machine, every time it is needed: a virtual
environment in .build/venv (numpy, pytest, pybindgen from requirements-dev.txt),
gopy and goimports built from the versions pinned in go.mod, and the extension
built with gopy for the limited API of Python 3.11 (one abi3 .so for 3.11+).

The gopy part of the build — generation, the edits of gopy's output, the abi3
link, the Python layout — is gopyext.py, shared by memview alone and by every
--with build. The test, demo and bench builds add the Go packages of
examples/ (and the test build tests/gopkg, and memview's self-test hooks).

Every command takes --help; unknown options are refused (exit code 2), and what
follows `--` goes to pytest (pytest, test), the benchmarks (bench) or mkdocs (docs).

This file holds the PEP 517 hooks that memview_backend.py, the backend named in
pyproject.toml, exports, so that `pip install .` and `python -m build` build the
same wheel on any machine that has Go (config settings are wheel's options:
`-C with=DIR -C cc=system`). Run as `python -m build` in this checkout, it hands
over to PyPA's build.
"""
from __future__ import annotations

import os
import sys

if __name__ == "__main__" and __spec__ is not None and __spec__.name == "build":
    # `python -m build` in this checkout finds this file before PyPA's build: take the
    # checkout off sys.path and hand over to that, which builds through memview_backend.py.
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]
    import importlib.util
    import runpy
    if importlib.util.find_spec("build") is None:
        sys.exit("python -m build needs PyPA's build: pip install build "
                 "(in this checkout, python3 build.py is memview's own build entry)")
    runpy.run_module("build", run_name="__main__", alter_sys=True)
    sys.exit(0)

import argparse
import base64
import hashlib
import keyword
import re
import shutil
import subprocess
import sysconfig
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path
from typing import NamedTuple

if os.path.dirname(os.path.abspath(__file__)) not in [os.path.abspath(p or os.curdir) for p in sys.path]:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # loaded by path (memview_backend, tests)
import gopyext  # noqa: E402
from gopyext import log  # noqa: E402

ROOT = Path(__file__).resolve().parent
BUILD = ROOT / ".build"
VENV = BUILD / "venv"
TOOLS = BUILD / "bin"
NAME = "memview"
VERSION = "0.1.0"
EXAMPLES = ["examples/sigproc", "examples/rgbimage"]  # Go packages of the demo, bench and test builds
BENCH_WITH = ["benchmarks/callbench"]  # and of the bench build (bench_calls.py's package and floor)
TEST_WITH = EXAMPLES + ["tests/gopkg", "tests/gopkgs/tour", "tests/gopkgs/vmod/moments=vstats"]  # and of the test build
TEST_TAGS = ["memview_selftest"]  # the test build's self-test hooks (pyext/selftest.go)


def run(cmd: list, cwd: Path = ROOT, env: dict | None = None) -> None:
    gopyext.run(cmd, cwd, env)


def go_env(extra: dict | None = None) -> dict:
    env = dict(os.environ)
    env["PATH"] = f"{TOOLS}{os.pathsep}{env.get('PATH', '')}"
    env.setdefault("GOFLAGS", "-mod=mod")
    if extra:
        env.update(extra)
    return env


# ---------------------------------------------------------------- set-up


def venv_python() -> Path:
    return VENV / "bin" / "python"


def setup_venv() -> Path:
    """Create .build/venv with the pinned requirements; idempotent."""
    if sys.version_info < (3, 11):
        sys.exit("memview needs Python 3.11 or newer (the limited API it targets)")
    py = venv_python()
    req = ROOT / "requirements-dev.txt"
    stamp = VENV / ".requirements"
    if py.exists() and stamp.exists() and stamp.read_text() == req.read_text():
        return py
    if not py.exists():
        run([sys.executable, "-m", "venv", VENV])
    run([py, "-m", "pip", "install", "--disable-pip-version-check", "-q", "-r", req])
    stamp.write_text(req.read_text())
    return py


def go_version_required() -> str:
    """The Go version go.mod asks for (its go directive)."""
    m = re.search(r"^go (\S+)$", (ROOT / "go.mod").read_text(), re.M)
    return m.group(1) if m else "1.26"


def version_tuple(v: str) -> tuple:
    return tuple(int(x) if x.isdigit() else 0 for x in re.split(r"[.\-rc]", v)[:3])


# The Go releases memview is built and tested with: CI runs the whole suite
# under each (.ci/run), from go.mod's minimum on. Any other release builds
# with a warning; one older than go.mod's minimum is refused.
GO_TESTED = ("1.26", "1.27")

_go_version = None


def check_go() -> str:
    """The version of the go command the build runs (go1.27.3), checked: an
    error if Go is missing or older than go.mod asks, a warning (once) if it
    is a release memview has not been tested with."""
    global _go_version
    if _go_version:
        return _go_version
    need = go_version_required()
    if shutil.which("go") is None:
        sys.exit(f"memview needs Go {need} or newer (the go directive in go.mod) on PATH to build; "
                 "install it from Go's downloads page, or use a prebuilt memview wheel, which needs no Go "
                 "(a build also fetches gopy and its Go modules from the Go module proxy, and pybindgen "
                 "and ziglang from PyPI)")
    r = subprocess.run(["go", "env", "GOVERSION"], cwd=ROOT, capture_output=True, text=True)
    have = r.stdout.strip()
    if r.returncode != 0 or not have:
        sys.exit(f"memview needs Go {need} or newer to build; `go env GOVERSION` failed: "
                 f"{r.stderr.strip() or r.returncode}")
    m = re.fullmatch(r"go(\d+)\.(\d+)(?:\.(\d+))?", have)
    if m and version_tuple(have.removeprefix("go")) < version_tuple(need):
        sys.exit(f"memview needs Go {need} or newer to build; `go` on PATH is {have}: install a newer one "
                 f"from Go's downloads page (or run with GOTOOLCHAIN=go{GO_TESTED[-1]}.0, which fetches it "
                 "from the Go module proxy)")
    if not m or f"{m[1]}.{m[2]}" not in GO_TESTED:
        tested = " and ".join(f"Go {v}" for v in GO_TESTED)
        print(f"[build.py] warning: memview is tested with {tested}, not with {have}: the build goes on, "
              f"but if it or the tests fail, build with a tested release (GOTOOLCHAIN=go{GO_TESTED[-1]}.0 "
              "makes the go command fetch one) and report what failed", file=sys.stderr, flush=True)
    _go_version = have
    return have


def setup_tools() -> None:
    """Build gopy and goimports from the versions pinned in go.mod, and gopysig
    (tools/gopysig) from this checkout, with the Go that builds (each tool reads
    Go source with that release's go/types)."""
    have = check_go()
    TOOLS.mkdir(parents=True, exist_ok=True)
    env = go_env()
    stamp = TOOLS / ".go.sum"
    gosum = f"{have}\n" + (ROOT / "go.sum").read_text()
    if not (stamp.exists() and stamp.read_text() == gosum and (TOOLS / "gopy").exists()):
        run(["go", "build", "-o", TOOLS / "gopy", "github.com/go-python/gopy"], env=env)
        run(["go", "build", "-o", TOOLS / "goimports", "golang.org/x/tools/cmd/goimports"], env=env)
        stamp.write_text(gosum)
    sig_stamp = TOOLS / ".gopysig"
    sig = gosum + "".join(f.read_text() for f in sorted((ROOT / "tools" / "gopysig").glob("*.go")))
    if not (sig_stamp.exists() and sig_stamp.read_text() == sig and (TOOLS / "gopysig").exists()):
        run(["go", "build", "-o", TOOLS / "gopysig", "./tools/gopysig"], env=env)
        sig_stamp.write_text(sig)


# ---------------------------------------------------------------- compilers


# Wheels are built with zig as cgo's C compiler and linker (`--cc zig`, the default of
# `wheel` and the PEP 517 hooks on Linux), for glibc 2.17 (manylinux2014): zig links
# against a glibc of the version its target names, so the extension needs nothing newer,
# whatever the build machine's glibc. ext, pytest, test and --sanitize keep the system
# compiler (ASan needs gcc's runtime). zig comes from PyPI (ziglang), pinned here.
ZIGLANG = "ziglang==0.17.1"
GLIBC_FLOOR = (2, 17)
# --arch: the machine a build is for, as Python's platform tags name it, and Go's and
# zig's names for it
ARCHES = {"x86_64": ("amd64", "x86_64-linux-gnu"), "aarch64": ("arm64", "aarch64-linux-gnu")}


def host_arch() -> str:
    import platform
    m = platform.machine()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(m.lower(), m)


def default_cc() -> str:
    """The C compiler wheels are built with where --cc is not given."""
    return "zig" if sys.platform.startswith("linux") else "system"


def setup_zig(python: Path) -> None:
    """Make sure python runs zig (python -m ziglang): installed into .build/venv where
    python is that venv's, asked for by get_requires_for_build_wheel under PEP 517."""
    if subprocess.run([python, "-c", "import ziglang"], capture_output=True).returncode == 0:
        return
    if Path(python) == venv_python():
        run([python, "-m", "pip", "install", "--disable-pip-version-check", "-q", ZIGLANG])
        return
    sys.exit(f"[build.py] --cc zig needs zig from PyPI in {python}: pip install {ZIGLANG} "
             "(or build with the system C compiler: --cc system, -C cc=system)")


# After the package's flags (-Wall -Wextra -Werror, pyext/pyext.go): -Werror stays
# gcc's (zig's clang warns where gcc does not; what it says shows in the build's
# output). Two of its warnings are not memview's to fix: cgo's _cgo_export.c includes
# <stdlib.h> before the preambles, which include Python.h first, and zig's glibc
# headers define _POSIX_C_SOURCE as 202405L where pyconfig.h then says 200809L; and
# the {NULL} that ends a CPython method or getset table is a missing initializer.
ZIG_WARNINGS = "-Wno-error -Wno-macro-redefined -Wno-missing-field-initializers"


def zig_wrapper(python: Path, arch: str) -> Path:
    """A C compiler command for cgo: zig cc for arch's Linux with glibc GLIBC_FLOOR."""
    target = f"{ARCHES[arch][1]}.{GLIBC_FLOOR[0]}.{GLIBC_FLOOR[1]}"
    setup_zig(python)
    wrapper = BUILD / "zig" / f"cc-{target}"
    wrapper.parent.mkdir(parents=True, exist_ok=True)
    text = f"#!/bin/sh\nexec '{python}' -m ziglang cc -target {target} \"$@\" {ZIG_WARNINGS}\n"
    if not wrapper.exists() or wrapper.read_text() != text:
        wrapper.write_text(text)
        wrapper.chmod(0o755)
    return wrapper


# The defines of an x86-64 pyconfig.h that are not aarch64's: the rest that a limited-API
# build reads (sizes, alignments, byte order, float formats) is the same for both
# (.ci/run compares the result with Debian's arm64 pyconfig.h).
X86_ONLY_DEFINES = ("HAVE_GCC_ASM_FOR_X64", "HAVE_GCC_ASM_FOR_X87")


def cross_include(include: Path, arch: str) -> Path:
    """Python's headers for a cross build from x86-64 Linux to arch: a copy of the
    build Python's include directory whose pyconfig.h drops X86_ONLY_DEFINES."""
    if (host_arch(), arch) != ("x86_64", "aarch64"):
        sys.exit(f"[build.py] cross builds go from x86_64 to aarch64, not from {host_arch()} to {arch}")
    text = (include / "pyconfig.h").read_text()
    for need in ("#define SIZEOF_VOID_P 8", "#define SIZEOF_LONG 8", "#define SIZEOF_SIZE_T 8"):
        if need not in text:
            sys.exit(f"[build.py] {include}/pyconfig.h is not an LP64 x86-64 one ({need!r} missing)")
    out = BUILD / f"python-include-{arch}"
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(include, out)
    lines = [f"/* {line} (x86-64 only: build.py's cross build to {arch}) */"
             if any(line.startswith(f"#define {d} ") or line == f"#define {d}" for d in X86_ONLY_DEFINES) else line
             for line in text.splitlines()]
    (out / "pyconfig.h").write_text("\n".join(lines) + "\n")
    return out


# ---------------------------------------------------------------- extension


def build_ext(python: Path, out: Path, goexperiment: str | None = None, with_pkgs: list = (),
              tags: list = (), sanitize: bool = False, cc: str = "system", arch: str | None = None) -> Path:
    """Build the extension for python, with the Go packages of with_pkgs (WithPackage),
    and lay out the importable packages in out (gopyext.build); returns out/memview.
    sanitize builds the C (memview's and gopy's) with ASan and UBSan; cc "zig" builds
    with zig for glibc GLIBC_FLOOR; arch (default: this machine's) cross-builds."""
    arch = arch or host_arch()
    if arch != host_arch() and cc != "zig":
        sys.exit(f"[build.py] --arch {arch} is a cross build: it needs --cc zig")
    if sanitize and cc != "system":
        sys.exit("[build.py] --sanitize builds with the system compiler (gcc's ASan), not with zig")
    # pyext's Go bridge is generated from its //export functions (go generate ./pyext)
    if subprocess.run([sys.executable, ROOT / "tools" / "gobridge.py", "--check"]).returncode != 0:
        sys.exit("[build.py] pyext's Go bridge is out of date: run go generate ./pyext "
                 "(python3 tools/gobridge.py) and commit the result")
    setup_tools()
    try:
        env = gopyext.cgo_env(python, go_env(), goexperiment)
        if sanitize:
            for k in ("CGO_CFLAGS", "CGO_LDFLAGS"):
                env[k] = f"{env[k]} {SANITIZE}".strip()
        if arch != host_arch():
            include = gopyext.python_config(python)["include"]
            env["CGO_CFLAGS"] = env["CGO_CFLAGS"].replace(f"-I{include}", f"-I{cross_include(Path(include), arch)}")
        if cc == "zig":
            env["CC"] = str(zig_wrapper(python, arch))
            env["GOARCH"] = ARCHES[arch][0]
            env["GOOS"] = "linux"
        return gopyext.build(python, out, root=ROOT, tools=TOOLS, env=env, facade=ROOT / "python" / NAME,
                             with_dirs=[f"{p.dir}={p.name}" if p.name else p.dir for p in with_pkgs], tags=tags)
    except gopyext.BuildError as e:
        sys.exit(f"[build.py] {e}")


# ---------------------------------------------------------------- command line


class WithPackage(NamedTuple):
    """A --with DIR[=NAME] option: a Go package's directory (absolute) and the import
    name asked for (None: the package's own name)."""
    dir: str
    name: str | None = None


def with_option(value: str) -> WithPackage:
    """Parse --with DIR[=NAME]: NAME, after the last '=', is a Python identifier."""
    d, sep, name = value.rpartition("=")
    if not sep:
        d, name = value, None
    elif not name.isidentifier() or keyword.iskeyword(name):
        raise argparse.ArgumentTypeError(f"{value!r}: NAME after '=' must be a Python identifier (--with DIR[=NAME])")
    if not d:
        raise argparse.ArgumentTypeError(f"{value!r}: no directory (--with DIR[=NAME])")
    if not Path(d).is_dir():
        raise argparse.ArgumentTypeError(f"{d!r} is not a directory (--with DIR[=NAME])")
    return WithPackage(str(Path(d).resolve()), name)


# PEP 508's distribution names; PEP 440's versions (the pattern of PyPA's packaging)
DIST_NAME = re.compile(r"^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$", re.I)
VERSION_PATTERN = re.compile(r"""^\s*v?
    (?:(?P<epoch>[0-9]+)!)?(?P<release>[0-9]+(?:\.[0-9]+)*)
    (?P<pre>[-_.]?(?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?P<pre_n>[0-9]+)?)?
    (?P<post>(?:-(?P<post_n1>[0-9]+))|(?:[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>[0-9]+)?))?
    (?P<dev>[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>[0-9]+)?)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$""", re.I | re.X)


def dist_name_option(value: str) -> str:
    if not DIST_NAME.match(value):
        raise argparse.ArgumentTypeError(f"{value!r} is not a distribution name (PEP 508: letters, digits, "
                                         "'.', '-' and '_', starting and ending with a letter or digit)")
    return value


def version_option(value: str) -> str:
    """A PEP 440 version, in its normal form (1.0RC1 -> 1.0rc1)."""
    m = VERSION_PATTERN.match(value)
    if not m:
        raise argparse.ArgumentTypeError(f"{value!r} is not a version (PEP 440, such as 1.2.0 or 2.0rc1)")
    pre = {"alpha": "a", "beta": "b", "c": "rc", "pre": "rc", "preview": "rc"}
    out = (f"{int(m['epoch'])}!" if m["epoch"] else "") + ".".join(str(int(x)) for x in m["release"].split("."))
    if m["pre"]:
        out += pre.get(m["pre_l"].lower(), m["pre_l"].lower()) + str(int(m["pre_n"] or 0))
    if m["post"]:
        out += f".post{int(m['post_n1'] or m['post_n2'] or 0)}"
    if m["dev"]:
        out += f".dev{int(m['dev_n'] or 0)}"
    if m["local"]:
        out += "+" + re.sub(r"[-_.]", ".", m["local"].lower())
    return out


def add_build_options(p: argparse.ArgumentParser, cc_default: str) -> None:
    """The options of wheel and ext (and, as config settings, of the PEP 517 hooks)."""
    p.add_argument("--with", dest="with_pkgs", metavar="DIR[=NAME]", action="append", type=with_option, default=[],
                   help="build the Go package in DIR into the same extension, importable as NAME "
                        "(default: its package name); may repeat")
    p.add_argument("--name", type=dist_name_option, help="the distribution's name (default: memview)")
    p.add_argument("--version", type=version_option, help="the distribution's version (PEP 440)")
    p.add_argument("--arch", choices=sorted(ARCHES), default=None,
                   help="the machine to build for (default: this one's); another needs --cc zig")
    p.add_argument("--cc", choices=["zig", "system"], default=cc_default,
                   help=f"cgo's C compiler: zig (for glibc {GLIBC_FLOOR[0]}.{GLIBC_FLOOR[1]}, manylinux2014) "
                        f"or the system's (default: {cc_default})")


# command: (summary, takes arguments after --, set-up of its parser)
def _no_options(p):
    pass


def _pytest_options(p):
    p.add_argument("--cgocheck2", action="store_true", help="a GOEXPERIMENT=cgocheck2 build of the extension")
    p.add_argument("--sanitize", action="store_true", help="a build whose C runs under ASan and UBSan")
    p.add_argument("--arch", choices=sorted(ARCHES), default=None,
                   help="cross-build the test build (with zig) for this machine and run pytest with --python")
    p.add_argument("--python", metavar="PYTHON",
                   help="the interpreter that runs pytest (default: .build/venv's); with --arch, one for that "
                        "machine (tools/aarch64-root.sh makes an emulated one), with numpy and pytest on "
                        "its path or PYTHONPATH")


def _gpu_check_options(p):
    p.add_argument("wheel", nargs="?", help="the abi3 wheel (default: the newest in dist/)")
    p.add_argument("outdir", nargs="?", help="where results go (default: $OUT or gpu-results/)")


COMMAND_LINE = {
    "demo": ("set up, build the extension, run the demo", False, _no_options),
    "test": ("set up, build, run the Go tests and every pytest (ARGS after -- go to pytest)", True, _no_options),
    "pytest": ("build the test build and run pytest (ARGS after -- go to pytest)", True, _pytest_options),
    "gotest": ("the Go tests, with go vet", False, _no_options),
    "bench": ("set up, build, run benchmarks/ (ARGS after -- go to each script)", True, _no_options),
    "wheel": ("build an abi3 wheel into dist/", False, lambda p: add_build_options(p, default_cc())),
    "ext": ("build the importable packages into .build/pkg/", False, lambda p: add_build_options(p, "system")),
    "sdist": ("write the source distribution into dist/", False, _no_options),
    "gpu-check": ("on a GPU machine without Go: install a wheel, run the GPU tests and benchmarks",
                  False, _gpu_check_options),
    "docs": ("build the documentation site into .build/site (ARGS after -- go to mkdocs build)", True, _no_options),
    "lint": ("the C layer check, ruff, staticcheck and stubtest", False, _no_options),
}


def command_parser(command: str) -> argparse.ArgumentParser:
    summary, passthrough, options = COMMAND_LINE[command]
    p = argparse.ArgumentParser(prog=f"build.py {command}", description=summary, allow_abbrev=False,
                                usage=f"%(prog)s [options]{' [-- ARGS...]' if passthrough else ''}")
    options(p)
    if command == "gpu-check":
        p.usage = "%(prog)s [WHEEL] [OUTDIR]"
    return p


def parse_command(command: str, argv: list[str]) -> argparse.Namespace:
    """Parse a command's options; unknown ones and missing values exit with code 2.
    What follows a first `--` is kept, as ns.args, for commands that pass it on."""
    p = command_parser(command)
    rest: list[str] = []
    if "--" in argv:
        i = argv.index("--")
        argv, rest = argv[:i], argv[i + 1:]
        if not COMMAND_LINE[command][1]:
            p.error("takes no arguments after --")
    ns = p.parse_args(argv)
    ns.args = rest
    return ns


# config settings of the PEP 517 hooks: `pip install . -C with=DIR -C cc=system` is
# `build.py wheel --with DIR --cc system`
CONFIG_KEYS = ("with", "name", "version", "arch", "cc")


def parse_config_settings(config_settings: dict | None, command: str = "wheel") -> argparse.Namespace:
    argv = []
    for key, value in (config_settings or {}).items():
        if key not in CONFIG_KEYS:
            command_parser(command).error(f"unknown config setting {key!r} (memview's are "
                                          f"{', '.join(CONFIG_KEYS)})")
        for v in [value] if isinstance(value, str) else list(value):
            argv.append(f"--{key}={v}")
    return parse_command(command, argv)


# ---------------------------------------------------------------- wheel / PEP 517


def glibc_needed(pkg: Path) -> tuple[tuple, list[str]]:
    """The newest glibc a shared object in pkg needs (the versions it needs are named
    GLIBC_x.y in its dynamic string table), and the files that need it."""
    newest, files = (0, 0), []
    for so in sorted(pkg.rglob("*.so")):
        found = {tuple(int(p) for p in m.group(1).split(b"."))
                 for m in re.finditer(rb"GLIBC_(\d+\.\d+(?:\.\d+)?)\x00", so.read_bytes())}
        v = max(found, default=(0, 0))[:2]
        if v > newest:
            newest, files = v, [so.name]
        elif v == newest and v > (0, 0):
            files.append(so.name)
    return newest, files


def glibc_symbols(so: Path, version: tuple) -> list[str]:
    """The dynamic symbols of so versioned GLIBC_<version> (objdump -T), to name them."""
    r = subprocess.run(["objdump", "-T", so], capture_output=True, text=True)
    v = "GLIBC_" + ".".join(map(str, version))
    return sorted({line.split()[-1] for line in r.stdout.splitlines() if f"{v} " in line or f"({v})" in line})


def platform_tag(pkg: Path, arch: str, cc: str) -> str:
    """The wheel's platform tag. On Linux: manylinux_X_Y_<arch>, with X.Y the newest glibc
    the extension needs (its GLIBC_ symbol versions) and at least 2.17; a zig build
    must need no more than zig's target, and a symbol that forces more is named."""
    plat = sysconfig.get_platform()
    if not plat.startswith("linux-"):
        return plat.replace("-", "_").replace(".", "_")
    newest, files = glibc_needed(pkg)
    if cc == "zig" and newest > GLIBC_FLOOR:
        syms = [s for f in files for s in glibc_symbols(next(pkg.rglob(f)), newest)]
        sys.exit(f"[build.py] {', '.join(files)} built with zig for glibc {GLIBC_FLOOR[0]}.{GLIBC_FLOOR[1]} "
                 f"needs glibc {newest[0]}.{newest[1]} ({', '.join(syms) or 'symbols objdump did not name'})")
    glibc = max(newest, GLIBC_FLOOR)
    return f"manylinux_{glibc[0]}_{glibc[1]}_{arch}"


def _record_line(arcname: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


class Distribution(NamedTuple):
    """What a wheel is published as: its name and version, the [project] table its
    metadata comes from, and the directory that table's paths are relative to."""
    name: str
    version: str
    project: dict
    base: Path

    @property
    def file_name(self) -> str:
        """The name in file names (sigproc_tools), as wheels spell it."""
        return re.sub(r"[-_.]+", "_", self.name).lower()


def memview_project() -> dict:
    import tomllib
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def distribution(ns: argparse.Namespace | None = None) -> Distribution:
    """memview's distribution, or a Go developer's: NAME and VERSION from --name and
    --version, else from the first --with DIR with a pyproject.toml that has a
    [project] table, whose metadata the wheel then carries (paths relative to DIR)."""
    import tomllib
    own = memview_project()
    project, base = own, ROOT
    # a Go developer's project built by memview_backend (getattr(ns, "project")) first
    dirs = [getattr(ns, "project", None)] + [pkg.dir for pkg in getattr(ns, "with_pkgs", None) or []]
    for d in (d for d in dirs if d):
        f = Path(d) / "pyproject.toml"
        if f.is_file() and "project" in (t := tomllib.loads(f.read_text())):
            project, base = t["project"], Path(d)
            break
    name = getattr(ns, "name", None) or (project.get("name") if project is not own else None) or NAME
    version = getattr(ns, "version", None) or (project.get("version") if project is not own else None) or VERSION
    try:
        name, version = dist_name_option(name), version_option(str(version))
    except argparse.ArgumentTypeError as e:
        sys.exit(f"[build.py] {base / 'pyproject.toml'}: {e}")
    if project is own and name != NAME:  # a name of its own, and no [project] of its own
        names = ", ".join(Path(p.dir).name for p in ns.with_pkgs) or NAME
        project = {"description": f"Go packages built with memview ({names})",
                   "requires-python": own["requires-python"]}
    elif project is not own:  # memview's Python floor holds too
        theirs = project.get("requires-python")
        same = theirs is None or theirs.replace(" ", "") == own["requires-python"].replace(" ", "")
        project = dict(project, **{"requires-python": own["requires-python"] + ("" if same else f", {theirs}")})
    return Distribution(name, version, project, base)


def wheel_metadata(dist: Distribution | None = None) -> str:
    """The wheel's METADATA (core metadata 2.4), from a [project] table (memview's
    pyproject.toml's, or a Go developer's): summary, Python requirement,
    dependencies, license expression and files, keywords, classifiers, project
    URLs, extras and the README as the long description."""
    dist = dist or distribution()
    project = dist.project
    lines = ["Metadata-Version: 2.4", f"Name: {re.sub(r'[-_.]+', '-', dist.name).lower()}",
             f"Version: {dist.version}"]
    if project.get("description"):
        lines.append(f"Summary: {project['description']}")
    if project.get("requires-python"):
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Requires-Dist: {r}" for r in project.get("dependencies", [])]
    lic = project.get("license", {})
    if isinstance(lic, str):
        lines.append(f"License-Expression: {lic}")
    elif isinstance(lic, dict) and "text" in lic:
        lines.append(f"License: {lic['text']}")
    lines += [f"License-File: {f}" for f in project.get("license-files", [])]
    names = [a["name"] for a in project.get("authors", []) if "name" in a]
    if names:
        lines.append("Author: " + ", ".join(names))
    if project.get("keywords"):
        lines.append("Keywords: " + ",".join(project["keywords"]))
    lines += [f"Classifier: {c}" for c in project.get("classifiers", [])]
    lines += [f"Project-URL: {k}, {v}" for k, v in project.get("urls", {}).items()]
    for extra, reqs in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {r}; extra == "{extra}"' for r in reqs]
    readme = project.get("readme")
    if isinstance(readme, dict):
        kind = readme.get("content-type", "text/markdown")
        text = readme["text"] if "text" in readme else (dist.base / readme["file"]).read_text()
    elif readme:
        kind = "text/x-rst" if readme.endswith(".rst") else "text/markdown" if readme.endswith(".md") else "text/plain"
        text = (dist.base / readme).read_text()
    if readme:
        lines.append(f"Description-Content-Type: {kind}")
        return "\n".join(lines) + "\n\n" + text
    return "\n".join(lines) + "\n"


def license_files(dist: Distribution | None = None) -> list[str]:
    """The [project] table's license-files, which the wheel holds under .dist-info/licenses/."""
    return (dist or distribution()).project.get("license-files", [])


def write_wheel(pkg: Path, dist: Path, arch: str | None = None, cc: str = "system",
                published: Distribution | None = None) -> Path:
    """Pack the assembled package (and the Go packages built with it, beside
    it) as cp311-abi3 wheel of the distribution published (default: memview),
    tagged for the glibc its extension needs."""
    published = published or distribution()
    tag = f"cp311-abi3-{platform_tag(pkg, arch or host_arch(), cc)}"
    dist.mkdir(parents=True, exist_ok=True)
    whl = dist / f"{published.file_name}-{published.version}-{tag}.whl"
    info = f"{published.file_name}-{published.version}.dist-info"
    metadata = wheel_metadata(published)
    wheel = f"Wheel-Version: 1.0\nGenerator: memview build.py\nRoot-Is-Purelib: false\nTag: {tag}\n"
    records = []
    with zipfile.ZipFile(whl, "w", zipfile.ZIP_DEFLATED) as zf:
        tops = [pkg] + sorted(p for p in pkg.parent.iterdir() if p.is_dir() and p not in (pkg, pkg.parent / "gen"))
        for path in sorted(f for top in tops for f in top.rglob("*")):
            if path.is_dir() or "__pycache__" in path.parts:
                continue
            arc = path.relative_to(pkg.parent).as_posix()
            data = path.read_bytes()
            zf.writestr(arc, data)
            records.append(_record_line(arc, data))
        # the marker `import memview` reads to tell that two distributions installed it
        arc = f"{NAME}/_dist-{re.sub(r'[-_.]+', '-', published.name).lower()}.txt"
        data = f"{published.name} {published.version}\n".encode()
        zf.writestr(arc, data)
        records.append(_record_line(arc, data))
        if published.name == NAME:
            # memview's own wheel carries its sdist and the backend that builds a Go
            # developer's project with it (memview_backend.py: requires = ["memview"])
            with tempfile.TemporaryDirectory() as tmp:
                sdist = write_sdist(Path(tmp))
                for arc, data in ((f"{NAME}/_source/{sdist.name}", sdist.read_bytes()),
                                  ("memview_backend.py", (ROOT / "memview_backend.py").read_bytes())):
                    zf.writestr(arc, data)
                    records.append(_record_line(arc, data))
        for name in license_files(published):
            arc = f"{info}/licenses/{name}"
            data = (published.base / name).read_bytes()
            zf.writestr(arc, data)
            records.append(_record_line(arc, data))
        for name, text in (("METADATA", metadata), ("WHEEL", wheel)):
            arc = f"{info}/{name}"
            zf.writestr(arc, text)
            records.append(_record_line(arc, text.encode()))
        records.append(f"{info}/RECORD,,")
        zf.writestr(f"{info}/RECORD", "\n".join(records) + "\n")
    log(f"wrote {whl}")
    return whl


# The source distribution holds the tracked files a build reads, and nothing else:
# these files, and under these folders every file but Go tests and test data.
SDIST_FILES = ("build.py", "memview_backend.py", "gopyext.py", "gopyfast.py", "pyproject.toml", "go.mod",
               "go.sum", "LICENSE", "README.md", "requirements-dev.txt", "tools/gobridge.py", "tools/tools.go")
SDIST_DIRS = ("memview", "cuda", "pyext", "python/memview", "tools/gopysig")


def in_sdist(rel: str) -> bool:
    parts = rel.split("/")
    if rel in SDIST_FILES:
        return True
    return (any(rel.startswith(d + "/") for d in SDIST_DIRS) and "testdata" not in parts
            and "__pycache__" not in parts and not rel.endswith(("_test.go", ".pyc")))


def sdist_files() -> list[str]:
    """The files of the sdist, relative to ROOT: the tracked ones (git ls-files) in a
    checkout; in an unpacked sdist, which has no git, those it holds."""
    r = None
    if (ROOT / ".git").exists() and shutil.which("git"):
        r = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True)
    if r is not None and r.returncode == 0:
        files = r.stdout.decode().split("\0")
    else:
        files = [p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*") if p.is_file()]
    return sorted(f for f in files if f and in_sdist(f) and (ROOT / f).is_file())


def write_sdist(dist: Path) -> Path:
    """Write dist/memview-VERSION.tar.gz: PKG-INFO (the wheel's core metadata) and
    sdist_files() under memview-VERSION/."""
    base = f"{NAME}-{VERSION}"
    dist.mkdir(parents=True, exist_ok=True)
    out = dist / f"{base}.tar.gz"
    mtime = int(os.environ.get("SOURCE_DATE_EPOCH", "0")) or None

    def add(tf, arc, data, mode):
        info = tarfile.TarInfo(f"{base}/{arc}")
        info.size, info.mode = len(data), mode
        info.mtime = mtime if mtime is not None else int(time.time())
        import io
        tf.addfile(info, io.BytesIO(data))

    with tarfile.open(out, "w:gz", format=tarfile.PAX_FORMAT) as tf:
        add(tf, "PKG-INFO", wheel_metadata().encode(), 0o644)
        for rel in sdist_files():
            path = ROOT / rel
            add(tf, rel, path.read_bytes(), 0o755 if os.access(path, os.X_OK) else 0o644)
    log(f"wrote {out}")
    return out


def get_requires_for_build_sdist(config_settings=None):
    """PEP 517: writing the sdist needs nothing."""
    return []


def build_sdist(sdist_directory, config_settings=None):
    """PEP 517: the source distribution (write_sdist)."""
    if config_settings:
        parse_command("sdist", [f"--{k}" for k in config_settings])  # refused: sdist takes no settings
    return write_sdist(Path(sdist_directory)).name


def get_requires_for_build_wheel(config_settings=None):
    """PEP 517: the build needs pybindgen (gopy's C generator), and zig (PyPI's
    ziglang) unless config setting cc is "system"."""
    ns = parse_config_settings(config_settings)
    return ["pybindgen==0.22.1"] + ([ZIGLANG] if ns.cc == "zig" else [])


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """PEP 517: build the extension with this interpreter and pack a wheel. The
    config settings are wheel's options: with (one directory or a list), name,
    version, arch and cc (parse_config_settings)."""
    ns = parse_config_settings(config_settings)
    published = distribution(ns)
    out = BUILD / ("pep517" if ns.arch in (None, host_arch()) else f"pep517-{ns.arch}")
    pkg = build_ext(Path(sys.executable), out, with_pkgs=ns.with_pkgs, cc=ns.cc, arch=ns.arch)
    return write_wheel(pkg, Path(wheel_directory), arch=ns.arch, cc=ns.cc, published=published).name


# ---------------------------------------------------------------- commands


def cmd_ext(ns):
    setup_venv()
    out = BUILD / ("pkg" if ns.arch in (None, host_arch()) else f"pkg-{ns.arch}")
    return build_ext(venv_python(), out, with_pkgs=ns.with_pkgs, cc=ns.cc, arch=ns.arch)


def examples_ext() -> Path:
    """memview with the Go packages of examples/ (the demo and the benchmarks use them)."""
    setup_venv()
    return build_ext(venv_python(), BUILD / "examples",
                     with_pkgs=[WithPackage(str(ROOT / d)) for d in EXAMPLES + BENCH_WITH])


# The sanitizer build (build.py pytest --sanitize). Python is not built with ASan, so
# the runtime is preloaded; leaks are not reported, as Go and CPython keep memory
# until exit by design; a UBSan finding stops the test run.
SANITIZE = "-fsanitize=address,undefined -fno-omit-frame-pointer"


def sanitizer_env() -> dict:
    libasan = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    if not os.path.isabs(libasan):
        sys.exit("[build.py] --sanitize needs gcc's libasan (apt-get install gcc)")
    # pytest captures a test's stderr, and an abort loses it: reports go to files too
    log = BUILD / "sanitize" / "report"
    return {"LD_PRELOAD": libasan, "ASAN_OPTIONS": f"detect_leaks=0:abort_on_error=1:log_path={log}",
            "UBSAN_OPTIONS": f"halt_on_error=1:print_stacktrace=1:log_path={log}"}


def pytest(pkgdir: Path, args: list[str], extra_env: dict | None = None, python: Path | None = None) -> None:
    """Run pytest on tests/ and examples/ (or on the paths given in args) against pkgdir
    (first on PYTHONPATH), with python (default: .build/venv's)."""
    path = os.pathsep.join([str(pkgdir.parent)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []))
    env = dict(os.environ, PYTHONPATH=path, **(extra_env or {}))
    targets = [] if any(not a.startswith("-") for a in args) else [ROOT / "tests", ROOT / "examples"]
    run([python or venv_python(), "-m", "pytest", "-q", "-p", "no:cacheprovider", *args, *targets], env=env)


def cmd_pytest(ns):
    """The test build: memview with its self-test hooks and the Go packages of
    examples/ and tests/gopkg (optionally a GOEXPERIMENT=cgocheck2 build)."""
    setup_venv()
    out, goexperiment = BUILD / "test", None
    arch = getattr(ns, "arch", None)
    cross = arch not in (None, host_arch())
    if cross and not ns.python:
        sys.exit(f"[build.py] pytest --arch {arch} needs --python: an interpreter for {arch} "
                 "(tools/aarch64-root.sh makes one that runs under qemu)")
    if cross:
        out = BUILD / f"test-{arch}"
    if getattr(ns, "cgocheck2", False):
        out, goexperiment = BUILD / "cgocheck2", "cgocheck2"
    sanitize = getattr(ns, "sanitize", False)
    if sanitize:
        out = BUILD / "sanitize"
        os.environ.setdefault("MEMVIEW_LDFLAGS", " ")  # keep the symbols a report names
    pkg = build_ext(venv_python(), out, goexperiment=goexperiment,
                    with_pkgs=[with_option(str(ROOT / d)) for d in TEST_WITH], tags=TEST_TAGS, sanitize=sanitize,
                    cc="zig" if cross else "system", arch=arch)
    python = getattr(ns, "python", None)
    pytest(pkg, ns.args, sanitizer_env() if sanitize else None, python=Path(python) if python else None)


def cmd_gotest(ns):
    check_go()
    # The core must build without cgo (so must pyext/pymsg, the wording of messages);
    # cuda/ loads the driver through cgo (dlopen), and its no-cgo twin lets its
    # planners and kernels be tested without cgo too.
    nocgo = go_env({"CGO_ENABLED": "0"})
    run(["go", "vet", "./memview/...", "./cuda/...", "./tools/..."], env=nocgo)
    run(["go", "test", "-count=1", "./memview/...", "./cuda/...", "./pyext/pymsg", "./tools/gopysig"],
        env=nocgo)
    cgo = go_env({"CGO_ENABLED": "1"})
    run(["go", "vet", "./cuda/..."], env=cgo)
    run(["go", "test", "-count=1", "./cuda/...", "./pyext/errkind"], env=cgo)
    # The extension's Go (vetted with the Python headers; tested through pytest), the
    # build tool, the test build's Go package and the examples, each in its module.
    setup_venv()
    run(["go", "vet", "./pyext/...", "./tools/...", "./tests/gopkg", "./benchmarks/callbench"],
        env=gopyext.cgo_env(venv_python(), cgo))
    run(["go", "vet", "-tags=memview_selftest", "./pyext"], env=gopyext.cgo_env(venv_python(), cgo))
    for d in EXAMPLES:
        run(["go", "vet", "./..."], cwd=ROOT / d, env=cgo)


def cmd_test(ns):
    cmd_gotest(ns)
    cmd_pytest(ns)


def cmd_demo(ns):
    pkg = examples_ext()
    env = dict(os.environ, PYTHONPATH=str(pkg.parent))
    run([venv_python(), ROOT / "examples" / "demo.py"], env=env)


def cmd_bench(ns):
    pkg = examples_ext()
    env = dict(os.environ, PYTHONPATH=str(pkg.parent))
    for script in sorted((ROOT / "benchmarks").glob("bench_*.py")):
        # a header per script: tools/benchplot.py reads saved output by these
        print(f"### benchmarks/{script.name}", flush=True)
        run([venv_python(), script, *ns.args], env=env)


def cmd_wheel(ns):
    published = distribution(ns)
    setup_venv()
    out = BUILD / ("wheel" if ns.arch in (None, host_arch()) else f"wheel-{ns.arch}")
    pkg = build_ext(venv_python(), out, with_pkgs=ns.with_pkgs, cc=ns.cc, arch=ns.arch)
    write_wheel(pkg, ROOT / "dist", arch=ns.arch, cc=ns.cc, published=published)


def cmd_sdist(ns):
    write_sdist(ROOT / "dist")


def cmd_gpu_check(ns):
    """Install a prebuilt wheel (no Go needed) and run every GPU test (marker `gpu`,
    across the whole suite) and the GPU benchmarks, each step with a time limit so
    that the whole check ends within 8 minutes."""
    wheels = sorted((ROOT / "dist").glob(f"{NAME}-*-abi3-*.whl"))
    wheel = Path(ns.wheel) if ns.wheel else (wheels[-1] if wheels else None)
    if wheel is None or not wheel.exists():
        sys.exit("gpu-check: no wheel given and none in dist/ (build one with `python3 build.py wheel`)")
    out = Path(ns.outdir or os.environ.get("OUT") or ROOT / "gpu-results")
    out.mkdir(parents=True, exist_ok=True)
    import platform
    import tempfile
    import time
    site = Path(tempfile.mkdtemp(prefix="memview-site-"))
    run([sys.executable, "-m", "pip", "install", "--no-deps", "--disable-pip-version-check", "-q",
         "--target", site, wheel])
    env = dict(os.environ, PYTHONPATH=str(site), PYTHONUNBUFFERED="1")

    def step(cmd, log, limit):
        start = time.monotonic()
        with open(out / log, "w") as f:
            try:
                rc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=f, stderr=subprocess.STDOUT,
                                    timeout=limit).returncode
            except subprocess.TimeoutExpired:
                f.write(f"\n[gpu-check] stopped after {limit} s\n")
                rc = "timeout"
        return rc, time.monotonic() - start

    rc, t_tests = step([sys.executable, "-m", "pytest", "-q", "-rs", "-m", "gpu", "-p", "no:cacheprovider",
                        f"--junitxml={out / 'pytest.xml'}", "tests"], "pytest.txt", 330)
    brc, t_bench = step([sys.executable, "benchmarks/bench_cuda.py"], "bench_cuda.txt", 120)
    tail = (out / "pytest.txt").read_text().strip().splitlines()[-1:]
    summary = (f"wheel: {wheel.name}\npython: {sys.version.split()[0]} ({platform.platform()})\n"
               f"pytest -m gpu exit {rc} in {t_tests:.0f} s: {tail[0] if tail else ''}\n"
               f"bench_cuda exit {brc} in {t_bench:.0f} s\n")
    (out / "result.txt").write_text(summary)
    print(summary + (out / "bench_cuda.txt").read_text())
    if rc or brc:
        sys.exit(1)


# ---------------------------------------------------------------- docs

DOCS_VENV = BUILD / "docs-venv"


def setup_docs_venv() -> Path:
    """Create .build/docs-venv with the pinned docs toolchain; idempotent (it is
    reinstalled when requirements-docs.txt changes)."""
    req = ROOT / "requirements-docs.txt"
    py = DOCS_VENV / "bin" / "python"
    stamp = DOCS_VENV / ".requirements-docs.txt"
    if not py.exists():
        run([sys.executable, "-m", "venv", DOCS_VENV])
    if not stamp.exists() or stamp.read_text() != req.read_text():
        run([py, "-m", "pip", "install", "--disable-pip-version-check", "-q", "-r", req])
        stamp.write_text(req.read_text())
    return py


def cmd_docs(ns):
    """Build the site from docs/ (mkdocs.yml) with warnings as errors. The API
    reference is read from python/memview's stubs and docstrings without importing
    the extension; the benchmark plot is drawn from docs/benchmarks/bench-output.txt
    by tools/benchplot.py (a hook in mkdocs.yml)."""
    py = setup_docs_venv()
    run([py, "-m", "mkdocs", "build", "--strict", "--site-dir", BUILD / "site", *ns.args],
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    log(f"docs in {BUILD / 'site'}/index.html")


STATICCHECK = "honnef.co/go/tools/cmd/staticcheck@v0.8.2"


def cmd_lint(ns):
    """The checks that read the code: pyext's C layering, ruff over the Python,
    staticcheck over the Go (with and without cgo) and stubtest of the stubs
    against the built extension (built into .build/pkg first where it is not)."""
    py = setup_venv()
    req = ROOT / "requirements-lint.txt"
    stamp = VENV / ".requirements-lint"
    if not (stamp.exists() and stamp.read_text() == req.read_text()):
        run([py, "-m", "pip", "install", "--disable-pip-version-check", "-q", "-r", req])
        stamp.write_text(req.read_text())
    run([sys.executable, ROOT / "tools" / "cgraph.py", "--check", "--quiet"])
    run([sys.executable, ROOT / "tools" / "gobridge.py", "--check"])
    run(["go", "run", "./tools/gendtypes", "-check"], env=go_env())
    run([VENV / "bin" / "ruff", "check", "."])
    sc = TOOLS / "staticcheck"
    sc_stamp = TOOLS / ".staticcheck"
    if not (sc.exists() and sc_stamp.exists() and sc_stamp.read_text() == STATICCHECK):
        TOOLS.mkdir(parents=True, exist_ok=True)
        run(["go", "install", STATICCHECK], env=go_env({"GOBIN": str(TOOLS)}))
        sc_stamp.write_text(STATICCHECK)
    # cuda/ is checked with cgo, which its driver code needs (its no-cgo twin leaves that unused)
    run([sc, "./memview/...", "./tools/...", "./pyext/pymsg"], env=go_env({"CGO_ENABLED": "0"}))
    run([sc, "./cuda/...", "./pyext/..."], env=gopyext.cgo_env(py, go_env({"CGO_ENABLED": "1"})))
    pkg = BUILD / "pkg" / NAME
    if not pkg.exists():
        pkg = cmd_ext(parse_command("ext", []))
    run([py, "-m", "mypy.stubtest", "memview", "--mypy-config-file", ROOT / "tools" / "stubtest.ini",
         "--allowlist", ROOT / "tools" / "stubtest_allowlist.txt"],
        env=dict(os.environ, PYTHONPATH=str(pkg.parent)))


COMMANDS = {"demo": cmd_demo, "test": cmd_test, "pytest": cmd_pytest, "gotest": cmd_gotest,
            "bench": cmd_bench, "wheel": cmd_wheel, "ext": cmd_ext, "sdist": cmd_sdist, "gpu-check": cmd_gpu_check,
            "docs": cmd_docs, "lint": cmd_lint}


def main(argv: list[str]) -> None:
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return
    if not argv or argv[0] not in COMMANDS:
        print(__doc__, file=sys.stderr)
        what = f"unknown command {argv[0]!r}" if argv else "no command given"
        print(f"build.py: {what} (commands: {', '.join(COMMANDS)}; build.py COMMAND --help tells more)",
              file=sys.stderr)
        sys.exit(2)
    COMMANDS[argv[0]](parse_command(argv[0], argv[1:]))


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except subprocess.CalledProcessError as e:
        sys.exit(f"[build.py] failed ({e.returncode}): {' '.join(map(str, e.cmd))}")
