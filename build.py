#!/usr/bin/env python3
"""The one build entry of memview.

    python3 build.py demo        set up, build the extension, run the demo
    python3 build.py test        set up, build, run the Go tests and every pytest
    python3 build.py pytest      build and run only pytest (add --cgocheck2 for a
                                 GOEXPERIMENT=cgocheck2 build of the extension, or
                                 --sanitize for one whose C runs under ASan and UBSan)
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

This file is also the PEP 517 backend named in pyproject.toml, so that
`pip install .` builds the same wheel on any machine that has Go
(`--config-settings with=DIR` adds Go packages as --with does).
"""
from __future__ import annotations

import base64
import hashlib
import re
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
                 "install it from Go's downloads page, or use a prebuilt memview wheel, which needs no Go")
    r = subprocess.run(["go", "env", "GOVERSION"], cwd=ROOT, capture_output=True, text=True)
    have = r.stdout.strip()
    if r.returncode != 0 or not have:
        sys.exit(f"memview needs Go {need} or newer to build; `go env GOVERSION` failed: "
                 f"{r.stderr.strip() or r.returncode}")
    m = re.fullmatch(r"go(\d+)\.(\d+)(?:\.(\d+))?", have)
    if m and version_tuple(have.removeprefix("go")) < version_tuple(need):
        sys.exit(f"memview needs Go {need} or newer to build; `go` on PATH is {have}")
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


# ---------------------------------------------------------------- extension


def build_ext(python: Path, out: Path, goexperiment: str | None = None, with_dirs: list = (),
              tags: list = (), sanitize: bool = False) -> Path:
    """Build the extension for python, with the Go packages in with_dirs, and lay
    out the importable packages in out (gopyext.build); returns out/memview.
    sanitize builds the C (memview's and gopy's) with ASan and UBSan."""
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


# The newest glibc the extension may need on Linux x86-64: the wheel says so in
# its platform tag, so that pip refuses it cleanly on an older system instead of
# the import failing there. check_glibc holds the built extension to it.
GLIBC = (2, 34)


def platform_tag() -> str:
    plat = sysconfig.get_platform()
    if plat == "linux-x86_64":
        return f"manylinux_{GLIBC[0]}_{GLIBC[1]}_x86_64"
    return plat.replace("-", "_").replace(".", "_")


def check_glibc(pkg: Path) -> None:
    """Fail loudly if a shared object in pkg needs a newer glibc than the tag states
    (the versions it needs are named GLIBC_x.y in its dynamic string table)."""
    for so in pkg.rglob("*.so"):
        found = {tuple(int(p) for p in m.group(1).split(b"."))
                 for m in re.finditer(rb"GLIBC_(\d+\.\d+(?:\.\d+)?)\x00", so.read_bytes())}
        newest = max(found, default=(0, 0))
        if newest[:2] > GLIBC:
            sys.exit(f"build.py: {so.name} needs glibc {'.'.join(map(str, newest))}, newer than the "
                     f"{GLIBC[0]}.{GLIBC[1]} its wheel tag promises; raise GLIBC in build.py")


def _record_line(arcname: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def wheel_metadata() -> str:
    """The wheel's METADATA (core metadata 2.4), from pyproject.toml's [project]:
    summary, Python requirement, license expression and files, keywords,
    classifiers, project URLs, extras and the README as the long description."""
    import tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = ["Metadata-Version: 2.4", f"Name: {NAME}", f"Version: {VERSION}",
             f"Summary: {project['description']}", f"Requires-Python: {project['requires-python']}"]
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
    if readme:
        lines.append("Description-Content-Type: text/markdown")
        return "\n".join(lines) + "\n\n" + (ROOT / readme).read_text()
    return "\n".join(lines) + "\n"


def license_files() -> list[str]:
    """pyproject.toml's license-files, which the wheel holds under .dist-info/licenses/."""
    import tomllib
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"].get("license-files", [])


def write_wheel(pkg: Path, dist: Path) -> Path:
    """Pack the assembled package (and the Go packages built with it, beside
    it) as cp311-abi3 wheel."""
    tag = f"cp311-abi3-{platform_tag()}"
    if tag.endswith("manylinux_%d_%d_x86_64" % GLIBC):
        check_glibc(pkg)
    dist.mkdir(parents=True, exist_ok=True)
    whl = dist / f"{NAME}-{VERSION}-{tag}.whl"
    info = f"{NAME}-{VERSION}.dist-info"
    metadata = wheel_metadata()
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
        for name in license_files():
            arc = f"{info}/licenses/{name}"
            data = (ROOT / name).read_bytes()
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
    return build_ext(venv_python(), BUILD / "examples", with_dirs=[str(ROOT / d) for d in EXAMPLES + BENCH_WITH])


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


def pytest(pkgdir: Path, args: list[str], extra_env: dict | None = None) -> None:
    """Run pytest on tests/ and examples/ (or on the paths given in args) against pkgdir."""
    env = dict(os.environ, PYTHONPATH=str(pkgdir.parent), **(extra_env or {}))
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
    sanitize = "--sanitize" in args
    if sanitize:
        args = [a for a in args if a != "--sanitize"]
        out = BUILD / "sanitize"
        os.environ.setdefault("MEMVIEW_LDFLAGS", " ")  # keep the symbols a report names
    pkg = build_ext(venv_python(), out, goexperiment=goexperiment,
                    with_dirs=[str(ROOT / d) for d in TEST_WITH], tags=TEST_TAGS, sanitize=sanitize)
    pytest(pkg, args, sanitizer_env() if sanitize else None)


def cmd_gotest(args):
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
        # a header per script: tools/benchplot.py reads saved output by these
        print(f"### benchmarks/{script.name}", flush=True)
        run([venv_python(), script, *args], env=env)


def cmd_wheel(args):
    dirs, _ = split_with(args)
    setup_venv()
    pkg = build_ext(venv_python(), BUILD / "wheel", with_dirs=dirs)
    write_wheel(pkg, ROOT / "dist")


def cmd_gpu_check(args):
    """Install a prebuilt wheel (no Go needed) and run every GPU test (marker `gpu`,
    across the whole suite) and the GPU benchmarks, each step with a time limit so
    that the whole check ends within 8 minutes."""
    wheels = sorted((ROOT / "dist").glob(f"{NAME}-*-abi3-*.whl"))
    wheel = Path(args[0]) if args else (wheels[-1] if wheels else None)
    if wheel is None or not wheel.exists():
        sys.exit("gpu-check: no wheel given and none in dist/ (build one with `python3 build.py wheel`)")
    out = Path(args[1] if len(args) > 1 else os.environ.get("OUT") or ROOT / "gpu-results")
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


def cmd_docs(args):
    """Build the site from docs/ (mkdocs.yml) with warnings as errors. The API
    reference is read from python/memview's stubs and docstrings without importing
    the extension; the benchmark plot is drawn from docs/benchmarks/bench-output.txt
    by tools/benchplot.py (a hook in mkdocs.yml)."""
    py = setup_docs_venv()
    run([py, "-m", "mkdocs", "build", "--strict", "--site-dir", BUILD / "site", *args],
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    log(f"docs in {BUILD / 'site'}/index.html")


STATICCHECK = "honnef.co/go/tools/cmd/staticcheck@v0.8.2"


def cmd_lint(args):
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
        pkg = cmd_ext([])
    run([py, "-m", "mypy.stubtest", "memview", "--mypy-config-file", ROOT / "tools" / "stubtest.ini",
         "--allowlist", ROOT / "tools" / "stubtest_allowlist.txt"],
        env=dict(os.environ, PYTHONPATH=str(pkg.parent)))


COMMANDS = {"demo": cmd_demo, "test": cmd_test, "pytest": cmd_pytest, "gotest": cmd_gotest,
            "bench": cmd_bench, "wheel": cmd_wheel, "ext": cmd_ext, "gpu-check": cmd_gpu_check,
            "docs": cmd_docs, "lint": cmd_lint}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__)
        sys.exit(2)
    try:
        COMMANDS[sys.argv[1]](sys.argv[2:])
    except subprocess.CalledProcessError as e:
        sys.exit(f"[build.py] failed ({e.returncode}): {' '.join(map(str, e.cmd))}")
