#!/usr/bin/env python3
"""The one build entry of memview.

    python3 build.py demo        set up, build the extension, run the demo
    python3 build.py test        set up, build, run the Go tests and every pytest
    python3 build.py pytest      build and run only pytest (add --cgocheck2 for a
                                 GOEXPERIMENT=cgocheck2 build of the extension)
    python3 build.py bench       set up, build, run benchmarks/
    python3 build.py wheel [--with DIR]...
                                 build an abi3 wheel into dist/; each --with DIR builds
                                 the Go package in DIR (any module: a replace directive
                                 may point it at this checkout) into the same extension,
                                 importable by its package name
    python3 build.py ext [--with DIR]...
                                 build the importable packages into .build/pkg/
    python3 build.py gpu-check [WHEEL] [OUTDIR]
                                 on a GPU machine without Go: install an abi3 wheel
                                 built elsewhere and run every GPU test and benchmark,
                                 writing results to OUTDIR (default $OUT or gpu-results/)

Set-up is done here, on a fresh machine, every time it is needed: a virtual
environment in .build/venv (numpy, pytest, pybindgen from requirements-dev.txt),
gopy and goimports built from the versions pinned in go.mod, and the extension
built with gopy for the limited API of Python 3.11 (one abi3 .so for 3.11+).

The gopy part of the build — generation, the edits of gopy's output, the abi3
link, the Python layout — is gopyext.py, shared by memview alone and by every
--with build. The test, demo and bench builds add the Go packages of
examples/ (and the test build tests/gopkg, and memview's self-test hooks).

This file is also the PEP 517 backend named in pyproject.toml, so that
`pip install .` builds the same wheel on any machine that has Go
(`--config-settings with=DIR` adds Go packages as --with does).
"""
from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import gopyext
from gopyext import log

ROOT = Path(__file__).resolve().parent
BUILD = ROOT / ".build"
VENV = BUILD / "venv"
TOOLS = BUILD / "bin"
NAME = "memview"
VERSION = "0.1.0"
EXAMPLES = ["examples/sigproc", "examples/rgbimage"]  # Go packages of the demo, bench and test builds
TEST_WITH = EXAMPLES + ["tests/gopkg"]  # and of the test build
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


def setup_tools() -> None:
    """Build gopy and goimports from the versions pinned in go.mod, and gopysig
    (tools/gopysig) from this checkout."""
    if shutil.which("go") is None:
        sys.exit("memview needs the Go toolchain (go) on PATH to build")
    TOOLS.mkdir(parents=True, exist_ok=True)
    env = go_env()
    stamp = TOOLS / ".go.sum"
    gosum = (ROOT / "go.sum").read_text()
    if not (stamp.exists() and stamp.read_text() == gosum and (TOOLS / "gopy").exists()):
        run(["go", "build", "-o", TOOLS / "gopy", "github.com/go-python/gopy"], env=env)
        run(["go", "build", "-o", TOOLS / "goimports", "golang.org/x/tools/cmd/goimports"], env=env)
        stamp.write_text(gosum)
    sig_stamp = TOOLS / ".gopysig"
    sig = gosum + (ROOT / "tools" / "gopysig" / "main.go").read_text()
    if not (sig_stamp.exists() and sig_stamp.read_text() == sig and (TOOLS / "gopysig").exists()):
        run(["go", "build", "-o", TOOLS / "gopysig", "./tools/gopysig"], env=env)
        sig_stamp.write_text(sig)


# ---------------------------------------------------------------- extension


def build_ext(python: Path, out: Path, goexperiment: str | None = None, with_dirs: list = (),
              tags: list = ()) -> Path:
    """Build the extension for python, with the Go packages in with_dirs, and lay
    out the importable packages in out (gopyext.build); returns out/memview."""
    setup_tools()
    try:
        env = gopyext.cgo_env(python, go_env(), goexperiment)
        return gopyext.build(python, out, root=ROOT, tools=TOOLS, env=env, facade=ROOT / "python" / NAME,
                             with_dirs=with_dirs, tags=tags)
    except gopyext.BuildError as e:
        sys.exit(f"[build.py] {e}")


def split_with(args: list[str]) -> tuple[list[str], list[str]]:
    """The directories of --with DIR (or --with=DIR) options, and the other arguments."""
    dirs, rest = [], []
    it = iter(args)
    for a in it:
        if a == "--with":
            d = next(it, None)
            if d is None:
                sys.exit("[build.py] --with needs a directory")
            dirs.append(d)
        elif a.startswith("--with="):
            dirs.append(a[len("--with="):])
        else:
            rest.append(a)
    return [str(Path(d).resolve()) for d in dirs], rest


# ---------------------------------------------------------------- wheel / PEP 517


def platform_tag() -> str:
    return sysconfig.get_platform().replace("-", "_").replace(".", "_")


def _record_line(arcname: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def write_wheel(pkg: Path, dist: Path) -> Path:
    """Pack the assembled package (and the Go packages built with it, beside
    it) as cp311-abi3 wheel."""
    tag = f"cp311-abi3-{platform_tag()}"
    dist.mkdir(parents=True, exist_ok=True)
    whl = dist / f"{NAME}-{VERSION}-{tag}.whl"
    info = f"{NAME}-{VERSION}.dist-info"
    metadata = (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\n"
                "Summary: Zero-copy memory views between Go and Python (NumPy, memoryview)\n"
                "Requires-Python: >=3.11\n")
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
        for name, text in (("METADATA", metadata), ("WHEEL", wheel)):
            arc = f"{info}/{name}"
            zf.writestr(arc, text)
            records.append(_record_line(arc, text.encode()))
        records.append(f"{info}/RECORD,,")
        zf.writestr(f"{info}/RECORD", "\n".join(records) + "\n")
    log(f"wrote {whl}")
    return whl


def get_requires_for_build_wheel(config_settings=None):
    """PEP 517: the build needs pybindgen (gopy's C generator)."""
    return ["pybindgen==0.22.1"]


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """PEP 517: build the extension with this interpreter and pack a wheel;
    config setting "with" (one directory or a list) adds Go packages."""
    dirs = (config_settings or {}).get("with") or []
    dirs = [dirs] if isinstance(dirs, str) else list(dirs)
    out = BUILD / "pep517"
    pkg = build_ext(Path(sys.executable), out, with_dirs=[str(Path(d).resolve()) for d in dirs])
    return write_wheel(pkg, Path(wheel_directory)).name


# ---------------------------------------------------------------- commands


def cmd_ext(args):
    dirs, _ = split_with(args)
    setup_venv()
    return build_ext(venv_python(), BUILD / "pkg", with_dirs=dirs)


def examples_ext() -> Path:
    """memview with the Go packages of examples/ (the demo and the benchmarks use them)."""
    setup_venv()
    return build_ext(venv_python(), BUILD / "examples", with_dirs=[str(ROOT / d) for d in EXAMPLES])


def pytest(pkgdir: Path, args: list[str]) -> None:
    """Run pytest on tests/ and examples/ (or on the paths given in args) against pkgdir."""
    env = dict(os.environ, PYTHONPATH=str(pkgdir.parent))
    targets = [] if any(not a.startswith("-") for a in args) else [ROOT / "tests", ROOT / "examples"]
    run([venv_python(), "-m", "pytest", "-q", "-p", "no:cacheprovider", *args, *targets], env=env)


def cmd_pytest(args):
    """The test build: memview with its self-test hooks and the Go packages of
    examples/ and tests/gopkg (optionally a GOEXPERIMENT=cgocheck2 build)."""
    setup_venv()
    out, goexperiment = BUILD / "test", None
    if "--cgocheck2" in args:
        args = [a for a in args if a != "--cgocheck2"]
        out, goexperiment = BUILD / "cgocheck2", "cgocheck2"
    pkg = build_ext(venv_python(), out, goexperiment=goexperiment,
                    with_dirs=[str(ROOT / d) for d in TEST_WITH], tags=TEST_TAGS)
    pytest(pkg, args)


def cmd_gotest(args):
    # The core must build without cgo (so must pyext/pymsg, the wording of messages);
    # cuda/ loads the driver through cgo (dlopen).
    nocgo = go_env({"CGO_ENABLED": "0"})
    run(["go", "vet", "./memview/..."], env=nocgo)
    run(["go", "test", "-count=1", "./memview/...", "./pyext/pymsg"], env=nocgo)
    cgo = go_env({"CGO_ENABLED": "1"})
    run(["go", "vet", "./cuda/..."], env=cgo)
    run(["go", "test", "-count=1", "./cuda/..."], env=cgo)
    # The extension's Go (vetted with the Python headers; tested through pytest), the
    # build tool, the test build's Go package and the examples, each in its module.
    setup_venv()
    run(["go", "vet", "./pyext/...", "./tools/...", "./tests/gopkg"], env=gopyext.cgo_env(venv_python(), cgo))
    run(["go", "vet", "-tags=memview_selftest", "./pyext"], env=gopyext.cgo_env(venv_python(), cgo))
    for d in EXAMPLES:
        run(["go", "vet", "./..."], cwd=ROOT / d, env=cgo)


def cmd_test(args):
    cmd_gotest(args)
    cmd_pytest(args)


def cmd_demo(args):
    pkg = examples_ext()
    env = dict(os.environ, PYTHONPATH=str(pkg.parent))
    run([venv_python(), ROOT / "examples" / "demo.py"], env=env)


def cmd_bench(args):
    pkg = examples_ext()
    env = dict(os.environ, PYTHONPATH=str(pkg.parent))
    for script in sorted((ROOT / "benchmarks").glob("bench_*.py")):
        run([venv_python(), script, *args], env=env)


def cmd_wheel(args):
    dirs, _ = split_with(args)
    setup_venv()
    pkg = build_ext(venv_python(), BUILD / "wheel", with_dirs=dirs)
    write_wheel(pkg, ROOT / "dist")


def cmd_gpu_check(args):
    """Install a prebuilt wheel (no Go needed) and run the GPU tests and benchmarks."""
    wheels = sorted((ROOT / "dist").glob(f"{NAME}-*-abi3-*.whl"))
    wheel = Path(args[0]) if args else (wheels[-1] if wheels else None)
    if wheel is None or not wheel.exists():
        sys.exit("gpu-check: no wheel given and none in dist/ (build one with `python3 build.py wheel`)")
    out = Path(args[1] if len(args) > 1 else os.environ.get("OUT") or ROOT / "gpu-results")
    out.mkdir(parents=True, exist_ok=True)
    import tempfile
    site = Path(tempfile.mkdtemp(prefix="memview-site-"))
    run([sys.executable, "-m", "pip", "install", "--no-deps", "--disable-pip-version-check", "-q",
         "--target", site, wheel])
    env = dict(os.environ, PYTHONPATH=str(site))
    tests = ["tests/test_gpu.py", "tests/test_cuda_streams.py", "tests/test_cuda_interface.py",
             "tests/test_gpumemoryview.py", "tests/test_create.py", "tests/test_roundtrip.py",
             "tests/test_lifetime.py"]
    with open(out / "pytest.txt", "w") as f:
        rc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                             f"--junitxml={out / 'pytest.xml'}", *tests], cwd=ROOT, env=env,
                            stdout=f, stderr=subprocess.STDOUT).returncode
    with open(out / "bench_cuda.txt", "w") as f:
        brc = subprocess.run([sys.executable, "benchmarks/bench_cuda.py"], cwd=ROOT, env=env,
                             stdout=f, stderr=subprocess.STDOUT).returncode
    tail = (out / "pytest.txt").read_text().strip().splitlines()[-1:]
    summary = (f"wheel: {wheel.name}\npython: {sys.version.split()[0]}\n"
               f"pytest exit {rc}: {tail[0] if tail else ''}\nbench_cuda exit {brc}\n")
    (out / "result.txt").write_text(summary)
    print(summary + (out / "bench_cuda.txt").read_text())
    if rc or brc:
        sys.exit(1)


COMMANDS = {"demo": cmd_demo, "test": cmd_test, "pytest": cmd_pytest, "gotest": cmd_gotest,
            "bench": cmd_bench, "wheel": cmd_wheel, "ext": cmd_ext, "gpu-check": cmd_gpu_check}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__)
        sys.exit(2)
    try:
        COMMANDS[sys.argv[1]](sys.argv[2:])
    except subprocess.CalledProcessError as e:
        sys.exit(f"[build.py] failed ({e.returncode}): {' '.join(map(str, e.cmd))}")
