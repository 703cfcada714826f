"""memview's PEP 517 build backend, for two kinds of project.

- memview itself (its pyproject.toml: build-backend = "memview_backend",
  backend-path = ["."]): the hooks are those of build.py beside this file, which
  stays the one build entry. The module has a name of its own so that it is never
  confused with PyPA's build, which `python -m build` runs; build.py is loaded from
  the checkout under the name memview_buildpy.

- A Go developer's project, whose pyproject.toml says

      [build-system]
      requires = ["memview"]
      build-backend = "memview_backend"

      [project]
      name = "sigproc-tools"
      version = "1.2.0"

      [tool.memview]
      packages = ["."]          # Go package directories, "DIR" or "DIR=NAME"

  memview's wheel installs this module beside the memview package, and with it
  memview's own sdist (memview/_source/); the hooks unpack that once per version
  (into $MEMVIEW_BUILD_CACHE, default ~/.cache/memview) and build with its
  build.py: the wheel of the project's distribution, memview and its Go packages
  in one extension (build.py wheel --with DIR... --name --version), and an sdist
  of the project's files. A build needs Go 1.26.8 or newer on PATH and reaches the
  Go module proxy, as memview's own does.
"""
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

_HERE = Path(__file__).resolve().parent
_OWN = (_HERE / "build.py").is_file() and (_HERE / "pyext").is_dir()  # memview's own tree


def _load(path: Path):
    spec = importlib.util.spec_from_file_location("memview_buildpy", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


if _OWN:
    _build = _load(_HERE / "build.py")
    get_requires_for_build_sdist = _build.get_requires_for_build_sdist
    build_sdist = _build.build_sdist
    get_requires_for_build_wheel = _build.get_requires_for_build_wheel
    build_wheel = _build.build_wheel

else:
    _memview_build = None

    def _source() -> Path:
        """memview's sources: the sdist the installed wheel carries, unpacked
        once into the build cache (a directory per sdist)."""
        spec = importlib.util.find_spec("memview")  # finds the package without importing it
        places = list(spec.submodule_search_locations or []) if spec else []
        tars = sorted(t for p in places for t in (Path(p) / "_source").glob("memview-*.tar.gz"))
        if not tars:
            sys.exit("memview_backend: the memview installed in this build environment carries no "
                     "source (memview/_source/): build with a memview wheel from PyPI or from "
                     "`python3 build.py wheel` in a memview checkout")
        tar = tars[-1]
        digest = hashlib.sha256(tar.read_bytes()).hexdigest()[:16]
        cache = Path(os.environ.get("MEMVIEW_BUILD_CACHE")
                     or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "memview")
        out = cache / f"{tar.name.removesuffix('.tar.gz')}-{digest}"
        if not (out / ".unpacked").is_file():
            tmp = cache / f".unpacking-{os.getpid()}-{time.monotonic_ns()}"
            tmp.mkdir(parents=True)
            try:
                with tarfile.open(tar) as tf:
                    tf.extractall(tmp, filter="data")
                (top,) = tmp.iterdir()  # memview-VERSION/
                (top / ".unpacked").write_text(tar.name + "\n")
                try:
                    top.rename(out)
                except OSError:  # another build unpacked it first
                    if not (out / ".unpacked").is_file():
                        raise
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        return out

    def _build_py():
        """build.py of memview's unpacked sources, loaded once."""
        global _memview_build
        if _memview_build is None:
            _memview_build = _load(_source() / "build.py")
        return _memview_build

    def _project() -> tuple[dict, dict]:
        """The project's [project] table and its [tool.memview] table."""
        import tomllib
        path = Path("pyproject.toml")
        if not path.is_file():
            sys.exit("memview_backend: no pyproject.toml in the project directory")
        data = tomllib.loads(path.read_text())
        if "project" not in data or "name" not in data["project"] or "version" not in data["project"]:
            sys.exit("memview_backend: pyproject.toml needs a [project] table with a name and a version")
        return data["project"], data.get("tool", {}).get("memview", {})

    def _settings(config_settings) -> dict:
        """The config settings of a build of the project: its Go packages
        ([tool.memview] packages, relative to the project), then -C settings."""
        _, tool = _project()
        packages = tool.get("packages", ["."])
        if isinstance(packages, str) or not all(isinstance(p, str) for p in packages):
            sys.exit('memview_backend: [tool.memview] packages is a list of Go package directories ("DIR" or '
                     '"DIR=NAME")')
        wanted = []
        for p in packages:
            d, sep, name = p.partition("=")
            wanted.append(str(Path(d).resolve()) + (sep + name if sep else ""))
        unknown = set(tool) - {"packages"}
        if unknown:
            sys.exit(f"memview_backend: unknown [tool.memview] keys {sorted(unknown)} (it takes packages)")
        return {"with": wanted, **(config_settings or {})}

    def get_requires_for_build_sdist(config_settings=None):
        """PEP 517: an sdist of the project needs nothing."""
        return []

    def get_requires_for_build_wheel(config_settings=None):
        """PEP 517: what memview's own wheel build needs (pybindgen, zig)."""
        return _build_py().get_requires_for_build_wheel(_settings(config_settings))

    def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
        """PEP 517: the project's wheel: memview with the project's Go packages,
        under the project's name, version and metadata."""
        b = _build_py()
        ns = b.parse_config_settings(_settings(config_settings))
        ns.project = Path.cwd()
        published = b.distribution(ns)
        key = hashlib.sha256(str(Path.cwd()).encode()).hexdigest()[:12]
        pkg = b.build_ext(Path(sys.executable), b.BUILD / f"project-{key}", with_pkgs=ns.with_pkgs, cc=ns.cc,
                          arch=ns.arch)
        return b.write_wheel(pkg, Path(wheel_directory), arch=ns.arch, cc=ns.cc, published=published).name

    def _project_files() -> list[str]:
        """The project's files for its sdist: those git tracks where the project
        is in a git checkout, else every file but build output, caches and
        virtual environments."""
        try:
            r = subprocess.run(["git", "ls-files", "-z", "--", "."], capture_output=True, check=True)
            files = [f for f in r.stdout.decode().split("\0") if f and Path(f).is_file()]
            if files:
                return sorted(files)
        except (OSError, subprocess.CalledProcessError):
            pass
        skip = {".git", ".build", "build", "dist", "__pycache__", ".venv", "venv", ".mypy_cache", ".pytest_cache",
                ".tox", ".nox"}
        out = []
        for root, dirs, names in os.walk("."):
            dirs[:] = sorted(d for d in dirs if d not in skip and not d.endswith(".egg-info"))
            out += [os.path.relpath(os.path.join(root, n)) for n in sorted(names)
                    if not n.endswith((".so", ".pyc", ".whl"))]
        return sorted(out)

    def build_sdist(sdist_directory, config_settings=None):
        """PEP 517: the project's sdist: PKG-INFO and the project's files
        (_project_files) under NAME-VERSION/."""
        b = _build_py()
        ns = b.parse_config_settings(_settings(config_settings))
        ns.project = Path.cwd()
        published = b.distribution(ns)
        base = f"{published.file_name}-{published.version}"
        out = Path(sdist_directory) / f"{base}.tar.gz"
        out.parent.mkdir(parents=True, exist_ok=True)
        mtime = int(os.environ.get("SOURCE_DATE_EPOCH", "0")) or int(time.time())

        def add(tf, arc, data, mode):
            import io
            info = tarfile.TarInfo(f"{base}/{arc}")
            info.size, info.mode, info.mtime = len(data), mode, mtime
            tf.addfile(info, io.BytesIO(data))

        with tarfile.open(out, "w:gz", format=tarfile.PAX_FORMAT) as tf:
            add(tf, "PKG-INFO", b.wheel_metadata(published).encode(), 0o644)
            for rel in _project_files():
                data = Path(rel).read_bytes()
                add(tf, Path(rel).as_posix(), data, 0o755 if os.access(rel, os.X_OK) else 0o644)
        return out.name

__all__ = ["get_requires_for_build_sdist", "build_sdist", "get_requires_for_build_wheel", "build_wheel"]
