#!/usr/bin/env python3
"""The one build entry of memview.

    python3 build.py demo        set up, build the extension, run the demo
    python3 build.py test        set up, build, run the Go tests and every pytest
    python3 build.py pytest      build and run only pytest (add --cgocheck2 for a
                                 GOEXPERIMENT=cgocheck2 build of the extension)
    python3 build.py bench       set up, build, run benchmarks/
    python3 build.py wheel       build an abi3 wheel into dist/
    python3 build.py ext         build the importable package into .build/pkg/
    python3 build.py gpu-check [WHEEL] [OUTDIR]
                                 on a GPU machine without Go: install an abi3 wheel
                                 built elsewhere and run every GPU test and benchmark,
                                 writing results to OUTDIR (default $OUT or gpu-results/)

Set-up is done here, on a fresh machine, every time it is needed: a virtual
environment in .build/venv (numpy, pytest, pybindgen from requirements-dev.txt),
gopy and goimports built from the versions pinned in go.mod, and the extension
built with gopy for the limited API of Python 3.11 (one abi3 .so for 3.11+).

This file is also the PEP 517 backend named in pyproject.toml, so that
`pip install .` builds the same wheel on any machine that has Go.
"""
from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
BUILD = ROOT / ".build"
VENV = BUILD / "venv"
TOOLS = BUILD / "bin"
NAME = "memview"
VERSION = "0.1.0"
LIMITED_API = "0x030b0000"  # Python 3.11: the oldest version the abi3 .so loads in
MODULE = "pyext"  # the Go package gopy binds; its extension is _pyext.abi3.so


def log(msg: str) -> None:
    print(f"[build.py] {msg}", flush=True)


def run(cmd: list, cwd: Path = ROOT, env: dict | None = None) -> None:
    log(" ".join(str(c) for c in cmd))
    subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, check=True)


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
    """Build gopy and goimports from the versions pinned in go.mod."""
    if shutil.which("go") is None:
        sys.exit("memview needs the Go toolchain (go) on PATH to build")
    TOOLS.mkdir(parents=True, exist_ok=True)
    stamp = TOOLS / ".go.sum"
    gosum = (ROOT / "go.sum").read_text()
    if stamp.exists() and stamp.read_text() == gosum and (TOOLS / "gopy").exists():
        return
    env = go_env()
    run(["go", "build", "-o", TOOLS / "gopy", "github.com/go-python/gopy"], env=env)
    run(["go", "build", "-o", TOOLS / "goimports", "golang.org/x/tools/cmd/goimports"], env=env)
    stamp.write_text(gosum)


# ---------------------------------------------------------------- extension


def patch(path: Path, edits: list[tuple[str, str]]) -> None:
    """Apply exact text edits to a generated file; fail loudly if one no longer matches."""
    text = path.read_text()
    for old, new in edits:
        if old not in text:
            sys.exit(f"build.py: gopy output changed: {path.name} no longer contains {old!r}; "
                     f"update the edits in build.py")
        text = text.replace(old, new)
    path.write_text(text)


def patch_generated_go(path: Path) -> None:
    """Make gopy's generated Go main build against the limited API, dynamically linked."""
    text = path.read_text()
    cflags = re.compile(r"^#cgo CFLAGS: .*$", re.M)
    ldflags = re.compile(r"^#cgo LDFLAGS: .*$", re.M)
    if not cflags.search(text) or not ldflags.search(text):
        sys.exit(f"build.py: gopy output changed: no #cgo CFLAGS/LDFLAGS lines in {path.name}")
    # The include path and the abi3 define come from CGO_CFLAGS; libpython is not linked:
    # the interpreter that loads the extension provides every Python symbol.
    text = cflags.sub("#cgo CFLAGS: -Wno-error -Wno-implicit-function-declaration -Wno-int-conversion", text, 1)
    text = ldflags.sub("", text, 1)
    text = gate_bound_functions(text, path.name)
    path.write_text(text)
    patch(path, [
        ("#include <Python.h>\n", "#include <Python.h>\n#include <stdlib.h>\n"),
        # PyComplex_AsCComplex and Py_complex are not in the limited API.
        ("v := C.PyComplex_AsCComplex(o)\n\treturn complex(float32(v.real), float32(v.imag))",
         "return complex(float32(C.PyComplex_RealAsDouble(o)), float32(C.PyComplex_ImagAsDouble(o)))"),
        ("v := C.PyComplex_AsCComplex(o)\n\treturn complex(float64(v.real), float64(v.imag))",
         "return complex(float64(C.PyComplex_RealAsDouble(o)), float64(C.PyComplex_ImagAsDouble(o)))"),
    ])


SAVE_THREAD = "_saved_thread := C.PyEval_SaveThread()\n"
RESTORE_DEFERRED = "\tdefer C.PyEval_RestoreThread(_saved_thread)\n"
RESTORE = "\tC.PyEval_RestoreThread(_saved_thread)\n"


def gate_bound_functions(text: str, name: str) -> str:
    """Make every bound function's Go code, which runs without the GIL, pass the fork
    gate (pyext/forkgate): a fork waits for it, and it leaves the gate before it takes
    the GIL back. Install is left out: it takes the GIL itself, inside."""
    funcs = re.split(r"(?m)^(?=//export )", text)
    gated = 0
    for i, f in enumerate(funcs):
        if SAVE_THREAD not in f or f.startswith("//export pyext_Install\n"):
            continue
        f = f.replace(SAVE_THREAD, SAVE_THREAD + "\t_leave := forkgate.Enter()\n", 1)
        if RESTORE_DEFERRED in f:
            f = f.replace(RESTORE_DEFERRED, RESTORE_DEFERRED + "\tdefer _leave()\n", 1)
        elif RESTORE in f:
            f = f.replace(RESTORE, "\t_leave()\n" + RESTORE, 1)
        else:
            sys.exit(f"build.py: gopy output changed: a function in {name} gives up the GIL "
                     "and never takes it back; update gate_bound_functions")
        funcs[i] = f
        gated += 1
    if gated == 0:
        sys.exit(f"build.py: gopy output changed: no function in {name} gives up the GIL; "
                 "update gate_bound_functions")
    text = "".join(funcs)
    imp = '\t"github.com/memview/memview/pyext"\n'
    if imp not in text:
        sys.exit(f"build.py: gopy output changed: {name} does not import pyext")
    return text.replace(imp, imp + '\t"github.com/memview/memview/pyext/forkgate"\n', 1)


def patch_generated_c(path: Path) -> None:
    """Make pybindgen's C build against the limited API."""
    text = path.read_text()
    path.write_text("#include <stdlib.h>\n" + text)
    # PyAsyncMethods is not part of the limited API; the typedef is unused by module-only code.
    patch(path, [("typedef PyAsyncMethods* cmpfunc;", "typedef void* cmpfunc;")])


def python_config(python: Path) -> dict:
    code = ("import sysconfig, json, sys; print(json.dumps({'include': sysconfig.get_paths()['include'],"
            " 'version': list(sys.version_info[:2])}))")
    import json
    out = subprocess.run([str(python), "-c", code], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def build_ext(python: Path, out: Path, goexperiment: str | None = None) -> Path:
    """Generate, patch and build the extension; assemble the package at out/memview."""
    setup_tools()
    cfg = python_config(python)
    if tuple(cfg["version"]) < (3, 11):
        sys.exit(f"{python} is Python {cfg['version']}: memview needs 3.11 or newer")
    gen = out / "gen"
    pkg = out / NAME
    shutil.rmtree(gen, ignore_errors=True)
    gen.mkdir(parents=True)
    cflags = f"-I{cfg['include']} -DPy_LIMITED_API={LIMITED_API} -O2 -fPIC"
    extra = {"CGO_CFLAGS": cflags, "CGO_LDFLAGS": "", "CGO_ENABLED": "1"}
    if goexperiment:
        extra["GOEXPERIMENT"] = goexperiment
    env = go_env(extra)
    run([TOOLS / "gopy", "gen", f"-vm={python}", "-dynamic-link=true", "-no-make=true",
         f"-output={gen}", f"./{MODULE}"], env=env)
    patch_generated_go(gen / f"{MODULE}.go")
    run([TOOLS / "goimports", "-w", f"{MODULE}.go"], cwd=gen, env=env)
    # First link: produces the cgo header (pyext_go.h) that pybindgen's C includes.
    run(["go", "build", "-buildmode=c-shared", "-o", f"{MODULE}_go.so", "."], cwd=gen, env=env)
    (gen / f"{MODULE}_go.so").unlink()
    run([python, "build.py"], cwd=gen, env=env)
    patch_generated_c(gen / f"{MODULE}.c")
    so = f"_{MODULE}.abi3.so"
    run(["go", "build", "-buildmode=c-shared", "-ldflags=-s -w", "-o", so, "."], cwd=gen, env=env)
    shutil.rmtree(pkg, ignore_errors=True)
    shutil.copytree(ROOT / "python" / NAME, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    for name in (so, f"{MODULE}.py", "go.py"):
        shutil.copy2(gen / name, pkg / name)
    log(f"built {pkg}")
    return pkg


# ---------------------------------------------------------------- wheel / PEP 517


def platform_tag() -> str:
    return sysconfig.get_platform().replace("-", "_").replace(".", "_")


def _record_line(arcname: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def write_wheel(pkg: Path, dist: Path) -> Path:
    """Pack the assembled package as cp311-abi3 wheel."""
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
        for path in sorted(pkg.rglob("*")):
            if path.is_dir() or "__pycache__" in path.parts:
                continue
            arc = f"{NAME}/{path.relative_to(pkg).as_posix()}"
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
    """PEP 517: build the extension with this interpreter and pack a wheel."""
    out = BUILD / "pep517"
    pkg = build_ext(Path(sys.executable), out)
    return write_wheel(pkg, Path(wheel_directory)).name


# ---------------------------------------------------------------- commands


def cmd_ext(args):
    setup_venv()
    return build_ext(venv_python(), BUILD / "pkg")


def pytest(pkgdir: Path, args: list[str]) -> None:
    """Run pytest on tests/ (or on the paths given in args) against pkgdir."""
    env = dict(os.environ, PYTHONPATH=str(pkgdir.parent))
    targets = [] if any(not a.startswith("-") for a in args) else [ROOT / "tests"]
    run([venv_python(), "-m", "pytest", "-q", "-p", "no:cacheprovider", *args, *targets], env=env)


def cmd_pytest(args):
    setup_venv()
    if "--cgocheck2" in args:
        args = [a for a in args if a != "--cgocheck2"]
        pkg = build_ext(venv_python(), BUILD / "cgocheck2", goexperiment="cgocheck2")
    else:
        pkg = build_ext(venv_python(), BUILD / "pkg")
    pytest(pkg, args)


def cmd_gotest(args):
    # The core must build without cgo; cuda/ loads the driver through cgo (dlopen).
    nocgo = go_env({"CGO_ENABLED": "0"})
    run(["go", "vet", "./memview/..."], env=nocgo)
    run(["go", "test", "-count=1", "./memview/..."], env=nocgo)
    cgo = go_env({"CGO_ENABLED": "1"})
    run(["go", "vet", "./cuda/..."], env=cgo)
    run(["go", "test", "-count=1", "./cuda/..."], env=cgo)


def cmd_test(args):
    cmd_gotest(args)
    cmd_pytest(args)


def cmd_demo(args):
    pkg = cmd_ext(args)
    env = dict(os.environ, PYTHONPATH=str(pkg.parent))
    run([venv_python(), ROOT / "examples" / "demo.py"], env=env)


def cmd_bench(args):
    pkg = cmd_ext(args)
    env = dict(os.environ, PYTHONPATH=str(pkg.parent))
    for script in sorted((ROOT / "benchmarks").glob("bench_*.py")):
        run([venv_python(), script, *args], env=env)


def cmd_wheel(args):
    pkg = cmd_ext(args)
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
             "tests/test_lifetime.py", "tests/test_gpu_memory.py"]
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
