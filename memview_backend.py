"""memview's PEP 517 build backend (pyproject.toml: build-backend = "memview_backend",
backend-path = ["."]).

The hooks are build.py's: it stays the one build entry. This module has a name of its
own so that the backend is never confused with PyPA's build, which `python -m build`
runs; build.py is loaded from this checkout under the name memview_buildpy.
"""
import importlib.util
import sys
from pathlib import Path

_spec = importlib.util.spec_from_file_location("memview_buildpy", Path(__file__).resolve().with_name("build.py"))
_build = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = _build
_spec.loader.exec_module(_build)

get_requires_for_build_sdist = _build.get_requires_for_build_sdist
build_sdist = _build.build_sdist
get_requires_for_build_wheel = _build.get_requires_for_build_wheel
build_wheel = _build.build_wheel

__all__ = ["get_requires_for_build_sdist", "build_sdist", "get_requires_for_build_wheel", "build_wheel"]
